/**
 * Saga seeds: the chaos world for issue 27's compensations. A seed runs one saga workflow
 * (`saga-workflow.ts`, its variant by the seed) under the suites' random faults of every kind
 * (kills before and after steps and in checkpoints, lost store responses, races, late, doubled
 * and dropped wake-ups and events, doubled callbacks, throttled wakers and invokers), the outside
 * completing its callback; then the invariants every run keeps (`checkSteps`, the world's write
 * log, every run ended) and the saga's own (`saga-invariants.ts`). One seed in five, an operator
 * cancels the run (`sagaModeFor`); the other operator actions (retry, skip) are not mixed in.
 */
import { setImmediate } from 'node:timers';
import { MemoryStore, type Store } from '@durable-lambda/engine';
import {
  FAULT_KINDS,
  type FaultKind,
  type FaultOptions,
  isInjectedFault,
  TestDriver,
  type VirtualClock,
} from '@durable-lambda/local';
import { REFUSED_COMPLETION, type SeedOutcome, type StoreFactory } from './harness';
import { checkSteps } from './invariants';
import { driveWorld, runsOf } from './operated-world';
import { Operator, type OperatorMode } from './operators';
import { OutsideWorld } from './outside-world';
import { checkSaga, type SagaTally } from './saga-invariants';
import { type SagaVariant, type SagaWorkflow, sagaWorkflow } from './saga-workflow';
import { type LoggedWrite, loggedStore, WorldOrder } from './store-log';
import { checkAllEnded, checkWorldLog } from './world-invariants';

const START = Date.UTC(2030, 0, 1);
const DAY = 86_400_000;
const MAX_INVOCATIONS = 1_000;
/** Invocations allowed per injected fault, above twice the fault-free count: more is a loop. */
const INVOCATIONS_PER_FAULT = 6;
const VARIANTS: readonly SagaVariant[] = ['throw', 'compensate'];

/** Fault-free invocation counts per variant and store kind. */
const baselines = new Map<string, number>();

/**
 * What the operator does in a saga seed: nothing, or (one seed in five) cancels the run from
 * inside one of its first ten step bodies (half of those seeds: of its first ten undo bodies, so
 * the cancel lands mid-round, or never when the run has fewer).
 */
export function sagaModeFor(seed: number): Extract<OperatorMode, 'plain' | 'cancel'> {
  return seed % 5 === 0 ? 'cancel' : 'plain';
}

/** The variant a saga seed runs. */
export function sagaVariantFor(seed: number): SagaVariant {
  return VARIANTS[seed % VARIANTS.length] as SagaVariant;
}

function makeRun(
  seed: number,
  store: StoreFactory | undefined,
  faults: FaultOptions,
  logged?: { order: WorldOrder; log: LoggedWrite[] },
) {
  let driver: TestDriver | undefined;
  let built: Store | undefined;
  const completionErrors: string[] = [];
  const world = new OutsideWorld(
    () => driver?.clock.now() ?? 0,
    (callback) => {
      // The outside answers a moment later, from outside any invocation.
      setImmediate(() => {
        driver?.sendCallbackSuccess(callback.callbackId, callback.payload).catch((error: unknown) => {
          // A cancelled run refuses its callbacks.
          if (sagaModeFor(seed) === 'cancel' && REFUSED_COMPLETION.test(String(error))) return;
          completionErrors.push(`completing callback ${callback.callbackId} failed: ${String(error)}`);
        });
      });
    },
    logged?.order,
  );
  const workflow = sagaWorkflow(world, seed, sagaVariantFor(seed));
  driver = new TestDriver(workflow.functions, {
    // A stretch of time of the seed's own, apart from the reference and flow seeds' days.
    startTime: START + (seed % 10_000) * 30 * DAY + 20 * DAY,
    maxInvocations: MAX_INVOCATIONS,
    faults,
    store: (clock: VirtualClock) => {
      const inner = store ? store(clock) : new MemoryStore(clock);
      built = logged ? loggedStore(inner, logged.order, logged.log) : inner;
      return built;
    },
  });
  return { driver, world, workflow, store: built ?? driver.store, completionErrors };
}

async function baselineFor(seed: number, store: StoreFactory | undefined, label: string): Promise<number> {
  const id = `${label}:${sagaVariantFor(seed)}`;
  const known = baselines.get(id);
  if (known !== undefined) return known;
  // Its own seed (same variant), so its run never shares an id with a seed's run on one table.
  const own = seed + VARIANTS.length * 1_000_000;
  const { driver, workflow } = makeRun(own, store, { seed: own, defaultProbability: 0 });
  const started = await driver.start(workflow.main, workflow.input);
  await driver.runUntilDone(started.runId);
  let n = 0;
  for (const list of driver.invocations.values()) n += list.length;
  baselines.set(id, n);
  return n;
}

