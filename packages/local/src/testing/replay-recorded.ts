/**
 * Replays a handler against an exported run: the handler walks the recorded operations as an
 * invocation on Lambda would, and the first place its code asks for another operation than the
 * record holds is reported, naming both. Nothing is executed: a step body never runs (the record
 * has its result), and the replay stops where the code reaches work the record does not hold.
 */
import { createHash } from 'node:crypto';
import { functionBaseName } from '@durable-lambda/engine';
import {
  type DurableInvocation,
  FencedError,
  isTerminal,
  type LambdaContextLike,
  type Operation,
  type OperationUpdate,
} from '@durable-lambda/protocol';
import type { LogEntry } from '@durable-lambda/sdk';
import { parseRecordedRun, type RecordedRun } from './recorded-run';
import { type DriverHandler, runHandler } from './run-handler';

/** One operation as a replay report names it. */
export interface ReplayedOperation {
  id: string;
  type: string;
  name?: string;
  subType?: string;
  /** Its place in its context, 1-based (the 2nd operation of the root context is 2). */
  position: number;
  /** The context it belongs to: `root`, or the name (else id) of its context operation. */
  context: string;
  /** Its status in the record (recorded operations only). */
  status?: string;
}

/** Where the new code parts from the record. */
export interface ReplayDivergence {
  /** Always `non_deterministic`: the run could not replay on this code. */
  code: 'non_deterministic';
  /**
   * `type` / `name` / `subtype`: the code asked for another operation at a recorded position;
   * `unexpected`: the record ended (the run finished) and the code asked for one more;
   * `missing`: the code finished the run without reaching an operation the running run waits on.
   */
  kind: 'type' | 'name' | 'subtype' | 'unexpected' | 'missing';
  /** What the record holds at that position (absent for `unexpected`). */
  recorded?: ReplayedOperation;
  /** What the code asked for there (absent for `missing`; for a `type` mismatch of AWS's SDK, only its type may be known). */
  asked?: ReplayedOperation;
  /** One line naming both. */
  message: string;
}

/** What a replay of a recorded run found. */
export interface ReplayReport {
  runId: string;
  functionName: string;
  /** The recorded run's status. */
  recordedStatus: RecordedRun['run']['status'];
  /**
   * `clean`: the code replays the record; `non_deterministic`: it diverges (see `divergence`);
   * `failed`: the replay itself failed in another way (see `error`): the handler threw where the
   * recorded run did not fail, or the runtime faulted.
   */
  outcome: 'clean' | 'non_deterministic' | 'failed';
  /**
   * How far a clean replay went: `end` (the whole finished run, or the code finished as the record
   * did) or `frontier` (a run still in flight, up to where it stands: the next thing is new work).
   */
  reached?: 'end' | 'frontier';
  divergence?: ReplayDivergence;
  error?: { code: string; message: string };
  /** A finished run replayed to its end with another result than recorded (allowed: no history changes). */
  resultChanged?: boolean;
  /** Log entries the handler wrote while replaying. */
  logs: LogEntry[];
  /** One line for people. */
  summary: string;
}

/** Options of {@link replayRecordedRun}. */
export interface ReplayOptions {
  /** The function name the handler is told. Default: the recorded run's. */
  functionName?: string;
}

/** The run ends here in a replay of a finished run; only a status SUCCEEDED or FAILED counts as finished. */
const FINISHED = new Set(['SUCCEEDED', 'FAILED']);

/**
 * Replays `handler` against `recorded` (an exported-run file, its JSON text or parsed value,
 * validated first). A finished run (SUCCEEDED or FAILED) is replayed to its end; a run in flight
 * (or stopped from outside) up to where it stands.
 */
