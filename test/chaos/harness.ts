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
import type { FlowTally } from './flow-invariants';
import { checkInvariants } from './invariants';
import { driveWorld, runsOf } from './operated-world';
import { Operator, type OperatorMode, type OperatorTally, operatorModeFor, RECREATE_RETENTION_MS } from './operators';
import { OutsideWorld } from './outside-world';
import { type LoggedWrite, loggedStore, WorldOrder } from './store-log';
import { WORKFLOWS, workflowFor } from './workflows';
import { checkAllEnded, checkWorldLog, WorldKeys } from './world-invariants';

/** The store a chaos run uses, built on the driver's virtual clock. */
export type StoreFactory = (clock: VirtualClock) => Store;

/** What one seed did. */
export interface SeedOutcome {
  seed: number;
  workflow: string;
  /** What the operator did to its run (see `operators.ts`; `flow-<mode>` for a flow seed, `flow-operator.ts`). */
  mode: OperatorMode | `flow-${string}`;
  /** How the main run (its last execution) ended. */
  ended: string;
  operator: OperatorTally;
  /** Runs ended by their execution timeout (not by an operator). */
  timeouts: number;
  /** Every idempotency key handed to a step body. */
  keys: string[];
  violations: string[];
  faults: Record<FaultKind, number>;
  invocations: number;
  reconcilePasses: number;
  reconcileWoken: number;
  /** The seed's faults, one a line, for a failure report. */
  account: string;
  /** Invocations that threw for a reason other than an injected fault, with their messages. */
  otherErrors: string[];
  /** A flow seed's counts (`flow-world.ts`). */
  flow?: FlowTally;
}

/** Totals over a chaos suite. */
export class ChaosTotals {
  runs = 0;
  invocations = 0;
  reconcilePasses = 0;
  reconcileWoken = 0;
  /** Operator actions that landed, by kind; refused ones; runs re-created after retention; execution timeouts. */
  readonly actions: Record<string, number> = {};
  refused = 0;
  recreated = 0;
  timeouts = 0;
  readonly modes: Record<string, number> = {};
  /** How the seeds of each mode ended, by the main run's status. */
  readonly ends: Record<string, Record<string, number>> = {};
  readonly faults = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>;
  readonly failures: SeedOutcome[] = [];
  /** Invocation errors not injected, by message (expected none; not a violation by itself). */
  readonly otherErrors = new Map<string, number>();
  /** Every idempotency key of the suite: none is issued in two seeds. */
  readonly keys = new WorldKeys();
  /** The flow seeds' counts, summed (`flow-world.ts`). */
  flowSeeds = 0;
  readonly flow: Partial<Record<keyof FlowTally, number>> = {};

  add(outcome: SeedOutcome): void {
    for (const e of outcome.otherErrors) this.otherErrors.set(e, (this.otherErrors.get(e) ?? 0) + 1);
    outcome.violations.push(...this.keys.add(outcome.seed, outcome.keys));
    this.runs += 1;
    this.invocations += outcome.invocations;
    this.reconcilePasses += outcome.reconcilePasses;
    this.reconcileWoken += outcome.reconcileWoken;
    this.modes[outcome.mode] = (this.modes[outcome.mode] ?? 0) + 1;
    const ends = this.ends[outcome.mode] ?? {};
    ends[outcome.ended] = (ends[outcome.ended] ?? 0) + 1;
    this.ends[outcome.mode] = ends;
    for (const [kind, n] of Object.entries(outcome.operator.actions))
      this.actions[kind] = (this.actions[kind] ?? 0) + n;
    this.refused += outcome.operator.refused;
    this.recreated += outcome.operator.recreated;
    this.timeouts += outcome.timeouts;
    for (const kind of FAULT_KINDS) this.faults[kind] += outcome.faults[kind];
    if (outcome.flow) {
      this.flowSeeds += 1;
      for (const [k, n] of Object.entries(outcome.flow) as [keyof FlowTally, number][]) {
        this.flow[k] = (this.flow[k] ?? 0) + n;
      }
    }
    if (outcome.violations.length) this.failures.push(outcome);
  }

  get violations(): number {
    return this.failures.reduce((n, f) => n + f.violations.length, 0);
  }

