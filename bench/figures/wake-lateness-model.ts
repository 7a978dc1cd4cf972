/**
 * Modelled wake-up lateness and hold (seeded, no I/O): how late a wait resumes under each delivery
 * mechanism, and how long the receiving invocation holds a message that came early (billed Lambda
 * time), from each service's documented behaviour. Assumptions (docs/performance.md cites them):
 *
 * - EventBridge Scheduler, flexible time window OFF: "All schedule types on EventBridge Scheduler
 *   invoke their targets with 60 second precision ... set to run at 1:00, it will invoke the target
 *   API between 1:00:00 and 1:00:59" (Schedule types, Scheduler User Guide): modelled as a fire
 *   uniformly within the 60 s after the scheduled time (the pessimistic reading the issue takes:
 *   never early, up to a minute late).
 * - SQS message timer: DelaySeconds is an integer of 0..900 s; the message is invisible until
 *   then, and Lambda's SQS event source (long polling) hands it on: a poll-and-invoke latency,
 *   lognormal with median 100 ms and p99 1 s. The median is what the one public measurement found
 *   (github.com/lukehoban/lambdaperf: ~125 ms from one SQS-triggered invocation to the next,
 *   its own SendMessage and a DynamoDB write included, flat over 500 events but for one stall of
 *   a few seconds); the p99 is an assumption, pessimistic on purpose: AWS publishes no latency
 *   figure for the event source mapping.
 * - In-process sleep (waits ≤ inProcessWaitMs, 5 s by default): lateness ~ 0 (timer jitter).
 *
 * What ships (`OnTimeWaker`, `SqsDelayWaker`, `WakeQueueReceiver` in packages/aws), modelled with
 * the production `delaySecondsFor`, so a change of rounding there moves these figures:
 * - waits ≤ inProcessWaitMs: in-process sleep;
 * - waits ≤ 15 min: the closing invocation sends the message a little after the wait started (its
 *   last writes: 10-100 ms, uniform), a fixed-phase send; the receiving invocation holds a message
 *   found early (≤ 2 s) until due, so it is never early;
 * - longer: a schedule at (due − 10 min, rounded up to the second), late by the Scheduler model;
 *   its delivery computes what is left and sends one SQS message for it (a random-phase send),
 *   delivered and held as above. A Scheduler fire later than 10 min (retries of a throttled
 *   delivery) is not modelled. Cold starts are not modelled on either side (they delay any
 *   mechanism's resume alike, and shorten a hold).
 */
import {
  type DelayRounding,
  delaySecondsFor,
  HOP_HOLD_BUDGET_MS,
  type SendPhase,
} from '../../packages/aws/src/sqs-delay-waker';
// The fault injector's PRNG (mulberry32): the same seed prints the same figures on every run.
import { mulberry32 } from '../../packages/local/src/faults/seeded-random';

/** Scheduler alone (the reference), or what ships with one of the SQS delay roundings. */
export type WakeMechanism = 'scheduler' | DelayRounding;

/** `SCHEDULER_HOP_LEAD_MS` of packages/aws/src/on-time-waker.ts, in seconds. */
const HOP_LEAD_S = 600;
/** The SDK's default `inProcessWaitMs`, in seconds. */
const IN_PROCESS_S = 5;
const SQS_MAX_DELAY_S = 900;

/** Lognormal poll-and-invoke latency of Lambda's SQS event source, seconds (median 0.1 s, p99 ~1 s). */
function sqsPollLatency(random: () => number): number {
  const u1 = Math.max(random(), 1e-12);
  const u2 = random();
  const z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  // ln(1 s / 0.1 s) / 2.326 (z of p99) ≈ 0.99
  return 0.1 * Math.exp(0.99 * z);
}

/** Seconds late one Scheduler fire is: uniform within the minute after its scheduled time. */
function schedulerLateness(random: () => number): number {
  return random() * 60;
}

/** One modelled wake-up: seconds late, and seconds its receiving invocation held it (billed). */
export interface WakeDraw {
  late: number;
  hold: number;
}

/** An SQS message sent at `sentAt` for `due`: visible after its whole-second delay, polled, held until due if early. */
function sqsDelivered(
  sentAt: number,
  due: number,
  random: () => number,
  rounding: DelayRounding,
  phase: SendPhase,
  holdBudgetMs: number,
): WakeDraw {
  const delay = delaySecondsFor(due * 1000, sentAt * 1000, rounding, phase, holdBudgetMs);
  const received = sentAt + delay + sqsPollLatency(random);
  return { late: Math.max(0, received - due), hold: Math.max(0, due - received) };
}