export async function replayRecordedRun(
  handler: DriverHandler,
  recorded: unknown,
  options: ReplayOptions = {},
): Promise<ReplayReport> {
  const file = parseRecordedRun(recorded);
  const ops = file.operations;
  const first = await replayOnce(handler, file, ops, options);
  const base = {
    runId: file.run.runId,
    functionName: file.run.functionName,
    recordedStatus: file.run.status,
    logs: first.logs,
  };
  const finished = FINISHED.has(file.run.status);
  const describe = describer(ops);

  if (first.kind === 'mismatch') {
    const id = storedId(first.id, ops);
    const recordedOp = ops.find((op) => op.Id === id);
    // Again without the record at that position: the code's START there says what it asked for.
    const without = ops.filter((op) => !isUnder(op, id, ops));
    const second = await replayOnce(handler, file, without, options);
    const startedThere = second.kind === 'new-work' ? second.updates.find((u) => u.Id === id) : undefined;
    const asked: ReplayedOperation = startedThere
      ? describe(startedThere)
      : describe({
          Id: id,
          Type: first.mismatch === 'type' ? first.got : (recordedOp?.Type ?? 'unknown'),
          // A type mismatch is found before the name is compared: the name asked for is unknown.
          ...(first.mismatch === 'name'
            ? { Name: first.got }
            : first.mismatch !== 'type' && recordedOp?.Name !== undefined
              ? { Name: recordedOp.Name }
              : {}),
          ...(first.mismatch === 'subtype' ? { SubType: first.got } : {}),
          ...(recordedOp?.ParentId === undefined ? {} : { ParentId: recordedOp.ParentId }),
        });
    const recordedRef = recordedOp ? describe(recordedOp) : undefined;
    return diverged(base, { kind: first.mismatch, asked, ...(recordedRef ? { recorded: recordedRef } : {}) });
  }
  const open = ops.find((op) => op.Type !== 'EXECUTION' && !isTerminal(op.Status) && !underFinished(op, ops));
  if (first.kind === 'new-work') {
    // Work on an operation the record left open (a step of a run that failed meanwhile) is not new.
    const beyond = first.updates.find((u) => !ops.some((op) => op.Id === u.Id));
    if (finished && beyond) return diverged(base, { kind: 'unexpected', asked: describe(beyond) });
    return clean(base, 'frontier', 'replays cleanly up to where the run stands');
  }
  if (first.kind === 'fault') return failed(base, 'replay_fault', first.message);
  if (first.kind === 'pending') {
    // A finished run may have left a wait or callback open (failed from outside while it waited).
    if (!finished || open) return clean(base, 'frontier', 'replays cleanly up to where the run stands');
    return failed(base, 'replay_pending', `the recorded run ${file.run.status}, but the code waits`);
  }
  // The code finished the run.
  if (finished) {
    if (first.status !== file.run.status) {
      return failed(
        base,
        'replay_outcome_changed',
        `the recorded run ${file.run.status}, the replay ${first.status}${first.error ? `: ${first.error}` : ''}`,
      );
    }
    const resultChanged = first.status === 'SUCCEEDED' && first.result !== file.run.result;
    return { ...clean(base, 'end', 'replays cleanly to its end'), ...(resultChanged ? { resultChanged } : {}) };
  }
  if (open) return diverged(base, { kind: 'missing', recorded: describe(open) });
  return clean(base, 'end', 'replays cleanly: the code finishes where the record ends');
}

type Base = Pick<ReplayReport, 'runId' | 'functionName' | 'recordedStatus' | 'logs'>;

function clean(base: Base, reached: 'end' | 'frontier', what: string): ReplayReport {
  return { ...base, outcome: 'clean', reached, summary: `run ${base.runId}: ${what}` };
}

function failed(base: Base, code: string, message: string): ReplayReport {
  return {
    ...base,
    outcome: 'failed',
    error: { code, message },
    summary: `run ${base.runId}: replay failed [${code}]: ${message}`,
  };
}

