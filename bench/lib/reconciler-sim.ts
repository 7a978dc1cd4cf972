/**
 * A simulation of the deployed reconciler recovering stranded runs, on an explicit simulated
 * clock (nothing sleeps for real): the engine's reconcile passes and the reconciler handler's
 * policy (`reconcileInvocation` of @durable-lambda/aws) run unchanged over a store and a waker
 * that take modelled request latencies, and a scheduler invokes the reconciler every minute with
 * the CDK's timeout (60 s) until every run is woken. The bench's "reconciler" section runs it at
 * 100,000 runs; test/aws/reconciler/at-scale.test.ts at a small size.
 *
 * The model, per request (seeded lognormal latencies, median and p99 as stated in {@link LATENCY}):
 * - the due-index Query of one shard (eventually consistent, `Limit` entries of ~100 bytes);
 * - GetItem of the run (strongly consistent, one run item);
 * - Lambda Invoke (asynchronous, `InvocationType: Event`): accepted when it returns;
 * - each AWS SDK client (DynamoDB, Lambda) sends at most 50 requests at once (its default socket
 *   pool), the rest wait their turn;
 * - a woken run's invocation takes its lease (and so leaves the due index) `wokenLeaveMs` after
 *   its Invoke was accepted; until then the index still lists it, as DynamoDB's would.
 */

import { setImmediate } from 'node:timers';
import { type ReconcileInvocationOptions, reconcileInvocation } from '@durable-lambda/aws';
import {
  type DueRun,
  dueAfter,
  Engine,
  type ReconcileReport,
  type ReconcileTarget,
  type RunRecord,
  reconcileAll,
  type Store,
  type WakeRequest,
} from '@durable-lambda/engine';
import { mulberry32 } from '../../packages/local/src/faults/seeded-random';

/** Request latencies of the model, ms: median and p99 of a lognormal each. */
export interface LatencyModel {
  /** One due-index Query (one shard). */
  query: { median: number; p99: number };
  /** One GetItem (strongly consistent). */
  getItem: { median: number; p99: number };
  /** One asynchronous Lambda Invoke. */
  invoke: { median: number; p99: number };
}

/**
 * The latencies assumed, ms. DynamoDB: "single-digit millisecond performance at any scale"
 * (https://aws.amazon.com/dynamodb/), so a median of 5 ms for a GetItem and 8 ms for an index
 * Query of up to 100 small entries, with tails of 3×. Lambda publishes no latency for an
 * asynchronous Invoke (it returns once the event is queued); assumed 30 ms median, 100 ms p99,
 * about a DynamoDB write's round trip and more. The bench also runs every figure at 3× these.
 */
export const LATENCY: LatencyModel = {
  query: { median: 8, p99: 25 },
  getItem: { median: 5, p99: 15 },
  invoke: { median: 30, p99: 100 },
};

/** Requests one AWS SDK client sends at once by default (its `maxSockets`). */
export const SDK_SOCKETS = 50;

/** The CDK reconciler: every minute, a 60 s timeout, 512 MB, ARM (packages/cdk/src/durable-reconciler.ts). */
export const RECONCILER_PERIOD_MS = 60_000;
export const RECONCILER_TIMEOUT_MS = 60_000;
export const RECONCILER_MEMORY_GB = 0.5;

/** The explicit simulated clock: `sleep` resolves when the simulation reaches its time. */
export class SimClock {
  private time: number;
  private seq = 0;
  private readonly heap: Array<{ at: number; seq: number; resolve: () => void }> = [];