  /** The printed summary: runs, faults by kind, operator actions, violations (and each failing seed). */
  report(label: string): string {
    const total = Object.values(this.faults).reduce((a, b) => a + b, 0);
    const kinds = FAULT_KINDS.map((k) => `${k}=${this.faults[k]}`).join(' ');
    const actions = Object.entries(this.actions)
      .map(([k, n]) => `${k}=${n}`)
      .join(' ');
    const modes = Object.entries(this.modes)
      .map(([k, n]) => {
        const ends = Object.entries(this.ends[k] ?? {}).map(([status, m]) => `${status} ${m}`);
        return `${k}=${n} (${ends.join(', ')})`;
      })
      .join(' ');
    const lines = [
      `chaos ${label}: ${this.runs} runs, ${this.invocations} invocations, ${total} faults (${kinds}), ` +
        `${this.reconcilePasses} reconciler passes woke ${this.reconcileWoken} runs, violations ${this.violations}`,
      `  operator: seeds ${modes}; actions landed ${actions} (${this.refused} refused); ` +
        `${this.timeouts} execution timeouts; ${this.recreated} runs re-created after retention; ` +
        `${this.keys.size} idempotency keys, none issued twice across seeds`,
    ];
    if (this.flowSeeds > 0) {
      const f = (k: keyof FlowTally) => this.flow[k] ?? 0;
      lines.push(
        `  flow: ${this.flowSeeds} seeds, ${f('runs')} keyed runs: ${f('admitted')} admitted, ${f('queued')} queued, ` +
          `${f('handOvers')} hand-overs, ${f('contended')} keys at their limit; ${f('slotKills')} kills in admission ` +
          `or before a slot's release, ${f('slotLost')} slot writes' responses lost, ${f('evicted')} leaked slots evicted, ` +
          `${f('endedHolders')} left to the next admission (held by an ended run whose release was lost), ` +
          `${f('staleEntries')} stale queue entries left to the next reader; ` +
          `triggers: ${f('deliveries')} deliveries (${f('duplicates')} duplicates, ${f('concurrent')} at once, ` +
          `${f('late')} late with firings); schedules: ${f('firings')} firings, ${f('skipped')} skipped, ` +
          `${f('cancelled')} previous runs cancelled`,
      );
    }
    for (const [message, n] of this.otherErrors) lines.push(`  invocation error not injected (${n}x): ${message}`);
    for (const f of this.failures.slice(0, 20)) {
      lines.push(`  seed ${f.seed} (${f.workflow}, ${f.mode}):`, ...f.violations.map((v) => `    ${v}`), f.account);
    }
    return lines.join('\n');
  }
}

/**
 * The suites' fault mix: 4% at each place, more for kinds with few places per run (a run starts
 * one child and hands out two callbacks at most), so each kind is seen often.
 */
export const CHAOS_FAULTS: Omit<FaultOptions, 'seed'> = {
  // DURABLE_CHAOS_PROBABILITY=0.15 for a harsher mix.
  defaultProbability: Number(process.env.DURABLE_CHAOS_PROBABILITY || 0.04),
  callbackTwice: 0.3,
  eventTwice: 0.2,
  eventDropped: 0.1,
  throttleInvoker: 0.1,
};

const START = Date.UTC(2030, 0, 1);
const DAY = 86_400_000;
/** A loop shows long before this; a sane run takes a few dozen invocations. */
const MAX_INVOCATIONS = 1_000;

/** Fault-free invocation counts per workflow, measured once per store kind. */
const baselines = new Map<string, number>();

/**
 * Runs one seed: its workflow under its faults (and its operator's actions, see `operators.ts`)
 * on a fresh driver, the outside completing every callback the run hands out, every run of the
 * world driven to its end, then every invariant.
 */
