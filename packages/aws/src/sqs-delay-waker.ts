import type { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { type Clock, systemClock, type WakeRequest, type Waker } from '@durable-lambda/engine';
import { AwsSdkLoadError, LazySdkClient, type SendsCommands } from './lazy-aws-sdk-clients';
import { timedWakeEvent } from './wake-queue-events';

/** The longest delay SQS gives one message (`DelaySeconds` 0-900: 15 minutes). */
export const SQS_MAX_DELAY_SECONDS = 900;

/**
 * The `DelaySeconds` of a wake-up due at `at` sent at `now`: the delay rounded to the nearest
 * whole second (SQS counts whole seconds), at most {@link SQS_MAX_DELAY_SECONDS}. Rounding to the
 * nearest keeps a message within half a second of its due time; one that becomes visible early
 * is held in-process for the rest (or re-armed, past 15 minutes) by the receiving invocation,
 * so a wake-up is never handled before it is due.
 */
export function delaySecondsFor(at: number, now: number): number {
  return Math.min(SQS_MAX_DELAY_SECONDS, Math.max(0, Math.round((at - now) / 1000)));
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

  constructor(options: SqsDelayWakerOptions) {
    if (typeof options.queueUrl !== 'string' || !/^https?:\/\/\S+$/.test(options.queueUrl)) {
      throw new TypeError(`queueUrl must be the URL of an SQS queue, got ${JSON.stringify(options.queueUrl)}`);
    }
    this.queueUrl = options.queueUrl;
    this.client = options.client;
    this.clock = options.clock ?? systemClock;
  }

  /** Sends the wake-up, invisible for {@link delaySecondsFor} its due time. */
  async wakeAt(request: WakeRequest): Promise<void> {
    const { SendMessageCommand } = await sqsSdk();
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: JSON.stringify(timedWakeEvent(request)),
        DelaySeconds: delaySecondsFor(request.at, this.clock.now()),
      }),
    );
  }
}