  constructor(start: number) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.push({ at: this.time + Math.max(0, ms), seq: this.seq++, resolve }));
  }

  /**
   * Runs until `main` settles: each step lets every continuation that is ready run (microtasks and
   * the engine's macrotask yields between passes), then moves the clock to the earliest sleeper.
   */
  async run<T>(main: Promise<T>): Promise<T> {
    let settled = false;
    const watched = main.finally(() => {
      settled = true;
    });
    for (;;) {
      // A pass yields one macrotask turn before its next request: two turns see it through.
      await turn();
      await turn();
      if (settled) return watched;
      const next = this.pop();
      if (!next) throw new Error('simulation stalled: nothing scheduled and the work not done');
      this.time = next.at;
      next.resolve();
    }
  }

  private push(item: { at: number; seq: number; resolve: () => void }): void {
    const heap = this.heap;
    heap.push(item);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  private pop(): { at: number; seq: number; resolve: () => void } | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0 && last) {
      heap[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && before(heap[l]!, heap[m]!)) m = l;
        if (r < heap.length && before(heap[r]!, heap[m]!)) m = r;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m]!, heap[i]!];
        i = m;
      }
    }
    return top;
  }
}

function before(a: { at: number; seq: number }, b: { at: number; seq: number }): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A seeded generator: the fault injector's mulberry32, so the same seed gives the same figures. */
const seeded = mulberry32;

/** A lognormal draw with the given median and p99. */
function lognormal(random: () => number, { median, p99 }: { median: number; p99: number }): number {
  const sigma = Math.log(p99 / median) / 2.326;
  // Box-Muller.
  const u = Math.max(random(), Number.EPSILON);
  const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
  return median * Math.exp(sigma * z);
}

/** At most `size` holders at once; the rest wait in order (an SDK client's socket pool). */
class Pool {
  private busy = 0;
  private readonly waiting: Array<() => void> = [];
  constructor(private readonly size: number) {}

  async use<T>(task: () => Promise<T>): Promise<T> {
    if (this.busy >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.busy++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.busy--;
    }
  }
}

/** What the simulated AWS calls counted. */
export interface SimCounts {
  queries: number;
  /** RRU of the due-index Queries (eventually consistent: 0.5 per 4 KB read, at least 0.5 each). */
  queryRru: number;
  getItems: number;
  invokes: number;
  /** Most wake-ups (GetItem + Invoke of one run) in flight at once. */
  maxWakeUpsInFlight: number;
}

/** Size of one due-index entry as the Query reads it (keys, dueAt, expiresAt), bytes. */
const ENTRY_BYTES = 100;

function shardOf(runId: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < runId.length; i++) {
    hash ^= runId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % shards;
}

const unmodelled = (what: string) => () => Promise.reject(new Error(`not modelled by the simulation: ${what}`));

/**
 * The table as the reconciler sees it: run items by id and the sharded due index, sorted per shard
 * (DynamoDB's `due` GSI). Only what a reconcile pass calls is modelled; each call waits its
 * modelled latency (and its client's socket) on the simulated clock.
 */
class SimStore implements Store {
  readonly runs = new Map<string, RunRecord>();
  /** Per shard: entries in (dueAt, runId) order. */
  private readonly index: DueRun[][];
  readonly counts: SimCounts = { queries: 0, queryRru: 0, getItems: 0, invokes: 0, maxWakeUpsInFlight: 0 };

  constructor(
    private readonly clock: SimClock,
    private readonly random: () => number,
    private readonly latency: LatencyModel,
    private readonly dynamodb: Pool,
    readonly shards: number,
    /** Whether the store says it has partitions (false: the reconciler before them, merged passes only). */
    private readonly partitioned: boolean,
  ) {
    this.index = Array.from({ length: shards }, () => []);
  }

  /** Adds a stranded run: RUNNING, its lease lapsed at `lapsedAt`, nothing scheduled. */
  strand(runId: string, lapsedAt: number): void {
    const run: RunRecord = {
      runId,
      functionName: 'orders',
      status: 'RUNNING',
      createdAt: lapsedAt - 60_000,
      updatedAt: lapsedAt - 60_000,
      fence: 1,
      leaseExpiresAt: lapsedAt,
      leaseToken: `lost-${runId}`,
      invocations: 1,
      lostInvocations: 0,
      eventSeq: 0,
      handledEventSeq: 0,
      dueAt: lapsedAt,
    };
    this.runs.set(runId, run);
    this.index[shardOf(runId, this.shards)]?.push({ runId, dueAt: lapsedAt });
  }

