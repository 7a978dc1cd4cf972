/**
 * Modelled wake-up lateness (seeded, no I/O): how late a wait resumes under each delivery
 * mechanism, from each service's documented behaviour. Assumptions (docs/performance.md cites them):
 *
 * - EventBridge Scheduler, flexible time window OFF: "All schedule types on EventBridge Scheduler
 *   invoke their targets with 60 second precision ... set to run at 1:00, it will invoke the target
 *   API between 1:00:00 and 1:00:59" (Schedule types, Scheduler User Guide): modelled as a fire
 *   uniformly within the 60 s after the scheduled time (the pessimistic reading the issue takes:
 *   never early, up to a minute late).
 * - SQS message timer: DelaySeconds is an integer of 0..900 s; the message is invisible until
 *   then, and Lambda's SQS event source (long polling) hands it on: a poll-and-invoke latency,
 *   lognormal with median 100 ms and p99 ≈ 1 s (an assumption: AWS publishes no latency figure
 *   for the event source mapping).
 * - In-process sleep (waits ≤ inProcessWaitMs, 5 s by default): lateness ~ 0 (timer jitter).
 *
 * What ships (`OnTimeWaker`, `WakeQueueReceiver` in packages/aws), modelled as `built`:
 * - waits ≤ inProcessWaitMs: in-process sleep;
 * - waits ≤ 15 min: the closing invocation sends the message a little after the wait started (its
 *   last writes: 10-100 ms, uniform), DelaySeconds = the rest rounded down to the second (the
 *   default `DelayRounding`; `nearest` is modelled too); the receiving invocation holds a message
 *   found early (≤ 2 s) until due, so it is never early;
 * - longer: a schedule at (due − 10 min, rounded up to the second), late by the Scheduler model;
 *   its delivery computes what is left and sends one SQS message for it (rounded the same way),
 *   delivered and held as above. A Scheduler fire later than 10 min (retries of a
 *   throttled delivery) is not modelled.
 */

// The fault injector's PRNG (mulberry32): the same seed prints the same figures on every run.
import { mulberry32 } from '../../packages/local/src/faults/seeded-random';

/**
 * The mechanisms modelled: Scheduler alone (the reference), what ships (`built`: delays rounded
 * down), and what ships with `DURABLE_WAKE_DELAY_ROUNDING=nearest`.
 */
export type WakeMechanism = 'scheduler' | 'built' | 'built-nearest';

const SQS_MAX_DELAY_S = 900;
/** `SCHEDULER_HOP_LEAD_MS` of packages/aws/src/on-time-waker.ts, in seconds. */
const HOP_LEAD_S = 600;
/** The SDK's default `inProcessWaitMs`, in seconds. */
const IN_PROCESS_S = 5;

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

/** When an SQS message sent at `sentAt` for `due` is handled: visible, polled, held until due if early. */
function sqsHandled(sentAt: number, due: number, random: () => number, nearest: boolean): number {
  const seconds = due - sentAt;
  const delay = Math.min(SQS_MAX_DELAY_S, Math.max(0, nearest ? Math.round(seconds) : Math.floor(seconds)));
  const received = sentAt + delay + sqsPollLatency(random);
  return Math.max(received, due);
}

/** Seconds late a wake-up after a wait of `waitS` seconds resumes under `mechanism`. */
export function lateness(mechanism: WakeMechanism, waitS: number, random: () => number): number {
  // The wait starts at an arbitrary phase (sub-second part matters to SQS's whole seconds).
  const start = random() * 3600;
  const due = start + waitS;
  if (mechanism === 'scheduler') return schedulerLateness(random);
  if (waitS <= IN_PROCESS_S) return 0;
  if (waitS <= SQS_MAX_DELAY_S) {
    const sentAt = start + 0.01 + random() * 0.09;
    return sqsHandled(sentAt, due, random, mechanism === 'built-nearest') - due;
  }
  const scheduled = Math.ceil(due - HOP_LEAD_S);
  const hop = scheduled + schedulerLateness(random);
  if (hop >= due) return hop - due;
  return sqsHandled(hop, due, random, mechanism === 'built-nearest') - due;
}

/** p50, p99 and max lateness (seconds) of `samples` seeded draws. */
export function latenessStats(
  mechanism: WakeMechanism,
  waitS: number,
  samples: number,
  seed: number,
): { p50: number; p99: number; max: number } {
  const random = mulberry32(seed);
  const xs = Array.from({ length: samples }, () => lateness(mechanism, waitS, random)).sort((a, b) => a - b);
  const at = (q: number) => xs[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
  return { p50: at(0.5), p99: at(0.99), max: xs[xs.length - 1]! };
}
