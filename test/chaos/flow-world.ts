/**
 * Flow seeds: the chaos world for issue 26. A few keys (two per seed) contended by runs of one
 * function declared with `concurrency: { key, limit }` (limit 1 to 3), started directly, by
 * trigger events delivered twice, at once and late, and by schedule firings duplicated and late
 * under the seed's overlap policy; all under the suites' random faults (lost store responses, the
 * slot methods' included; kills in checkpoints and in admission, between a slot taken and its
 * record and between a run's end and its slot's release; races; throttled wakers; lost events),
 * an operator (`flow-operator.ts`) and execution timeouts. Then the invariants of
 * `flow-invariants.ts` with the world ones of every seed.
 */
import { setImmediate } from 'node:timers';
import { MemoryStore, type OverlapPolicy, type RunRecord, type Store } from '@durable-lambda/engine';
import {
  FAULT_KINDS,
  type FaultKind,
  type FaultOptions,
  isInjectedFault,
  TestDriver,
  type VirtualClock,
} from '@durable-lambda/local';
import { checkFlow, type FlowTally } from './flow-invariants';
import { FlowOperator, flowModeFor } from './flow-operator';
import { FlowStarts } from './flow-starts';
import { KEYED, KeyedBodies, keyedFunction } from './flow-workflow';
import { REFUSED_COMPLETION, type SeedOutcome, type StoreFactory } from './harness';
import { checkSteps } from './invariants';
import { runsOf } from './operated-world';
import { seededRandom } from './operators';
import { OutsideWorld } from './outside-world';
import { type LoggedWrite, loggedStore, WorldOrder } from './store-log';
import { checkWorldLog } from './world-invariants';

const START = Date.UTC(2030, 0, 1);
const DAY = 86_400_000;
const OVERLAPS: readonly OverlapPolicy[] = ['skip', 'allowAll', 'cancelPrevious'];
/** Direct starts per seed (with three trigger runs and up to three schedule runs). */
const DIRECT = 3;
/** Rounds of driving (a round drives every RUNNING run to its end, or waits for the queue's re-check). */
const ROUNDS = 40;
/** Reconciler passes given to runs still due once all ended, and the time between them. */
const DRAIN_PASSES = 10;
const DRAIN_STEP_MS = 180_000;
/** Invocations allowed per run and per injected fault before the seed counts as a loop. */
const INVOCATIONS_PER_RUN = 30;
const INVOCATIONS_PER_FAULT = 6;

/** The limit, keys and overlap policy of a seed: few keys and small limits, so keys are contended. */
export function flowShape(seed: number): { limit: number; keys: string[]; overlap: OverlapPolicy } {
  return {
    limit: 1 + (seed % 3),
    // Keys of their own per seed: a DynamoDB table is shared by the seeds of a worker.
    keys: [`s${seed}-a`, `s${seed}-b`],
    overlap: OVERLAPS[(seed + Math.floor(seed / 3)) % OVERLAPS.length] as OverlapPolicy,
  };
}