  /** Sorts the index once the runs are in. */
  sealIndex(): void {
    for (const entries of this.index) entries.sort(order);
  }

  /** A woken run's invocation took its lease: it leaves the index until the new lease's end. */
  leased(runId: string, until: number): void {
    const run = this.runs.get(runId);
    if (!run || run.dueAt === undefined) return;
    const entries = this.index[shardOf(runId, this.shards)] as DueRun[];
    const at = lowerBound(entries, { runId, dueAt: run.dueAt });
    if (entries[at]?.runId === runId) entries.splice(at, 1);
    run.leaseExpiresAt = until;
    run.dueAt = until;
    run.fence += 1;
    entries.splice(lowerBound(entries, { runId, dueAt: until }), 0, { runId, dueAt: until });
  }

  duePartitions(): number {
    return this.partitioned ? this.shards : 1;
  }

  async findDueRuns(before: number, limit: number, after?: DueRun, partition?: number): Promise<DueRun[]> {
    const shards = partition === undefined ? [...this.index.keys()] : [partition];
    const perShard = await Promise.all(shards.map((shard) => this.query(shard, before, limit, after)));
    return perShard.flat().sort(order).slice(0, limit);
  }

  private async query(shard: number, before: number, limit: number, after?: DueRun): Promise<DueRun[]> {
    return this.dynamodb.use(async () => {
      await this.clock.sleep(lognormal(this.random, this.latency.query));
      const entries = this.index[shard] as DueRun[];
      const from = after ? upperBound(entries, after) : 0;
      const found: DueRun[] = [];
      for (let i = from; i < entries.length && found.length < limit; i++) {
        const entry = entries[i] as DueRun;
        if (entry.dueAt > before) break;
        found.push({ ...entry });
      }
      this.counts.queries += 1;
      this.counts.queryRru += Math.max(1, Math.ceil((found.length * ENTRY_BYTES) / 4096)) * 0.5;
      return found;
    });
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    return this.dynamodb.use(async () => {
      await this.clock.sleep(lognormal(this.random, this.latency.getItem));
      this.counts.getItems += 1;
      const run = this.runs.get(runId);
      return run && { ...run };
    });
  }

  createRun = unmodelled('createRun');
  acquireLease = unmodelled('acquireLease');
  loadOperations = unmodelled('loadOperations');
  getOperation = unmodelled('getOperation');
  listRuns = unmodelled('listRuns');
  reviseRun = unmodelled('reviseRun');
  claimIdempotencyKey = unmodelled('claimIdempotencyKey');
  completeIdempotencyKey = unmodelled('completeIdempotencyKey');
  releaseIdempotencyKey = unmodelled('releaseIdempotencyKey');
  writeOutsideEvent = unmodelled('writeOutsideEvent');
  commit = unmodelled('commit');
}

function order(a: DueRun, b: DueRun): number {
  return a.dueAt - b.dueAt || (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0);
}

