import { type Clock, systemClock, type WakeRequest, type Waker } from '@durable-lambda/engine';
import type { SchedulerWaker } from './scheduler-waker';
import { SQS_MAX_DELAY_SECONDS, type SqsDelayWaker, type WakeHint } from './sqs-delay-waker';
import type { WakeRoute, WakeRouter } from './wake-up-cost';

/**
 * What stands behind an invocation's lease (the engine asks for a `lease` wake-up at the lease's
 * end, in case the invocation dies without closing):
 *
 * - `reconciler` (default): nothing is sent. Taking the lease put the run in the table's due
 *   index at the lease's end, and the reconciler (every minute, 2 minutes' grace) wakes it from
 *   there: a crashed invocation's run resumes within about 3 minutes of its lease's end, at no
 *   per-invocation cost (no Scheduler call against the account's CreateSchedule quota).
 * - `scheduler`: a one-time schedule at the lease's end, deleted at a clean close (two Scheduler
 *   calls per invocation): the run resumes within a minute of the lease's end.
 */
export type LeaseWakeUp = 'reconciler' | 'scheduler';

/** The values `DURABLE_LEASE_WAKEUP` accepts. */
export const LEASE_WAKE_UPS: readonly LeaseWakeUp[] = ['reconciler', 'scheduler'];

/**
 * How far ahead of its due time a wake-up beyond SQS's 15 minutes is scheduled: EventBridge
 * Scheduler fires within the minute after the scheduled time (60 s precision) and retries a
 * throttled delivery; the margin covers both and Lambda's asynchronous queue, and what is left
 * (at most this long, under SQS's 15 minutes) is one final SQS message timed to the second.
 */
export const SCHEDULER_HOP_LEAD_MS = 10 * 60_000;

/** Options of an {@link OnTimeWaker}. */
export interface OnTimeWakerOptions {
  /** Immediate wake-ups (through the invoker), and schedules beyond the queue's reach. */
  scheduler: SchedulerWaker;
  /** The SQS delay queue feeding this function; absent: every wake-up goes to `scheduler`. */
  queue?: SqsDelayWaker;
  /**
   * Whether the queue feeds `functionName` (a run's recorded name, qualifier included): it feeds
   * only the function that owns it, so other functions' wake-ups go to `scheduler`.
   */
  feeds(functionName: string): boolean;
  /** Default `reconciler`. */
  lease?: LeaseWakeUp;
  /** Wake-ups due within this many ms go through the scheduler waker's immediate path. Default 2000. */
  immediateWithinMs?: number;
  /** Default {@link SCHEDULER_HOP_LEAD_MS}. */
  hopLeadMs?: number;
  /** Default: the system clock. */
  clock?: Clock;
}

/**
 * The production backend's {@link Waker}: every wake-up by the mechanism that keeps it on time.
 *
 * - due within `immediateWithinMs`: an asynchronous invoke after a short in-process sleep;
 * - due within SQS's 15 minutes (a wait, a retry backoff, a callback timeout): an SQS message with
 *   `DelaySeconds`, delivered by Lambda's event source within about a second of its due time;
 * - later: an EventBridge Scheduler schedule {@link SCHEDULER_HOP_LEAD_MS} ahead of the due time
 *   (Scheduler has minute precision), whose delivery the function turns into a final SQS message
 *   for the rest;
 * - `lease` wake-ups: as {@link LeaseWakeUp} says (by default none: the reconciler covers them).
 *
 * Without a queue (the `DurableFunction`'s `onTimeWakeUps: false`, or no `DURABLE_WAKE_QUEUE_URL`)
 * every wake-up is the scheduler waker's, as before the queue existed. Whatever is lost on the way
 * (a failed send, a message dead-lettered) leaves the run due in the store: the reconciler wakes it.
 */
export class OnTimeWaker implements Waker, WakeRouter {
  private readonly scheduler: SchedulerWaker;
  private readonly queue: SqsDelayWaker | undefined;
  private readonly feeds: (functionName: string) => boolean;
  private readonly lease: LeaseWakeUp;
  private readonly immediateWithinMs: number;
  private readonly hopLeadMs: number;
  private readonly clock: Clock;

  constructor(options: OnTimeWakerOptions) {
    const lease = options.lease ?? 'reconciler';
    if (!LEASE_WAKE_UPS.includes(lease)) {
      throw new TypeError(`lease must be one of ${LEASE_WAKE_UPS.join(', ')}, got ${JSON.stringify(lease)}`);
    }
    const hopLeadMs = options.hopLeadMs ?? SCHEDULER_HOP_LEAD_MS;
    if (!(hopLeadMs >= 60_000 && hopLeadMs < SQS_MAX_DELAY_SECONDS * 1000)) {
      throw new TypeError(`hopLeadMs must cover Scheduler's minute and fit one SQS delay, got ${hopLeadMs}`);
    }
    this.scheduler = options.scheduler;
    this.queue = options.queue;
    this.feeds = (functionName) => options.feeds(functionName);
    this.lease = lease;
    this.immediateWithinMs = options.immediateWithinMs ?? 2_000;
    this.hopLeadMs = hopLeadMs;
    this.clock = options.clock ?? systemClock;
  }

  /** Which mechanism a wake-up asked for now goes by. */
  route(request: WakeRequest): WakeRoute {
    if (request.reason === 'lease') return this.lease === 'reconciler' ? 'none' : 'scheduler';
    const delay = request.at - this.clock.now();
    if (delay <= this.immediateWithinMs) return 'immediate';
    if (!this.queue || !this.feeds(request.functionName)) return 'scheduler';
    // Half a second over 15 minutes still rounds to 900 whole seconds.
    return delay < SQS_MAX_DELAY_SECONDS * 1000 + 500 ? 'queue' : 'scheduler+hop';
  }

  /**
   * Sends the wake-up by its {@link route}. `hint` says where the send falls against the due
   * time's second (the receiver of a Scheduler hop says `random`); it decides an SQS delay's
   * rounding (see `DelayRounding`).
   */
  async wakeAt(request: WakeRequest, hint: WakeHint = {}): Promise<void> {
    const route = this.route(request);
    if (route === 'none') return;
    if (route === 'queue') return this.queue?.wakeAt(request, hint);
    if (route === 'scheduler+hop') return this.scheduler.wakeAt(request, { leadMs: this.hopLeadMs });
    return this.scheduler.wakeAt(request);
  }

  /**
   * Withdraws a wake-up: deletes its schedule, if it became one. A `lease` wake-up the reconciler
   * covers was never sent; an SQS message cannot be withdrawn, and arrives to find nothing due.
   */
  async cancel(request: WakeRequest): Promise<void> {
    if (request.reason === 'lease' && this.lease === 'reconciler') return;
    // Whichever way it went when asked for, a schedule is the only kind that can be withdrawn (a
    // schedule that is not there counts as deleted).
    await this.scheduler.cancel(request);
  }
}
