/**
 * The flow-control limits of each function, recorded where a control API can read them. The
 * limits live in the handler's code (`withDurableExecution`'s options), which a deployed control
 * API never loads: so the engine records them when it sees them (an admission), and the API lists
 * the records (`Store.listFunctionLimits`). This file imports nothing of the engine's, so the
 * `Store` port can name its shapes.
 */

/** A function's flow-control limits, as its handler declares them (absent: not limited so). */
export interface FunctionLimits {
  /** At most `limit` runs of a key RUNNING at once; the rest wait QUEUED. */
  concurrency?: { limit: number };
  /** At most `limit` starts per `periodMs` per key, with `burst` more at once. */
  throttle?: { limit: number; periodMs: number; burst?: number };
  /** At most `limit` starts per `periodMs` per key; the rest are dropped. */
  rateLimit?: { limit: number; periodMs: number };
  /** The last event in a `periodMs` window wins (started at most `timeoutMs` after the first). */
  debounce?: { periodMs: number; timeoutMs?: number };
  /** One run per key: a new one is skipped, or cancels the running one. */
  singleton?: { mode: 'skip' | 'cancel' };
  /** Queued runs are taken by priority, not only in arrival order. */
  priority?: boolean;
}

/** What a store keeps per function: its limits as last recorded. */
export interface FunctionLimitsRecord {
  /** The function's bare name (no qualifier: every version shares its record). */
  functionName: string;
  limits: FunctionLimits;
  /** When they were recorded (epoch ms). */
  recordedAt: number;
  /** The code version that recorded them, when known (a Lambda version). */
  version?: string;
}

/** The store methods {@link noteFunctionLimits} uses (all optional on the `Store` port). */
export interface FunctionLimitsStore {
  putFunctionLimits?(record: FunctionLimitsRecord): Promise<void>;
  getFunctionLimits?(functionName: string): Promise<FunctionLimitsRecord | undefined>;
}

/**
 * The limits in one canonical form (fields in a fixed order, absent ones left out), so two
 * declarations of the same limits compare equal as text whatever order their code wrote them in.
 */
export function canonicalLimits(limits: FunctionLimits): FunctionLimits {
  const out: FunctionLimits = {};
  if (limits.concurrency) out.concurrency = { limit: limits.concurrency.limit };
  if (limits.throttle) {
    const { limit, periodMs, burst } = limits.throttle;
    out.throttle = { limit, periodMs, ...(burst === undefined ? {} : { burst }) };
  }
  if (limits.rateLimit) out.rateLimit = { limit: limits.rateLimit.limit, periodMs: limits.rateLimit.periodMs };
  if (limits.debounce) {
    const { periodMs, timeoutMs } = limits.debounce;
    out.debounce = { periodMs, ...(timeoutMs === undefined ? {} : { timeoutMs }) };
  }
  if (limits.singleton) out.singleton = { mode: limits.singleton.mode };
  if (limits.priority !== undefined) out.priority = limits.priority;
  return out;
}

/**
 * What this process last knew to be stored per store and function (canonical JSON). A WeakMap by
 * store, so two stores in one process (tests, a dev server restarted in place) each get their write.
 */
const noted = new WeakMap<object, Map<string, string>>();

/** Options of {@link noteFunctionLimits}. */
export interface NoteFunctionLimitsOptions {
  /** The code version recording them (a Lambda version), kept on the record. */
  version?: string;
  /** Told of a failed read or write (default: nothing; the next cold start tries again). */
  onError?(error: unknown): void;
}

/**
 * Records `limits` as `functionName`'s (its bare name) unless this process already knows the
 * store holds them: the first call per store and function reads the stored record and writes only
 * when it differs; later calls write only when the limits differ from what this process last
 * wrote. A warm Lambda so writes once per cold start at most, and none at all while the code's
 * limits do not change (a cold start costs one read). Best effort: it never rejects (a failed
 * read or write is told to `onError`, not cached, and tried again at the next call), so it may be
 * called without being awaited on a run's path. Resolves to whether it wrote.
 */
export async function noteFunctionLimits(
  store: FunctionLimitsStore,
  functionName: string,
  limits: FunctionLimits,
  clock: { now(): number },
  options: NoteFunctionLimitsOptions = {},
): Promise<boolean> {
  const { putFunctionLimits, getFunctionLimits } = store;
  if (!putFunctionLimits) return false;
  const canonical = canonicalLimits(limits);
  const text = JSON.stringify(canonical);
  let known = noted.get(store);
  if (!known) {
    known = new Map();
    noted.set(store, known);
  }
  if (known.get(functionName) === text) return false;
  // Claimed before the await, so calls racing in one process write once; released on failure.
  known.set(functionName, text);
  try {
    const stored = await getFunctionLimits?.call(store, functionName);
    if (stored && JSON.stringify(canonicalLimits(stored.limits)) === text) return false;
    await putFunctionLimits.call(store, {
      functionName,
      limits: canonical,
      recordedAt: clock.now(),
      ...(options.version === undefined ? {} : { version: options.version }),
    });
    return true;
  } catch (error) {
    if (known.get(functionName) === text) known.delete(functionName);
    try {
      options.onError?.(error);
    } catch {
      // A failing reporter must not fail the run either.
    }
    return false;
  }
}