function diverged(base: Base, found: Omit<ReplayDivergence, 'code' | 'message'>): ReplayReport {
  const show = (op: ReplayedOperation) =>
    // A SubType that only repeats the type (a step's `Step`) says nothing.
    `${op.type}${op.subType && op.subType.toUpperCase() !== op.type ? `/${op.subType}` : ''} ${op.name === undefined ? '(unnamed)' : JSON.stringify(op.name)}`;
  const at = found.recorded ?? found.asked;
  const where = at
    ? `position ${at.position} of the ${at.context === 'root' ? 'root context' : `context ${at.context}`} (id ${at.id})`
    : '';
  const message =
    found.kind === 'unexpected'
      ? `at ${where}: the record has nothing (the run ended there), the code asked for ${show(found.asked as ReplayedOperation)}`
      : found.kind === 'missing'
        ? `at ${where}: the record has ${show(found.recorded as ReplayedOperation)} (${found.recorded?.status}), the code finished the run without asking for it`
        : `at ${where}: the record has ${found.recorded ? show(found.recorded) : '(unknown)'}, the code asked for ${show(found.asked as ReplayedOperation)} (${found.kind} differs)`;
  const divergence: ReplayDivergence = { code: 'non_deterministic', ...found, message };
  return {
    ...base,
    outcome: 'non_deterministic',
    divergence,
    summary: `run ${base.runId}: non_deterministic ${message}`,
  };
}

/** How one replay invocation ended. */
type Pass =
  | { kind: 'mismatch'; id: string; mismatch: 'type' | 'name' | 'subtype'; got: string; logs: LogEntry[] }
  | { kind: 'new-work'; updates: OperationUpdate[]; logs: LogEntry[] }
  | { kind: 'pending'; logs: LogEntry[] }
  | { kind: 'fault'; message: string; logs: LogEntry[] }
  | { kind: 'ended'; status: string; result?: string; error?: string; logs: LogEntry[] };

const MISMATCH =
  /Non-deterministic execution detected: Operation (type|name|subtype) mismatch for step "(.+?)"\. Expected \1 "(.*)", but got "(.*)"\./s;

/** The Lambda context of a replay of a run recorded as `recorded` (`orders`, `orders:7`, `orders:live`). */
function lambdaContextOf(recorded: string, awsRequestId: string): LambdaContextLike {
  const functionName = functionBaseName(recorded);
  const qualifier = recorded.slice(functionName.length + 1);
  return { functionName, awsRequestId, ...(/^\d+$/.test(qualifier) ? { functionVersion: qualifier } : {}) };
}

/** One invocation over `operations`, stopped at the first checkpoint of new work. */
async function replayOnce(
  handler: DriverHandler,
  file: RecordedRun,
  operations: readonly Operation[],
  options: ReplayOptions,
): Promise<Pass> {
  const logs: LogEntry[] = [];
  let newWork: OperationUpdate[] | undefined;
  // The recorded run's own time: waits and backoffs it had pending are not yet due.
  const now = file.run.endedAt ?? file.run.updatedAt;
  const invocation: DurableInvocation = {
    runId: file.run.runId,
    functionName: options.functionName ?? file.run.functionName,
    input: file.run.input,
    operations: operations.map((op) => structuredClone(op)),
    previousInvocationLost: false,
    lostInvocations: 0,
    now: () => now,
    remainingTimeMs: () => 0,
    checkpoint: async (updates) => {
      // A patch marker is bookkeeping, not work: accept it, so the replay goes on past it.
      if (updates.every(isPatchMarker)) return updates.map((u) => markerOf(u, now));
      newWork = [...(newWork ?? []), ...updates.filter((u) => !isPatchMarker(u))];
      throw new FencedError('replay: the code reached work the record does not hold');
    },
    refresh: async () => invocation.operations,
    // A replay stores nothing: what the handler publishes (`ctx.publish`) is dropped, not refused.
    publish: () => {},
    // Likewise its tags (`ctx.tag`).
    tag: () => {},
  };
  // As Lambda tells a run pinned to `orders:7`: the function `orders`, its code version `7`.
  const lambda = lambdaContextOf(invocation.functionName, `replay-${file.run.runId}`);
  const result = await runHandler({ kind: 'durable', handler }, invocation, lambda, {
    inProcessWaitMs: 0,
    logSink: (entry: LogEntry) => void logs.push(entry),
  });
  if (newWork) return { kind: 'new-work', updates: newWork, logs };
  if (result.type === 'fenced') return { kind: 'new-work', updates: [], logs };
  if (result.type === 'fault') {
    const error = result.error;
    return { kind: 'fault', message: error instanceof Error ? error.message : String(error), logs };
  }
  const output = result.output;
  const message = output.Error?.ErrorMessage ?? '';
  const found = output.Status === 'FAILED' ? MISMATCH.exec(message) : null;
  if (found) {
    return { kind: 'mismatch', mismatch: found[1] as 'type', id: found[2] as string, got: found[4] as string, logs };
  }
  if (output.Status === 'PENDING') return { kind: 'pending', logs };
  return {
    kind: 'ended',
    status: output.Status,
    ...(output.Result === undefined ? {} : { result: output.Result }),
    ...(output.Error ? { error: `${output.Error.ErrorType ?? 'Error'}: ${message}` } : {}),
    logs,
  };
}

