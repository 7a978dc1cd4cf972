import { LocalError } from '../local-error';

/**
 * The test driver stopped a run that could not finish: `run_stranded` (it is RUNNING, nothing is
 * queued to wake it, and the reconciler finds nothing to do) or `run_runaway` (it took more
 * invocations than allowed), or `run_stuck` (with real time in play, it would wait longer than
 * `maxRealWaitMs` for its next wake-up, or for the test to act). With faults, the message names
 * the seed and every fault injected, so the failure replays with the same `faults` options.
 */
export class TestRunStoppedError extends LocalError<'run_stranded' | 'run_runaway' | 'run_stuck'> {
  constructor(
    /** Stable code. */
    readonly code: 'run_stranded' | 'run_runaway' | 'run_stuck',
    /** The run under test. */
    readonly runId: string,
    message: string,
  ) {
    super(message);
    this.name = 'TestRunStoppedError';
  }
}