/**
 * One wake-up after a wait of `waitS` seconds under `mechanism`. `holdBudgetMs`: the adaptive
 * rounding's budget for a random-phase send (the shipped one by default; the bench tries others).
 */
export function draw(
  mechanism: WakeMechanism,
  waitS: number,
  random: () => number,
  holdBudgetMs = HOP_HOLD_BUDGET_MS,
): WakeDraw {
  // The wait starts at an arbitrary phase (sub-second part matters to SQS's whole seconds).
  const start = random() * 3600;
  const due = start + waitS;
  if (mechanism === 'scheduler') return { late: schedulerLateness(random), hold: 0 };
  if (waitS <= IN_PROCESS_S) return { late: 0, hold: 0 };
  if (waitS <= SQS_MAX_DELAY_S) {
    const sentAt = start + 0.01 + random() * 0.09;
    return sqsDelivered(sentAt, due, random, mechanism, 'fixed', holdBudgetMs);
  }
  const scheduled = Math.ceil(due - HOP_LEAD_S);
  const hop = scheduled + schedulerLateness(random);
  if (hop >= due) return { late: hop - due, hold: 0 };
  return sqsDelivered(hop, due, random, mechanism, 'random', holdBudgetMs);
}

/** Seconds late a wake-up after a wait of `waitS` seconds resumes under `mechanism`. */
export const lateness = (mechanism: WakeMechanism, waitS: number, random: () => number): number =>
  draw(mechanism, waitS, random).late;

/** What `samples` seeded draws add up to: lateness p50, p99 and max, and the mean hold (seconds). */
export interface WakeStats {
  p50: number;
  p99: number;
  max: number;
  meanHold: number;
}

/** p50, p99 and max lateness and the mean hold (seconds) of `samples` seeded draws. */
export function latenessStats(
  mechanism: WakeMechanism,
  waitS: number,
  samples: number,
  seed: number,
  holdBudgetMs = HOP_HOLD_BUDGET_MS,
): WakeStats {
  const random = mulberry32(seed);
  const draws = Array.from({ length: samples }, () => draw(mechanism, waitS, random, holdBudgetMs));
  const late = draws.map((d) => d.late).sort((a, b) => a - b);
  const at = (q: number) => late[Math.min(late.length - 1, Math.floor(q * late.length))]!;
  const meanHold = draws.reduce((sum, d) => sum + d.hold, 0) / samples;
  return { p50: at(0.5), p99: at(0.99), max: late[late.length - 1]!, meanHold };
}

/** The waits the lateness target covers (30 s to a year) and the rows print, seconds. */
export const MODELLED_WAITS: ReadonlyArray<readonly [string, number]> = [
  ['1 s', 1],
  ['30 s', 30],
  ['5 min', 300],
  ['15 min', 900],
  ['1 h', 3600],
  ['1 day', 86_400],
  ['1 year', 365 * 86_400],
];

/** The seed every modelled figure uses. */
export const MODEL_SEED = 14;

/**
 * The adaptive rounding's hold budget that holds least while every wait from 30 s to a year
 * stays within 1 s at p99, tried in tenths of a second (what `HOP_HOLD_BUDGET_MS` should be):
 * returns the budget and, per budget tried, its worst p99 and its mean hold at a 1-hour wait.
 */
export function cheapestHoldBudget(samples: number): {
  budgetMs: number | undefined;
  tried: Array<{ budgetMs: number; worstP99: number; holdAt1h: number }>;
} {
  const tried = [];
  for (let budgetMs = 0; budgetMs <= 1000; budgetMs += 100) {
    const stats = new Map(
      MODELLED_WAITS.filter(([, s]) => s >= 30).map(([, s]) => [
        s,
        latenessStats('adaptive', s, samples, MODEL_SEED, budgetMs),
      ]),
    );
    const worstP99 = Math.max(...[...stats.values()].map((x) => x.p99));
    tried.push({ budgetMs, worstP99, holdAt1h: stats.get(3600)?.meanHold ?? Number.NaN });
  }
  const fitting = tried.filter((t) => t.worstP99 <= 1);
  const best = fitting.sort((a, b) => a.holdAt1h - b.holdAt1h)[0];
  return { budgetMs: best?.budgetMs, tried: tried.sort((a, b) => a.budgetMs - b.budgetMs) };
}