/**
 * The stored id of the operation a mismatch message names: ours name it as stored; AWS's SDK
 * names its step counter ("3", "2-1") and stores the first 16 hex digits of its MD5.
 */
function storedId(named: string, ops: readonly Operation[]): string {
  if (ops.some((op) => op.Id === named)) return named;
  const hashed = createHash('md5').update(named).digest('hex').slice(0, 16);
  return ops.some((op) => op.Id === hashed) ? hashed : named;
}

function isPatchMarker(update: OperationUpdate): boolean {
  return update.Type === 'STEP' && update.SubType === 'Patch' && update.Action === 'SUCCEED';
}

function markerOf(update: OperationUpdate, now: number): Operation {
  return {
    Id: update.Id,
    Type: 'STEP',
    SubType: update.SubType,
    Status: 'SUCCEEDED',
    StartTimestamp: now,
    EndTimestamp: now,
    ...(update.Name === undefined ? {} : { Name: update.Name }),
    ...(update.ParentId === undefined ? {} : { ParentId: update.ParentId }),
  } as Operation;
}

/** `op` is the operation `id` or lies inside it. */
function isUnder(op: Operation, id: string, ops: readonly Operation[]): boolean {
  const byId = new Map(ops.map((o) => [o.Id, o]));
  for (let at: Operation | undefined = op; at; at = at.ParentId ? byId.get(at.ParentId) : undefined) {
    if (at.Id === id) return true;
  }
  return false;
}

/** A finished context lies above `op`: no replay walks it again. */
function underFinished(op: Operation, ops: readonly Operation[]): boolean {
  const byId = new Map(ops.map((o) => [o.Id, o]));
  for (let p = op.ParentId ? byId.get(op.ParentId) : undefined; p; p = p.ParentId ? byId.get(p.ParentId) : undefined) {
    if (p.Type === 'CONTEXT' && isTerminal(p.Status)) return true;
  }
  return false;
}

type Described = Pick<Operation, 'Id' | 'Name' | 'SubType' | 'ParentId'> & { Type: string; Status?: string };

/** Names operations (recorded ones, or what the code asked for) with their position in the record's terms. */
function describer(ops: readonly Operation[]): (op: Described | OperationUpdate) => ReplayedOperation {
  const byId = new Map(ops.map((o) => [o.Id, o]));
  return (op) => {
    const parentId = op.ParentId;
    const parent = parentId === undefined ? undefined : byId.get(parentId);
    const siblings = ops.filter((o) => o.Type !== 'EXECUTION' && o.ParentId === parentId);
    const index = siblings.findIndex((o) => o.Id === op.Id);
    // Our ids count per context ("3-2" is the 2nd inside "3"); AWS's are hashed: then the record's order.
    const local =
      parentId === undefined ? op.Id : op.Id.startsWith(`${parentId}-`) ? op.Id.slice(parentId.length + 1) : '';
    const position = /^\d+$/.test(local) ? Number(local) : index >= 0 ? index + 1 : siblings.length + 1;
    const status = 'Status' in op && typeof op.Status === 'string' && byId.has(op.Id) ? op.Status : undefined;
    return {
      id: op.Id,
      type: String(op.Type),
      ...(op.Name === undefined ? {} : { name: op.Name }),
      ...(op.SubType === undefined ? {} : { subType: op.SubType }),
      position,
      context: parentId === undefined ? 'root' : parent?.Name !== undefined ? JSON.stringify(parent.Name) : parentId,
      ...(status === undefined ? {} : { status }),
    };
  };
}
