import { setImmediate } from 'node:timers';
import type { RunRecord, Store } from '@durable-lambda/engine';
import { isInjectedFault, type TestDriver } from '@durable-lambda/local';
import type { Operator } from './operators';
import type { ReferenceWorkflow } from './workflows';

/** Reconciler passes given to runs that ended but are still due (a parent not yet told). */
const DRAIN_PASSES = 10;
/** Virtual time between those passes: past the driver's reconcile grace. */
const DRAIN_STEP_MS = 180_000;

/**
 * Runs a seed's world to its end: the main run (started as its operator says) until it ends, the
 * operator's retries of it and, in a `recreate` seed, its key started again after its retention;
 * then every other run of the world (a child a plain cancel left running) until it ends, and the
 * reconciler until no run is left due. Returns the main run's last record (its current execution).
 */
export async function driveWorld(
  driver: TestDriver,
  store: Store,
  workflow: ReferenceWorkflow,
  operator: Operator,
): Promise<RunRecord> {
  const start = () => driver.start(workflow.main, workflow.input, operator.startOptions);
  operator.main = await start();
  const runId = operator.main.runId;
  // The run id names the re-created run too: the driver follows whichever execution it holds.
  let main = await driver.runUntilDone(runId);
  for (let retries = 0; await operator.afterEnd(main, retries); retries++) {
    main = await driver.runUntilDone(runId);
  }
  if (operator.mode === 'recreate' && operator.tally.recreated === 0) {
    operator.main = main;
    await operator.recreateAfterEnd(start);
    main = await driver.runUntilDone(runId);
  }
  for (let pass = 0; pass < 3; pass++) {
    const running = (await runsOf(driver, store)).filter((r) => r.status === 'RUNNING');
    if (running.length === 0) break;
    for (const run of running) {
      // Read again: driving one run drives them all, and one that ended meanwhile may be past its
      // retention by now (gone, as it should be).
      if ((await store.getRun(run.runId))?.status === 'RUNNING') await driver.runUntilDone(run.runId);
    }
  }
  for (let pass = 0; pass < DRAIN_PASSES; pass++) {
    if (!(await runsOf(driver, store)).some((r) => r.dueAt !== undefined)) break;
    driver.clock.advanceBy(DRAIN_STEP_MS);
    await driver.engine.reconcile().catch((error: unknown) => {
      if (!isInjectedFault(error)) throw error;
    });
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return (await store.getRun(runId)) ?? main;
}

/** Every run of the world as stored now (runs gone after their retention left out). */
export async function runsOf(driver: TestDriver, store: Store): Promise<RunRecord[]> {
  const runs = await Promise.all(driver.runIds().map((id) => store.getRun(id)));
  return runs.filter((r): r is RunRecord => r !== undefined);
}
