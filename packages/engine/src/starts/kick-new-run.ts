import type { Clock, Invoker, Waker } from '../ports';
import type { RunRecord } from '../run-record';
import { wakeEvent } from '../wake-event';

/** What {@link kickNewRun} reaches the world through. */
export interface KickDeps {
  /** Invokes the run's function now; undefined: the waker wakes it instead. */
  invoker?: Invoker | undefined;
  /** Wakes the run now when there is no invoker or the invoke fails. */
  waker: Waker;
  clock: Clock;
  /** Told of an invoke or wake-up that failed (the run is left to the reconciler). */
  report?: ((error: unknown) => void) | undefined;
}

/**
 * Sets a run that was never invoked in motion, once: through the invoker with its wake event, or,
 * without an invoker or when the invoke fails, by asking the waker to wake it now. When neither
 * works the run is still due from its creation, so the reconciler starts it. The one way every
 * start (the control API's, a trigger's, a schedule's) gets its run going.
 */
export async function kickNewRun(deps: KickDeps, run: RunRecord): Promise<void> {
  if (run.status !== 'RUNNING' || run.invocations > 0) return;
  const report = deps.report ?? (() => {});
  if (deps.invoker) {
    try {
      await deps.invoker.invoke(run.functionName, wakeEvent(run.runId));
      return;
    } catch (error) {
      report(error);
    }
  }
  try {
    await deps.waker.wakeAt({
      runId: run.runId,
      functionName: run.functionName,
      at: deps.clock.now(),
      reason: 'event',
    });
  } catch (error) {
    report(error);
  }
}
