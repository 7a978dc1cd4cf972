import { kickNewRun, type RunRecord, type StartRunRequest } from '@durable-lambda/engine';
import type { RouteDeps } from './deps';

/**
 * Gets a run going: the one place the control API starts a run and sets it in motion
 * (`POST /v1/runs` and Lambda's `Invoke` route). It starts the run, or finds the one its key
 * names, and kicks it when it was never invoked (new, or found again after its first kick failed):
 * through the invoker with its wake-up event, or, without an invoker or when the invoke fails, by
 * asking the waker to wake it now. When neither works the run is still created and due
 * (`nextWakeAt` is its creation), so its start is left to the reconciler: the request succeeded
 * and is answered so (a 5xx would invite a retry that starts a second run).
 *
 * Routes whose engine call changes a run that exists (retry, skip, wake now, a callback completed)
 * kick nothing themselves: the engine's write made the run due and asked its waker to wake it,
 * once (a second invoke would only find the run busy or nothing due, at the price of an invocation).
 */
export async function startRunGoing(
  deps: RouteDeps,
  request: StartRunRequest,
): Promise<{ run: RunRecord; created: boolean }> {
  const started = await deps.engine.startRun(request);
  await kick(deps, started.run);
  return started;
}

function kick(deps: RouteDeps, run: RunRecord): Promise<void> {
  return kickNewRun({ invoker: deps.invoker, waker: deps.engine.waker, clock: deps.clock, report: deps.report }, run);
}