/** Runs one flow seed; see the file's comment. */
export async function runFlowSeed(
  seed: number,
  options: { store?: StoreFactory; faults?: Omit<FaultOptions, 'seed'> },
): Promise<SeedOutcome & { flow: FlowTally }> {
  const random = seededRandom(seed ^ 0x2626);
  const { limit, keys, overlap } = flowShape(seed);
  const order = new WorldOrder();
  const log: LoggedWrite[] = [];
  let driver: TestDriver | undefined;
  let store: Store | undefined;
  const completionErrors: string[] = [];
  const world = new OutsideWorld(
    () => driver?.clock.now() ?? 0,
    (callback) => {
      // The outside answers a moment later, from outside any invocation.
      setImmediate(() => {
        driver?.sendCallbackSuccess(callback.callbackId, callback.payload).catch((error: unknown) => {
          // A run cancelled or timed out refuses its callbacks.
          if (!REFUSED_COMPLETION.test(String(error)))
            completionErrors.push(`${callback.callbackId}: ${String(error)}`);
        });
      });
    },
    order,
  );
  const bodies = new KeyedBodies(order, log, limit);
  driver = new TestDriver(keyedFunction(world, bodies, limit), {
    // Half-way through the seed's stretch of time: the reference seeds use the first days of theirs.
    startTime: START + (seed % 10_000) * 30 * DAY + 15 * DAY,
    maxInvocations: 2_000,
    faults: { seed, ...(options.faults ?? {}) },
    store: (clock: VirtualClock) => {
      store = loggedStore(options.store ? options.store(clock) : new MemoryStore(clock), order, log);
      return store;
    },
  });
  const raw = store as unknown as Store;
  const mode = flowModeFor(seed);
  const operator = new FlowOperator(seed, mode, driver, raw, random);
  const starts = new FlowStarts(driver, seed, keys, overlap, random);
  let busy = false;
  world.hook = async () => {
    // Inside a step body: firings come when their time does, a trigger event comes again, the operator acts.
    if (busy) return;
    busy = true;
    try {
      await starts.fireDue();
      if (random() < 0.05) await starts.deliverTriggers();
      await operator.during();
    } finally {
      busy = false;
    }
  };
  let violations: string[] = [];
  let lateCreates = 0;
  try {
    for (let i = 0; i < DIRECT; i++) {
      const timeout = operator.timeoutSeconds();
      await driver.start(
        KEYED,
        { id: `j${i}-${seed}`, key: keys[i % keys.length] },
        timeout === undefined ? {} : { executionTimeoutSeconds: timeout },
      );
    }
    await starts.fireDue();
    await starts.deliverTriggers();
    for (let round = 0; ; round++) {
      await driveFlow(driver, raw);
      if (await starts.fireRest()) continue;
      if (!(await operator.afterQuiet(round))) break;
    }
    await drain(driver, raw);
    const before = log.filter((w) => w.kind === 'create').length;
    await starts.deliverLate();
    await settle();
    lateCreates = log.filter((w) => w.kind === 'create').length - before;
    violations = [
      ...bodies.violations,
      ...operator.errors.map((e) => `operator action failed: ${e}`),
      ...starts.errors.map((e) => `start failed: ${e}`),
      ...completionErrors.map((e) => `completing callback ${e} failed`),
      ...(lateCreates > 0 ? [`${lateCreates} runs were created by late deliveries (of events whose run ended)`] : []),
      ...checkWorldLog(log, world.executions),
      ...(await checkSteps(driver, world, true)),
    ];
  } catch (error) {
    violations = [`the flow world did not finish: ${error instanceof Error ? error.message : String(error)}`];
  }
  const runs = await runsOf(driver, raw);
  const flow = await checkFlow({ driver, raw, log, bodies, starts, runs, keys, limit, violations });
  let invocations = 0;
  for (const list of driver.invocations.values()) invocations += list.length;
  if (invocations > INVOCATIONS_PER_RUN * runs.length + INVOCATIONS_PER_FAULT * driver.faults.length) {
    violations.push(
      `took ${invocations} invocations for ${runs.length} runs and ${driver.faults.length} faults: a loop`,
    );
  }
  const counts = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>;
  for (const f of driver.faults) counts[f.kind] += 1;
  return {
    seed,
    workflow: `flow(limit ${limit}, ${overlap})`,
    mode: `flow-${mode}`,
    ended: runs.every((r) => r.status !== 'RUNNING' && r.status !== 'QUEUED') ? 'all ended' : 'busy',
    violations,
    faults: counts,
    invocations,
    reconcilePasses: driver.reconcileStats.passes,
    reconcileWoken: driver.reconcileStats.woken,
    operator: operator.tally,
    timeouts: log.filter((w) => w.kind === 'revise' && w.status === 'TIMED_OUT' && w.action === undefined).length,
    keys: world.executions.map((e) => e.idempotencyKey),
    account: driver.describeFaults() ?? '',
    otherErrors: driver.invocationFailures
      .filter((f) => !isInjectedFault(f.error))
      .map((f) => (f.error instanceof Error ? `${f.error.name}: ${f.error.message}` : String(f.error))),
    flow,
  };
}

/**
 * Drives the world until no run is RUNNING or QUEUED: each RUNNING run to its end (driving one
 * drives all, handing slots over as runs end), and, when only QUEUED runs are left, the clock to
 * their re-check and the reconciler, which takes them out of their wait.
 */
async function driveFlow(driver: TestDriver, store: Store): Promise<void> {
  for (let round = 0; round < ROUNDS; round++) {
    const runs = await runsOf(driver, store);
    const running = runs.find((r) => r.status === 'RUNNING');
    if (running) {
      await driver.runUntilDone(running.runId);
      continue;
    }
    const queued = runs.filter((r) => r.status === 'QUEUED');
    if (queued.length === 0) return;
    const due = Math.min(...queued.map((r) => r.dueAt ?? driver.clock.now()));
    driver.clock.advanceTo(Math.max(driver.clock.now(), due) + DRAIN_STEP_MS);
    await reconcile(driver);
  }
  throw new Error(`the world was still busy after ${ROUNDS} rounds: ${summarize(await runsOf(driver, store))}`);
}

/** The reconciler until no run is due (an ended run still due, a lost hand-over). */
async function drain(driver: TestDriver, store: Store): Promise<void> {
  for (let pass = 0; pass < DRAIN_PASSES; pass++) {
    if (!(await runsOf(driver, store)).some((r) => r.dueAt !== undefined)) return;
    driver.clock.advanceBy(DRAIN_STEP_MS);
    await reconcile(driver);
    if ((await runsOf(driver, store)).some((r) => r.status === 'RUNNING' || r.status === 'QUEUED')) {
      await driveFlow(driver, store);
    }
  }
}

async function reconcile(driver: TestDriver): Promise<void> {
  await driver.engine.reconcile().catch((error: unknown) => {
    if (!isInjectedFault(error)) throw error;
  });
  await new Promise<void>((resolve) => setImmediate(resolve));
}

/** `SUCCEEDED 7, CANCELLED 1`: how the seed's runs stand. */
function summarize(runs: readonly RunRecord[]): string {
  const by = new Map<string, number>();
  for (const r of runs) by.set(r.status, (by.get(r.status) ?? 0) + 1);
  return [...by].map(([s, n]) => `${s} ${n}`).join(', ');
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