export async function runSeed(
  seed: number,
  options: { store?: StoreFactory; faults?: Omit<FaultOptions, 'seed'>; storeLabel: string },
): Promise<SeedOutcome> {
  const baseline = await baselineFor(seed, options);
  const order = new WorldOrder();
  const log: LoggedWrite[] = [];
  const recreate = operatorModeFor(seed, '') === 'recreate';
  const { driver, world, workflow, store } = makeRun(
    seed,
    options,
    { seed, ...(options.faults ?? {}) },
    { order, log, ...(recreate ? { retentionMs: RECREATE_RETENTION_MS } : {}) },
  );
  const mode = operatorModeFor(seed, workflow.name);
  const operator = new Operator(
    seed,
    mode,
    driver,
    store,
    workflow.input,
    `chaos:${seed}:${workflow.name}`,
    workflow.name,
  );
  world.hook = (execution) => operator.during(execution);
  let violations: string[];
  let ended = 'none';
  try {
    const main = await driveWorld(driver, store, workflow, operator);
    ended = main.status;
    await settle();
    violations = [
      ...world.completionErrors.filter((e) => mode === 'plain' || !REFUSED_COMPLETION.test(e)),
      ...(await checkInvariants({
        driver,
        world,
        workflow,
        main,
        baselineInvocations: baseline,
        expect:
          operator.cancelled && operator.tally.recreated === 0
            ? 'CANCELLED'
            : mode === 'timeout'
              ? 'ENDED'
              : 'SUCCEEDED',
        operated: mode !== 'plain',
        extraRuns: operator.tally.recreated + (operator.tally.actions.retry ?? 0) + (mode === 'plain' ? 0 : 1),
      })),
      ...checkWorldLog(log, world.executions),
      ...checkAllEnded(await runsOf(driver, store)),
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
    timeouts: log.filter((w) => w.kind === 'revise' && w.status === 'TIMED_OUT' && w.action === undefined).length,
    keys: world.executions.map((e) => e.idempotencyKey),
    account: driver.describeFaults() ?? '',
    otherErrors: driver.invocationFailures
      .filter((f) => !isInjectedFault(f.error))
      .map((f) => (f.error instanceof Error ? `${f.error.name}: ${f.error.message}` : String(f.error))),
  };
}

/** A callback completion the engine refused because its run ended or was replaced (an operator's doing). */
export const REFUSED_COMPLETION =
  /callback_already_completed|callback_not_found|CallbackNotFound|AlreadyCompleted|no callback|already completed/;

async function baselineFor(seed: number, options: { store?: StoreFactory; storeLabel: string }): Promise<number> {
  const workflowIndex = seed % WORKFLOWS.length;
  const id = `${options.storeLabel}:${workflowIndex}`;
  const known = baselines.get(id);
  if (known !== undefined) return known;
  // Its own seed (same workflow), so its run never shares an id with a seed's run on one table.
  const own = seed + WORKFLOWS.length * 1_000_000;
  const { driver, workflow } = makeRun(own, options, { seed: own, defaultProbability: 0 });
  const started = await driver.start(workflow.main, workflow.input);
  const main = await driver.runUntilDone(started.runId);
  if (main.status !== 'SUCCEEDED')
    throw new Error(`the ${workflow.name} workflow fails without faults: ${main.error?.ErrorMessage}`);
  let n = 0;
  for (const list of driver.invocations.values()) n += list.length;
  baselines.set(id, n);
  return n;
}

function makeRun(
  seed: number,
  options: { store?: StoreFactory },
  faults: FaultOptions,
  logged?: { order: WorldOrder; log: LoggedWrite[]; retentionMs?: number },
) {
  let driver: TestDriver | undefined;
  let store: Store | undefined;
  const world = new ChaosWorld(
    () => driver?.clock.now() ?? 0,
    (callback) => {
      // The outside answers a moment later, from outside any invocation.
      setImmediate(() => {
        driver?.sendCallbackSuccess(callback.callbackId, callback.payload).catch((error: unknown) => {
          world.completionErrors.push(`completing callback ${callback.callbackId} failed: ${String(error)}`);
        });
      });
    },
    logged?.order,
  );
  const workflow = workflowFor(seed, world);
  // Every write that lands is logged beneath the faults (the memory store included).
  const build = (clock: VirtualClock): Store => {
    const inner = options.store ? options.store(clock) : new MemoryStore(clock);
    store = logged ? loggedStore(inner, logged.order, logged.log) : inner;
    return store;
  };
  driver = new TestDriver(workflow.functions, {
    // Each seed in its own stretch of time, so runs sharing a table never overlap.
    startTime: START + (seed % 10_000) * 30 * DAY,
    maxInvocations: MAX_INVOCATIONS,
    faults,
    ...(options.store || logged ? { store: build } : {}),
    ...(logged?.retentionMs === undefined ? {} : { retentionMs: logged.retentionMs }),
  });
  return { driver, world, workflow, store: store ?? driver.store };
}

/** An outside world that also keeps the errors of its callback completions. */
class ChaosWorld extends OutsideWorld {
  readonly completionErrors: string[] = [];
}

/** Lets completions in flight (sent by the outside) settle before checking. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** A whole number from the environment, or the fallback. */
export function envCount(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a whole number, got ${JSON.stringify(raw)}`);
  return n;
}

/** The seeds to run: DURABLE_CHAOS_SEED replays one seed, else `count` seeds from `first`. */
export function seeds(first: number, count: number): number[] {
  const one = process.env.DURABLE_CHAOS_SEED;
  if (one !== undefined && one.trim() !== '') return [envCount('DURABLE_CHAOS_SEED', 0)];
  return Array.from({ length: count }, (_, i) => first + i);
}
