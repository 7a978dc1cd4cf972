import * as timers from 'node:timers';
import type { VirtualClock } from '../virtual-clock';
import type { Activity } from './activity';
import { TestRunStoppedError } from './run-errors';

// Taken at load, so a test that fakes timers later cannot stall the guard.
const { setTimeout: realSetTimeout, clearTimeout: realClearTimeout } = timers;

/** Real time a run may wait on one thing before the test runner reports it stuck (default). */
export const DEFAULT_MAX_REAL_WAIT_MS = 60_000;

function stuck(runId: string, why: string): TestRunStoppedError {
  return new TestRunStoppedError('run_stuck', runId, `run ${runId} ${why}; stopped instead of hanging`);
}

/**
 * Sleeps in real time until `clock` reads `at` (or outside activity cuts the sleep short). A
 * run would otherwise hang silently, so: a wake-up more than `limitMs` away that nothing but
 * time can bring (a wait or backoff with `skipTime: false`) fails at once; one the test is
 * expected to bring sooner (`held`: a callback deadline it holds) fails once `limitMs` passed
 * with no sign of the test.
 */
export async function sleepOrStop(
  activity: Activity,
  clock: VirtualClock,
  runId: string,
  at: number,
  limitMs: number,
  held: boolean,
): Promise<void> {
  const ahead = at - clock.now();
  if (!held && ahead > limitMs) {
    throw stuck(
      runId,
      `would wait ${Math.round(ahead / 1000)} s of real time for its next wake-up (beyond maxRealWaitMs, ${limitMs} ms): ` +
        'with skipTime: false every wait and backoff takes real time; skip time, or raise maxRealWaitMs',
    );
  }
  const since = activity.count;
  const until = Math.min(at, clock.now() + limitMs);
  await activity.sleepUntil(clock, until);
  // Stuck only when the limit cut the sleep short: a sleep to `at` may end a moment early (a timer
  // fires within its millisecond), and the caller then sleeps the rest.
  if (until < at && activity.count === since && clock.now() < at) {
    throw stuck(
      runId,
      `waited ${limitMs} ms of real time (maxRealWaitMs) for the test to heartbeat or complete a callback it holds, and nothing came`,
    );
  }
}

/**
 * Waits for outside activity (the test completing a callback) when nothing is due; fails once
 * `limitMs` of real time passed without any.
 */
export async function waitOrStop(activity: Activity, runId: string, limitMs: number): Promise<void> {
  let timer: ReturnType<typeof realSetTimeout> | undefined;
  const came = await Promise.race([
    activity.next().then(() => true),
    new Promise<boolean>((resolve) => {
      timer = realSetTimeout(() => resolve(false), limitMs);
    }),
  ]);
  realClearTimeout(timer);
  if (!came) {
    throw stuck(
      runId,
      `waits for an outside event (a callback's completion, nothing else is due) and none came in ${limitMs} ms of real time (maxRealWaitMs)`,
    );
  }
}
