/**
 * The payload codec port, and the store that applies it: every payload a run carries (its input,
 * result and error; each operation's input, results and errors) goes through the codec on its
 * way into the store and back, so a codec that encrypts (the aws package's KMS envelope codec)
 * keeps them unreadable in the table, its chunks and its objects, while every reader through the
 * store (the engine, the control API, the console, export) sees them as written.
 *
 * Signals' payloads are sealed too. What stays readable, by design: ids, names, statuses, times,
 * an error's `ErrorType` and `ErrorCode` (listings and search filter on them), and the run's
 * published state and tags (small, meant to be read without the run).
 */
import type { ErrorObject, Operation } from '@durable-lambda/protocol';
import { checkOperationPayloads, checkRunPayloads } from './payload-limit';
import type { RunPatch, RunRecord } from './run-record';
import type { SignalRecord } from './signals';
import type { LeaseGrant, OperationPage, RunPage, Store } from './store';

/**
 * Turns a payload into what is stored and back. `seal` must be deterministic for one codec
 * instance while its key is cached (the same run and text give the same stored text): a write
 * sent again after a lost response then writes the same value, which the stores recognise as
 * their own. `open` must return a text that was never sealed unchanged (runs written before the
 * codec was configured stay readable).
 */
export interface PayloadCodec {
  /** What to store for `text`, a payload of run `runId`. */
  seal(runId: string, text: string): Promise<string>;
  /** The payload `stored` holds, for run `runId`; rejects when it cannot be opened (wrong run, no key). */
  open(runId: string, stored: string): Promise<string>;
}

type Transform = (text: string) => Promise<string>;

async function mapError(error: ErrorObject | undefined, f: Transform): Promise<ErrorObject | undefined> {
  // A patch's null (clear the field) passes as it is.
  if (error === null || typeof error !== 'object') return error;
  const out: ErrorObject = { ...error };
  if (error.ErrorMessage !== undefined) out.ErrorMessage = await f(error.ErrorMessage);
  if (error.ErrorData !== undefined) out.ErrorData = await f(error.ErrorData);
  if (error.StackTrace !== undefined) out.StackTrace = await Promise.all(error.StackTrace.map(f));
  return out;
}

/** The operation with every payload field passed through `f`. */
async function mapOperation(op: Operation, f: Transform): Promise<Operation> {
  const out: Operation = { ...op };
  const text = async (value: string | undefined) => (typeof value === 'string' ? f(value) : value);
  const set = <T extends object>(details: T, key: keyof T, value: unknown) => {
    if (value !== undefined) (details as Record<keyof T, unknown>)[key] = value;
  };
  if (op.ExecutionDetails) {
    out.ExecutionDetails = { ...op.ExecutionDetails };
    set(out.ExecutionDetails, 'InputPayload', await text(op.ExecutionDetails.InputPayload));
  }
  for (const key of ['ContextDetails', 'StepDetails', 'CallbackDetails', 'ChainedInvokeDetails'] as const) {
    const details = op[key] as { Result?: string; Error?: ErrorObject; Input?: string } | undefined;
    if (!details) continue;
    const copy = { ...details };
    set(copy, 'Result', await text(details.Result));
    set(copy, 'Error', await mapError(details.Error, f));
    if (key === 'ChainedInvokeDetails') set(copy, 'Input', await text(details.Input));
    (out as unknown as Record<string, unknown>)[key] = copy;
  }
  const failed = op.StepDetails?.FailedAttempts;
  if (failed && out.StepDetails) {
    out.StepDetails.FailedAttempts = await Promise.all(
      failed.map(async (attempt) => ({ ...attempt, Error: (await mapError(attempt.Error, f)) ?? attempt.Error })),
    );
  }
  return out;
}

/** The run fields that are payloads, passed through `f`. */
async function mapRun<T extends Partial<Pick<RunRecord, 'input' | 'result' | 'error'>>>(
  run: T,
  f: Transform,
): Promise<T> {
  const out = { ...run };
  // Only text is sealed: a patch's null (clear the field) passes as it is.
  if (typeof run.input === 'string') out.input = await f(run.input);
  if (typeof run.result === 'string') out.result = await f(run.result);
  if (run.error !== undefined) out.error = await mapError(run.error, f);
  return out;
}

/**
 * `store`, with every payload sealed by `codec` on the way in and opened on the way out. Methods
 * that carry no payload (leases aside, slots, gates, the due index, idempotency records) reach
 * `store` unchanged, and so do optional methods it has or lacks (a method it lacks stays absent).
 */
