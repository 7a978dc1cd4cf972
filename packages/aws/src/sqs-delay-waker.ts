import type { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { type Clock, systemClock, type WakeRequest, type Waker } from '@durable-lambda/engine';
import { AwsSdkLoadError, LazySdkClient, type SendsCommands } from './lazy-aws-sdk-clients';
import { timedWakeEvent } from './wake-queue-events';

/** The longest delay SQS gives one message (`DelaySeconds` 0-900: 15 minutes). */
export const SQS_MAX_DELAY_SECONDS = 900;

/**
 * How a wake-up's delay becomes the whole seconds SQS counts:
 * - `down` (default): the message becomes visible up to a second before it is due, so the event
 *   source's poll latency is mostly spent before the due time, and the receiving invocation holds
 *   the rest in-process: modelled p99 0.06 s late (docs/performance.md), for ~0.8 s of billed
 *   hold per wake-up on average;
 * - `nearest`: within half a second either side, about half as much hold, modelled p99 ~1.07 s
 *   late (the poll latency comes on top of the rounding).
 */
export type DelayRounding = 'down' | 'nearest';

/** Every {@link DelayRounding}. */
export const DELAY_ROUNDINGS: readonly DelayRounding[] = ['down', 'nearest'];

/**
 * The `DelaySeconds` of a wake-up due at `at` sent at `now`, rounded as `rounding` says, within
 * 0 to {@link SQS_MAX_DELAY_SECONDS}. A message visible early is held in-process for the rest (or
 * re-armed, past 15 minutes) by the receiving invocation, so a wake-up is never handled before it
 * is due.
 */
export function delaySecondsFor(at: number, now: number, rounding: DelayRounding = 'down'): number {
  const seconds = (at - now) / 1000;
  const whole = rounding === 'down' ? Math.floor(seconds) : Math.round(seconds);
  return Math.min(SQS_MAX_DELAY_SECONDS, Math.max(0, whole));
}

/** The command the SQS delay waker sends. */
export type SqsCommand = SendMessageCommand;

type SqsSdk = typeof import('@aws-sdk/client-sqs');
let loading: Promise<SqsSdk> | undefined;

/** `@aws-sdk/client-sqs`, loaded on first call (once per process; a failed load is tried again). */
export function sqsSdk(): Promise<SqsSdk> {
  loading ??= import('@aws-sdk/client-sqs').catch((cause: unknown) => {
    loading = undefined;
    throw new AwsSdkLoadError('@aws-sdk/client-sqs', { cause });
  });
  return loading;
}

/** An SQS client for `region`, built (and its SDK module loaded) at its first call. */
export function lazySqsClient(region: string): LazySdkClient<SQSClient, SqsCommand> {
  return new LazySdkClient('@aws-sdk/client-sqs', async () => new (await sqsSdk()).SQSClient({ region }));
}

/** Options of a {@link SqsDelayWaker}. */
export interface SqsDelayWakerOptions {
  /** The URL of the standard SQS queue that feeds the durable function (its event source). */
  queueUrl: string;
  /**
   * The SQS client: an `SQSClient`, or one built at its first call ({@link lazySqsClient}). The
   * SDK's command is loaded at the first wake-up, not at import.
   */
  client: SendsCommands<SqsCommand>;
  /** Default: the system clock. */
  clock?: Clock;
  /** How delays become whole seconds (see {@link DelayRounding}). Default `down`. */
  rounding?: DelayRounding;
}

/**
 * A {@link Waker} that sends each wake-up as an SQS message kept invisible until it is due
 * (`DelaySeconds`, see {@link delaySecondsFor}); Lambda's SQS event source then invokes the
 * function with it, within about a second of the due time. The message is a
 * {@link TimedWakeEvent}: it says when it is due, so an early one is recognised and re-armed.
 *
 * It has no `cancel`: SQS cannot withdraw a message before it is received. A wake-up no longer
 * needed arrives anyway and opens nothing (a run with nothing due, or held by a live invocation,
 * is left as it is), so it is harmless, like any duplicate.
 */
export class SqsDelayWaker implements Waker {
  readonly queueUrl: string;
  private readonly client: SendsCommands<SqsCommand>;
  private readonly clock: Clock;
  private readonly rounding: DelayRounding;

  constructor(options: SqsDelayWakerOptions) {
    if (typeof options.queueUrl !== 'string' || !/^https?:\/\/\S+$/.test(options.queueUrl)) {
      throw new TypeError(`queueUrl must be the URL of an SQS queue, got ${JSON.stringify(options.queueUrl)}`);
    }
    this.queueUrl = options.queueUrl;
    this.client = options.client;
    this.clock = options.clock ?? systemClock;
    this.rounding = options.rounding ?? 'down';
    if (!DELAY_ROUNDINGS.includes(this.rounding)) {
      throw new TypeError(`rounding must be ${DELAY_ROUNDINGS.join(' or ')}, got ${JSON.stringify(this.rounding)}`);
    }
  }

  /** Sends the wake-up, invisible for {@link delaySecondsFor} its due time. */
  async wakeAt(request: WakeRequest): Promise<void> {
    const { SendMessageCommand } = await sqsSdk();
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: JSON.stringify(timedWakeEvent(request)),
        DelaySeconds: delaySecondsFor(request.at, this.clock.now(), this.rounding),
      }),
    );
  }
}