/** First index whose entry is not before `key`. */
function lowerBound(entries: DueRun[], key: DueRun): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (order(entries[mid] as DueRun, key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index whose entry comes after `key`. */
function upperBound(entries: DueRun[], key: DueRun): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (dueAfter(entries[mid] as DueRun, key)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Which reconciler is simulated. */
export type ReconcilerPolicy =
  /** This one: `reconcileInvocation` as the deployed handler runs it. */
  | 'shipped'
  /** The one before: merged passes of the whole index, at most 25 an invocation, 8 wake-ups at once. */
  | 'before';

/** Options of {@link simulateRecovery}. */
export interface RecoveryOptions {
  runs: number;
  /** The due index's shards (the layout's `DUE_SHARDS`). */
  shards: number;
  policy: ReconcilerPolicy;
  /** Due runs per pass (`DURABLE_RECONCILE_LIMIT`, default 100). */
  limit?: number;
  latency?: LatencyModel;
  /** After its Invoke was accepted, a woken run takes its lease this much later, ms. Default 1,000. */
  wokenLeaveMs?: number;
  /** The reconciler's first invocation's cold start, ms (each later one is warm). Default 500. */
  coldStartMs?: number;
  seed?: number;
  /** Give up after this many reconciler invocations. Default 120 (two hours). */
  maxInvocations?: number;
  /** Called after each pass with the simulated time (for a test's checks). */
  onPass?(report: ReconcileReport, now: number): void;
}

/** One reconciler invocation, as simulated. */
export interface SimInvocation {
  startedAt: number;
  durationMs: number;
  passes: number;
  woken: number;
  stoppedBy: string;
}

/** What {@link simulateRecovery} found. */
export interface RecoveryResult {
  /** From the first reconciler invocation until the last run was woken (its Invoke accepted), ms. */
  allWokenMs: number;
  invocations: SimInvocation[];
  counts: SimCounts;
  /** Runs woken more than once (found again before their invocation took the lease). */
  wokenTwice: number;
  /** Most passes (due-index pages) under way at once. */
  maxPassesInFlight: number;
}

const T0 = Date.UTC(2030, 0, 1);
const GRACE_MS = 120_000;
const LEASE_MS = 15 * 60_000 + 10_000;

/**
 * `runs` stranded runs (their leases lapsed ten minutes before the first reconciler invocation,
 * well past its 2-minute grace), recovered by the reconciler invoked every minute.
 */
export async function simulateRecovery(options: RecoveryOptions): Promise<RecoveryResult> {
  const clock = new SimClock(T0);
  const random = seeded(options.seed ?? 21);
  const latency = options.latency ?? LATENCY;
  const dynamodb = new Pool(SDK_SOCKETS);
  const lambda = new Pool(SDK_SOCKETS);
  const store = new SimStore(clock, random, latency, dynamodb, options.shards, options.policy === 'shipped');
  for (let i = 0; i < options.runs; i++) store.strand(`run-${String(i).padStart(7, '0')}`, T0 - 10 * 60_000);
  store.sealIndex();

  const wokenAt = new Map<string, number>();
  let wokenTwice = 0;
  let inFlight = 0;
  const wokenLeaveMs = options.wokenLeaveMs ?? 1_000;
  const waker = {
    wakeAt: async (request: WakeRequest) => {
      await lambda.use(() => clock.sleep(lognormal(random, latency.invoke)));
      store.counts.invokes += 1;
      if (wokenAt.has(request.runId)) wokenTwice += 1;
      else wokenAt.set(request.runId, clock.now());
      // The woken invocation takes the lease a little later, off the reconciler's path.
      void clock.sleep(wokenLeaveMs).then(() => store.leased(request.runId, clock.now() + LEASE_MS));
    },
  };
  const engine = new Engine({ store, waker, clock, reconcileGraceMs: GRACE_MS });
  // Wake-ups in flight: a run's GetItem through its Invoke.
  const getRun = store.getRun.bind(store);
  store.getRun = async (runId) => {
    inFlight += 1;
    store.counts.maxWakeUpsInFlight = Math.max(store.counts.maxWakeUpsInFlight, inFlight);
    try {
      return await getRun(runId);
    } finally {
      // The Invoke follows at once when the run is due; counted with it below.
      inFlight -= 1;
    }
  };
  const wakeAt = waker.wakeAt;
  waker.wakeAt = async (request) => {
    inFlight += 1;
    store.counts.maxWakeUpsInFlight = Math.max(store.counts.maxWakeUpsInFlight, inFlight);
    try {
      await wakeAt(request);
    } finally {
      inFlight -= 1;
    }
  };

  let passesInFlight = 0;
  let maxPassesInFlight = 0;
  const target: ReconcileTarget = {
    reconcile: async (passOptions) => {
      passesInFlight += 1;
      maxPassesInFlight = Math.max(maxPassesInFlight, passesInFlight);
      try {
        const report = await engine.reconcile(passOptions);
        options.onPass?.(report, clock.now());
        return report;
      } finally {
        passesInFlight -= 1;
      }
    },
    duePartitions: () => engine.duePartitions(),
  };

  const invocations: SimInvocation[] = [];
  const maxInvocations = options.maxInvocations ?? 120;
  const main = (async () => {
    for (let k = 0; wokenAt.size < options.runs && k < maxInvocations; k++) {
      const startedAt = T0 + k * RECONCILER_PERIOD_MS;
      if (clock.now() < startedAt) await clock.sleep(startedAt - clock.now());
      if (k === 0) await clock.sleep(options.coldStartMs ?? 500);
      const deadline = startedAt + RECONCILER_TIMEOUT_MS;
      const before = wokenAt.size;
      const common: Omit<ReconcileInvocationOptions, 'maxPasses'> = {
        limit: options.limit ?? 100,
        marginMs: 5_000,
        pauseMs: 0,
        remaining: () => deadline - clock.now(),
        now: () => clock.now(),
        sleep: (ms) => clock.sleep(ms),
      };
      const result =
        options.policy === 'shipped'
          ? await reconcileInvocation(target, { ...common, maxPasses: 10_000 })
          : await before25(target, common);
      invocations.push({
        startedAt,
        durationMs: clock.now() - startedAt,
        passes: result.passes,
        woken: wokenAt.size - before,
        stoppedBy: result.stoppedBy,
      });
    }
  })();
  await clock.run(main);
  if (wokenAt.size < options.runs) throw new Error(`${options.runs - wokenAt.size} runs never woken`);
  const last = Math.max(...wokenAt.values());
  return { allWokenMs: last - T0, invocations, counts: store.counts, wokenTwice, maxPassesInFlight };
}

/**
 * The reconciler handler before shards were paged side by side: pass after pass over the whole
 * index (paging on from each cursor), 8 wake-ups at once, at most 25 passes an invocation, while
 * twice its slowest pass and 5 s stay in hand: the same engine helper, told the store has one
 * partition and given the old bounds.
 */
async function before25(
  target: ReconcileTarget,
  options: Omit<ReconcileInvocationOptions, 'maxPasses'>,
): Promise<{ passes: number; stoppedBy: string }> {
  let slowest = 0;
  const merged: ReconcileTarget = {
    reconcile: async (o) => {
      const started = options.now();
      try {
        return await target.reconcile(o);
      } finally {
        slowest = Math.max(slowest, options.now() - started);
      }
    },
  };
  return reconcileAll(merged, {
    limit: options.limit,
    concurrency: 8,
    concurrencyWhenBehind: 8,
    maxPasses: 25,
    canContinue: () => options.remaining() >= 2 * slowest + options.marginMs,
  });
}

/** One idle reconciler invocation (an empty due index), simulated: its duration and requests. */
export async function simulateIdleInvocation(
  shards: number,
  latency: LatencyModel = LATENCY,
  seed = 7,
): Promise<{ durationMs: number; counts: SimCounts }> {
  const clock = new SimClock(T0);
  const random = seeded(seed);
  const store = new SimStore(clock, random, latency, new Pool(SDK_SOCKETS), shards, true);
  const engine = new Engine({ store, waker: { wakeAt: async () => {} }, clock, reconcileGraceMs: GRACE_MS });
  await clock.run(
    reconcileInvocation(engine, {
      limit: 100,
      marginMs: 5_000,
      pauseMs: 0,
      maxPasses: 10_000,
      remaining: () => T0 + RECONCILER_TIMEOUT_MS - clock.now(),
      now: () => clock.now(),
      sleep: (ms) => clock.sleep(ms),
    }),
  );
  return { durationMs: clock.now() - T0, counts: store.counts };
}
