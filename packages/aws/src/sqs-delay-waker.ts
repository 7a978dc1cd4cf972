import type { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { type Clock, systemClock, type WakeRequest, type Waker } from '@durable-lambda/engine';
import { countConsumed } from './invocation-meter';
import { AwsSdkLoadError, importAwsSdk, LazySdkClient, type SendsCommands } from './lazy-aws-sdk-clients';
import { timedWakeEvent } from './wake-queue-events';
import { QUEUE_WAKE_UP_COST } from './wake-up-cost';

/** The longest delay SQS gives one message (`DelaySeconds` 0-900: 15 minutes). */
export const SQS_MAX_DELAY_SECONDS = 900;

/**
 * How a wake-up's delay becomes the whole seconds SQS counts. A message visible early is held by
 * its receiving invocation until due (billed Lambda time); one visible late adds Lambda's poll
 * latency on top. Modelled in bench/figures/wake-lateness-model.ts (docs/performance.md):
 *
 * - `adaptive` (default): a wake-up sent as its wait starts (a whole number of seconds plus the few
 *   ms its invocation took to close before it is due) is rounded down, as `down`; one sent at a
 *   random point of the second (the final hop of a wait beyond 15 minutes: Scheduler fires
 *   anywhere in its minute) is rounded down only when that leaves at most
 *   {@link HOP_HOLD_BUDGET_MS} to hold, up otherwise. Modelled p99 0.07 s late within 15 minutes
 *   and 0.94 s beyond, for ~0.16 s of hold per hop wake-up instead of ~0.37 s;
 * - `down`: always down: the least lateness (p99 0.07 s / 0.64 s), the most hold (~0.79 s per
 *   wake-up within 15 minutes, ~0.37 s beyond);
 * - `nearest`: within half a second either side: the least hold (none within 15 minutes, ~0.07 s
 *   beyond), p99 ~1.07-1.13 s late (the poll latency comes on top of the rounding).
 */
export type DelayRounding = 'adaptive' | 'down' | 'nearest';

/** Every {@link DelayRounding}. */
export const DELAY_ROUNDINGS: readonly DelayRounding[] = ['adaptive', 'down', 'nearest'];

/**
 * Where a wake-up's send falls against the sub-second phase of its due time: `fixed`, sent as its
 * wait starts (the closing invocation: due a whole number of seconds less a few ms later, so a
 * delay rounded up would make it late by the poll latency every time); `random`, sent at a point
 * unrelated to it (a Scheduler hop's delivery).
 */
export type SendPhase = 'fixed' | 'random';

/**
 * The most a wake-up sent at a random phase is left to hold under `adaptive` rounding: the
 * smallest budget, in tenths of a second, whose modelled p99 lateness stays within 1 s (0.6 s
 * gives ~1.03 s; the bench's lateness section checks the choice on every run).
 */
export const HOP_HOLD_BUDGET_MS = 700;

/**
 * The `DelaySeconds` of a wake-up due at `at` sent at `now`, rounded as `rounding` says for a send
 * at `phase`, within 0 to {@link SQS_MAX_DELAY_SECONDS}. A message visible early is held in-process
 * for the rest (or re-armed, past 15 minutes) by the receiving invocation, so a wake-up is never
 * handled before it is due.
 */
export function delaySecondsFor(
  at: number,
  now: number,
  rounding: DelayRounding = 'adaptive',
  phase: SendPhase = 'fixed',
  holdBudgetMs = HOP_HOLD_BUDGET_MS,
): number {
  const seconds = (at - now) / 1000;
  const down = Math.floor(seconds);
  let whole = down;
  if (rounding === 'nearest') whole = Math.round(seconds);
  // In ms, so a remainder of exactly the budget is held, not rounded up by a float's last digit.
  else if (rounding === 'adaptive' && phase === 'random' && at - now - down * 1000 > holdBudgetMs) whole = down + 1;
  return Math.min(SQS_MAX_DELAY_SECONDS, Math.max(0, whole));
}

/** What a sender knows about one wake-up beyond its request. */
export interface WakeHint {
  /** Default `fixed`. */
  phase?: SendPhase;
}

/** The command the SQS delay waker sends. */
export type SqsCommand = SendMessageCommand;

type SqsSdk = typeof import('@aws-sdk/client-sqs');
let loading: Promise<SqsSdk> | undefined;

/** `@aws-sdk/client-sqs`, loaded on first call (once per process; a failed load is tried again). */
export function sqsSdk(): Promise<SqsSdk> {
  loading ??= importAwsSdk<SqsSdk>('@aws-sdk/client-sqs').catch((cause: unknown) => {
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
  /** How delays become whole seconds (see {@link DelayRounding}). Default `adaptive`. */
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
    this.rounding = options.rounding ?? 'adaptive';
    if (!DELAY_ROUNDINGS.includes(this.rounding)) {
      throw new TypeError(`rounding must be ${DELAY_ROUNDINGS.join(' or ')}, got ${JSON.stringify(this.rounding)}`);
    }
  }

  /** Sends the wake-up, invisible for {@link delaySecondsFor} its due time (`hint`: where the send falls). */
  async wakeAt(request: WakeRequest, hint: WakeHint = {}): Promise<void> {
    const { SendMessageCommand } = await sqsSdk();
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: JSON.stringify(timedWakeEvent(request)),
        DelaySeconds: delaySecondsFor(request.at, this.clock.now(), this.rounding, hint.phase),
      }),
    );
    countConsumed(QUEUE_WAKE_UP_COST); // run meter hook: the send, receive and delete (wake-up-cost.ts)
  }
}