export function sealedStore(store: Store, codec: PayloadCodec): Store {
  const sealer =
    (runId: string): Transform =>
    (text) =>
      codec.seal(runId, text);
  const opener =
    (runId: string): Transform =>
    (text) =>
      codec.open(runId, text);
  const openRun = async (run: RunRecord | undefined) => (run ? mapRun(run, opener(run.runId)) : run);
  const openOps = (runId: string, ops: Operation[]) => Promise.all(ops.map((op) => mapOperation(op, opener(runId))));
  // The limit is on the payload as written: checked before sealing adds its overhead.
  const sealOps = (runId: string, ops: readonly Operation[]) => {
    for (const op of ops) checkOperationPayloads(op);
    return Promise.all(ops.map((op) => mapOperation(op, sealer(runId))));
  };
  const sealPatch = (runId: string, patch: RunPatch | undefined) => {
    if (patch) checkRunPayloads(patch);
    return patch ? mapRun(patch as Partial<RunRecord>, sealer(runId)).then((p) => p as RunPatch) : undefined;
  };

  const overrides: Partial<Store> = {
    async createRun(run, execution) {
      checkRunPayloads(run);
      checkOperationPayloads(execution);
      const [sealed, op] = await Promise.all([
        mapRun(run, sealer(run.runId)),
        mapOperation(execution, sealer(run.runId)),
      ]);
      const out = await store.createRun(sealed, op);
      return { created: out.created, run: (await openRun(out.run)) as RunRecord };
    },
    async getRun(runId) {
      return openRun(await store.getRun(runId));
    },
    async acquireLease(runId, now, leaseExpiresAt, leaseToken) {
      const grant = await store.acquireLease(runId, now, leaseExpiresAt, leaseToken);
      if (!grant) return grant;
      const replay = grant.replay;
      const opened: LeaseGrant = { ...grant, run: (await openRun(grant.run)) as RunRecord };
      if (replay) opened.replay = async () => openOps(runId, await replay());
      return opened;
    },
    async loadOperations(runId) {
      return openOps(runId, await store.loadOperations(runId));
    },
    async getOperation(runId, operationId) {
      const op = await store.getOperation(runId, operationId);
      return op ? mapOperation(op, opener(runId)) : op;
    },
    async listRuns(query) {
      const page: RunPage = await store.listRuns(query);
      return { ...page, runs: (await Promise.all(page.runs.map(openRun))) as RunRecord[] };
    },
    async reviseRun(runId, expectStatus, patch, operations, basedOn) {
      const [sealedPatch, ops] = await Promise.all([sealPatch(runId, patch), sealOps(runId, operations)]);
      return openRun(await store.reviseRun(runId, expectStatus, sealedPatch as RunPatch, ops, basedOn));
    },
    async writeOutsideEvent(runId, next, expected, event) {
      checkOperationPayloads(next);
      return store.writeOutsideEvent(runId, await mapOperation(next, sealer(runId)), expected, event);
    },
    async commit(runId, fence, write) {
      const [operations, run] = await Promise.all([sealOps(runId, write.operations), sealPatch(runId, write.run)]);
      // Everything else the write carries (a tag move's `tagged`) passes as it is.
      return store.commit(runId, fence, { ...write, operations, ...(run ? { run } : {}) });
    },
  };
  if (store.loadReplayOperations) {
    const load = store.loadReplayOperations.bind(store);
    overrides.loadReplayOperations = async (runId) => openOps(runId, await load(runId));
  }
  if (store.loadOperationPage) {
    const load = store.loadOperationPage.bind(store);
    overrides.loadOperationPage = async (runId, request) => {
      const page: OperationPage = await load(runId, request);
      return { ...page, operations: await openOps(runId, page.operations) };
    };
  }
  // Signals (`ctx.waitForSignal`): their payloads are sealed as the run's others are.
  if (store.appendSignal) {
    const append = store.appendSignal.bind(store);
    overrides.appendSignal = async (runId, send) => {
      const sealed =
        typeof send.payload === 'string' ? { ...send, payload: await codec.seal(runId, send.payload) } : send;
      const out = await append(runId, sealed);
      return out.kind === 'stored' ? { ...out, signal: await openSignal(out.signal) } : out;
    };
  }
  if (store.listSignals) {
    const list = store.listSignals.bind(store);
    overrides.listSignals = async (runId, createdAt) => Promise.all((await list(runId, createdAt)).map(openSignal));
  }
  async function openSignal(signal: SignalRecord): Promise<SignalRecord> {
    if (typeof signal.payload !== 'string') return signal;
    return { ...signal, payload: await codec.open(signal.runId, signal.payload) };
  }
  return new Proxy(store, {
    get(target, property, receiver) {
      if (Object.hasOwn(overrides, property)) return overrides[property as keyof Store];
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
