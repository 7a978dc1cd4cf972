import type { ErrorObject, Operation, OperationUpdate } from './operations';

/** How an invocation of a durable handler ended. */
export type InvocationStatus = 'SUCCEEDED' | 'FAILED' | 'PENDING';

/**
 * The explicit result of one invocation. PENDING means the run waits for something (a time,
 * a callback, a child run) and the backend must wake it later; it is never a hang.
 */
export interface InvocationOutput {
  Status: InvocationStatus;
  /** Serialized result, with SUCCEEDED. */
  Result?: string;
  /** The run's error, with FAILED. */
  Error?: ErrorObject;
  /**
   * Updates the SDK made but had not written when the invocation ended (a step's outcome written
   * behind, a long wait's START): the backend applies them, in order, in the same write that
   * records how the invocation ended. They are never answered: nothing waits on them any more.
   * Not part of what the Lambda handler returns.
   */
  Updates?: readonly OperationUpdate[];
}

/**
 * One invocation's view of a run, handed to the SDK by a backend. It holds the run's lease:
 * every checkpoint is fenced by it.
 */
export interface DurableInvocation {
  /** The run this invocation works on. */
  readonly runId: string;
  /**
   * Which creation of `runId` this is, for a run whose id comes from a key (a run key, a Lambda
   * request id, a parent's invoke): such an id names a new run again once the old one has expired,
   * and this tells the two apart (see `incarnationId`). Absent for a random id.
   */
  readonly incarnation?: string;
  /** The durable function's name. */
  readonly functionName: string;
  /** The run's serialized input. */
  readonly input: string | undefined;
  /** Every operation of the run as of the start of this invocation. */
  readonly operations: readonly Operation[];
  /** True when the invocation before this one was lost (crashed, timed out) mid-run. */
  readonly previousInvocationLost: boolean;
  /** How many invocations of this run were lost so far. */
  readonly lostInvocations: number;
  /** The backend's clock, epoch ms (virtual under the test runner). */
  now(): number;
  /** Real milliseconds this invocation may still run (Lambda's remaining time). */
  remainingTimeMs(): number;
  /**
   * Applies updates in order, durably, and returns the operations they changed as stored.
   * Rejects with {@link FencedError} when the lease is lost, {@link CheckpointRejectedError}
   * when an update is invalid.
   */
  checkpoint(updates: readonly OperationUpdate[]): Promise<readonly Operation[]>;
  /** Reads the run's operations again (e.g. after sleeping in-process). */
  refresh(): Promise<readonly Operation[]>;
  /**
   * Optional: moves the backend's clock on to `time` at once (the test runner's virtual clock,
   * which skips what it can). A wait or backoff due while the handler's other code still runs
   * then ends in-process without waiting; without it the SDK waits for the time in real time.
   */
  skipTo?(time: number): void;
  /**
   * Optional: flow control per key. Asked before the handler runs by a function configured with
   * any of `concurrency`, `throttle`, `rateLimit`, `debounce`, `singleton`: true when the run may
   * run now (it passed every gate; under `concurrency` it holds a slot); false when this invocation
   * has ended without running the handler: the backend queued the run (`QUEUED`, waiting for a
   * slot or for its time under `throttle` or `debounce`; it starts again by itself) or ended it
   * (skipped by `rateLimit`, `debounce` or `singleton`). The SDK then ends the invocation PENDING.
   * A backend without it cannot serve flow control.
   */
  admit?(request: AdmissionRequest): Promise<boolean>;
  /**
   * Optional: holds `state` (serialized JSON, at most {@link MAX_PUBLISHED_STATE_BYTES} bytes) as
   * the run's published state, replacing any held before, and writes it with the invocation's next
   * write (a checkpoint, or the write that records the invocation's end): no write of its own.
   * Synchronous, so it keeps its order with the checkpoints the SDK makes after it. The SDK calls
   * it only for a publish made past the point the run had reached (never while it replays), so the
   * stored state never moves back to an older one. A backend without it keeps no published state.
   */
  publish?(state: string): void;
  /**
   * Optional: holds `tags` (checked by `tagsProblem`) as search tags of the run, each replacing a
   * held or stored tag of the same key, and writes them with the invocation's next write, as
   * {@link DurableInvocation.publish} does (no write of its own when the store can help it). The
   * SDK calls it only for a tag made past the point the run had reached (never while it replays),
   * so a replay never sets a tag back to an older value. A backend without it keeps no tags.
   */
  tag?(tags: Readonly<Record<string, string>>): void;
}