/** Runs one saga seed; see the file's comment. */
export async function runSagaSeed(
  seed: number,
  options: { store?: StoreFactory; faults?: Omit<FaultOptions, 'seed'>; storeLabel: string },
): Promise<SeedOutcome & { saga: SagaTally }> {
  const baseline = await baselineFor(seed, options.store, options.storeLabel);
  const order = new WorldOrder();
  const log: LoggedWrite[] = [];
  const { driver, world, workflow, store, completionErrors } = makeRun(
    seed,
    options.store,
    { seed, ...(options.faults ?? {}) },
    { order, log },
  );
  const mode = sagaModeFor(seed);
  const operator = new Operator(seed, mode, driver, store, workflow.input, `saga:${seed}`, workflow.name);
  // Half the cancel seeds count only the undos' executions, so the cancel lands mid-round.
  const midRound = mode === 'cancel' && Math.floor(seed / 5) % 2 === 0;
  world.hook = async (execution) => {
    if (midRound && !execution.step.startsWith('undo-')) return;
    await operator.during(execution);
  };
  let violations: string[] = [];
  let tally: SagaTally = {
    rounds: 0,
    compensations: 0,
    undoExecutions: 0,
    undoRepeats: 0,
    retriedCompensations: 0,
    cancelled: 0,
    cancelledInRound: 0,
  };
  let ended = 'none';
  try {
    const main = await driveWorld(driver, store, workflow as SagaWorkflow, operator);
    ended = main.status;
    for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
    const saga = checkSaga(workflow, main, await driver.engine.getOperations(main.runId), world, operator.cancelled);
    tally = saga.tally;
    let invocations = 0;
    for (const list of driver.invocations.values()) invocations += list.length;
    // A cancel may leave the invoked child to run on: its invocations count once more.
    const allowed = 2 * baseline * (mode === 'plain' ? 1 : 2) + INVOCATIONS_PER_FAULT * driver.faults.length;
    violations = [
      ...completionErrors,
      ...saga.violations,
      ...(await checkSteps(driver, world, mode !== 'plain')),
      ...checkWorldLog(log, world.executions),
      ...checkAllEnded(await runsOf(driver, store)),
      ...(invocations > allowed
        ? [`took ${invocations} invocations (${baseline} without faults, ${driver.faults.length} faults): a loop`]
        : []),
    ];
  } catch (error) {
    violations = [`the run did not finish: ${error instanceof Error ? error.message : String(error)}`];
  }
  let invocations = 0;
  for (const list of driver.invocations.values()) invocations += list.length;
  const counts = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>;
  for (const f of driver.faults) counts[f.kind] += 1;
  return {
    seed,
    workflow: workflow.name,
    mode,
    ended,
    violations,
    faults: counts,
    invocations,
    reconcilePasses: driver.reconcileStats.passes,
    reconcileWoken: driver.reconcileStats.woken,
    operator: operator.tally,
    timeouts: 0,
    keys: world.executions.map((e) => e.idempotencyKey),
    account: driver.describeFaults() ?? '',
    otherErrors: driver.invocationFailures
      .filter((f) => !isInjectedFault(f.error))
      .map((f) => (f.error instanceof Error ? `${f.error.name}: ${f.error.message}` : String(f.error))),
    saga: tally,
  };
}

/** The saga seeds' figures, summed over a suite. */
export class SagaTotals {
  seeds = 0;
  readonly sums: SagaTally = {
    rounds: 0,
    compensations: 0,
    undoExecutions: 0,
    undoRepeats: 0,
    retriedCompensations: 0,
    cancelled: 0,
    cancelledInRound: 0,
  };

  add(tally: SagaTally): void {
    this.seeds += 1;
    for (const k of Object.keys(this.sums) as (keyof SagaTally)[]) this.sums[k] += tally[k];
  }

  report(): string {
    const s = this.sums;
    return (
      `  sagas: ${this.seeds} seeds, ${s.rounds} rounds, ${s.compensations} compensations (each once in the history), ` +
      `${s.undoExecutions} undo executions (${s.undoRepeats} repeats of lost attempts), ` +
      `${s.retriedCompensations} compensations took more than one attempt; ${s.cancelled} runs cancelled by the ` +
      `operator, ${s.cancelledInRound} of them once a round had begun`
    );
  }
}