/** The most bytes (UTF-8) a run's published state may take, serialized (`ctx.publish`). */
export const MAX_PUBLISHED_STATE_BYTES = 4096;

/**
 * What an invocation asks at admission: the gates of the run's function, each with the run's key
 * under it (a function of the run's input: a tenant, a customer, a resource). At least one gate.
 * Gates are passed in this order: `debounce`, `rateLimit`, `throttle`, `singleton`, `concurrency`.
 */
export interface AdmissionRequest {
  /** At most `limit` runs of the key RUNNING at once; the others wait as QUEUED, by `priority` then age. */
  readonly concurrency?: {
    readonly key: string;
    readonly limit: number;
    /** Higher starts first among queued runs (a whole number, -1,000,000 to 1,000,000; default 0). */
    readonly priority?: number;
  };
  /** At most `limit` starts per `periodMs` per key (`burst` at once, default 1); later starts wait their turn. */
  readonly throttle?: {
    readonly key: string;
    readonly limit: number;
    readonly periodMs: number;
    readonly burst?: number;
  };
  /** At most `limit` (up to 1,000) starts in any window of `periodMs` per key; a start past it is skipped (the run ends CANCELLED). */
  readonly rateLimit?: { readonly key: string; readonly limit: number; readonly periodMs: number };
  /**
   * The last run of a key in a quiet window of `periodMs` runs; the earlier ones end CANCELLED.
   * `timeoutMs`: the latest a run waits after the window's first (default: no bound).
   */
  readonly debounce?: { readonly key: string; readonly periodMs: number; readonly timeoutMs?: number };
  /** One run of a key at a time: a new run is skipped (`skip`) or cancels the running one (`cancel`). */
  readonly singleton?: { readonly key: string; readonly mode: 'skip' | 'cancel' };
}

/** An invocation opened by a backend from an incoming event. */
export interface OpenedInvocation {
  readonly invocation: DurableInvocation;
  /** Records how the invocation ended, releases the lease, arranges the wake-up. */
  close(output: InvocationOutput): Promise<unknown>;
  /** Ends the invocation after an infrastructure fault; the run resumes later. */
  abort(error: unknown): Promise<void>;
}

/** Minimal view of the Lambda context the runtime needs. */
export interface LambdaContextLike {
  awsRequestId?: string;
  functionName?: string;
  invokedFunctionArn?: string;
  /**
   * The version of the code this invocation runs, as Lambda's context gives it: a published
   * version (`"7"`), or `"$LATEST"`. Invoked through an alias it is the version the alias points
   * at; version pinning records a run started here as `name:<version>`. Absent outside Lambda.
   */
  functionVersion?: string;
  getRemainingTimeInMillis?: () => number;
  /** The function's memory, MB (Lambda's Node.js context gives it as a string); prices its duration. */
  memoryLimitInMB?: string | number;
}

/**
 * Where runs live. The production entry builds one from the environment; tests and the dev
 * server build one over the embedded store.
 */
export interface DurableBackend {
  /**
   * Turns an incoming event into an invocation of a run (starting the run for a plain event),
   * or `undefined` when there is nothing to do (a duplicate, a run already finished, a run
   * owned by another invocation). `response` is what the Lambda handler returns in that case.
   */
  open(
    event: unknown,
    context: LambdaContextLike,
  ): Promise<{ opened: OpenedInvocation } | { opened?: undefined; response: unknown }>;
}
