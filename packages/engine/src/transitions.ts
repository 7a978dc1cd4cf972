import {
  CheckpointRejectedError,
  type ErrorObject,
  type FailedAttempt,
  isTerminal,
  type Operation,
  OperationAction,
  OperationType,
  type OperationUpdate,
} from '@durable-lambda/protocol';

const ONE_YEAR_MS = 365 * 86_400_000;
const TYPES = new Set<string>(Object.values(OperationType));
const ACTIONS = new Set<string>(Object.values(OperationAction));

/** Limits the engine enforces on updates. */
export interface UpdateLimits {
  /** Largest payload or error, in bytes. */
  maxPayloadBytes: number;
}

/** Ids the engine issues while applying updates. */
export interface IdIssuer {
  /** A new unguessable callback id for the callback operation `operationId`. */
  callbackId(operationId: string): string;
  /** The run id of the child run a chained invoke at `operationId` starts. */
  childRunId(operationId: string): string;
}

const noIds: IdIssuer = {
  callbackId: () => {
    throw new Error('no callback ids can be issued here');
  },
  childRunId: () => {
    throw new Error('no child runs can be started here');
  },
};

function reject(update: { Id?: unknown }, message: string): never {
  throw new CheckpointRejectedError(`update of operation ${String(update.Id)}: ${message}`, String(update.Id));
}

/** The longest operation id, bytes of UTF-8 (see `applyUpdate`). */
const MAX_ID_BYTES = 1000;

/**
 * Validates one update against the operation it names (undefined when new) and returns the
 * operation as it must be stored. Time-driven changes (a wait coming due, a retry becoming
 * ready) must have been applied to `current` first, with {@link settleDue}.
 */
export function applyUpdate(
  current: Operation | undefined,
  update: OperationUpdate,
  now: number,
  parentExists: (id: string) => boolean,
  limits: UpdateLimits,
  ids: IdIssuer = noIds,
): Operation {
  if (typeof update.Id !== 'string' || update.Id.length === 0 || update.Id.length > 512)
    reject(update, 'Id must be a string of 1-512 characters');
  // And at most 1,000 bytes: a store keys operations by id (DynamoDB's sort key holds 1,024 bytes).
  // Only a long id can pass it (a UTF-16 code unit is at most 3 bytes): short ones are not measured.
  if (update.Id.length > 333 && Buffer.byteLength(update.Id, 'utf8') > MAX_ID_BYTES)
    reject(update, `Id must be at most ${MAX_ID_BYTES} bytes of UTF-8`);
  if (!TYPES.has(update.Type)) reject(update, `unknown Type ${JSON.stringify(update.Type)}`);
  if (!ACTIONS.has(update.Action)) reject(update, `unknown Action ${JSON.stringify(update.Action)}`);
  if (update.Payload !== undefined && typeof update.Payload !== 'string') reject(update, 'Payload must be a string');
  // A UTF-16 code unit is at most 3 bytes of UTF-8: a short payload is not measured (hot path).
  if (
    update.Payload !== undefined &&
    update.Payload.length * 3 > limits.maxPayloadBytes &&
    Buffer.byteLength(update.Payload, 'utf8') > limits.maxPayloadBytes
  ) {
    reject(update, `payload over ${limits.maxPayloadBytes} bytes (payload_too_large)`);
  }
  if (update.Error !== undefined && Buffer.byteLength(JSON.stringify(update.Error), 'utf8') > limits.maxPayloadBytes) {
    reject(update, `error over ${limits.maxPayloadBytes} bytes (payload_too_large)`);
  }
  if (current) {
    if (current.Type !== update.Type) reject(update, `is a ${current.Type}, the update says ${update.Type}`);
    if (update.Name !== undefined && current.Name !== update.Name) {
      reject(update, `is named ${JSON.stringify(current.Name)}, the update says ${JSON.stringify(update.Name)}`);
    }
    if (isTerminal(current.Status)) reject(update, `is already ${current.Status}`);
    if (update.ParentId !== undefined && current.ParentId !== update.ParentId) {
      reject(
        update,
        `has parent ${JSON.stringify(current.ParentId)}, the update says ${JSON.stringify(update.ParentId)}`,
      );
    }
  } else if (update.ParentId !== undefined && !parentExists(update.ParentId)) {
    reject(update, `parent ${update.ParentId} does not exist`);
  }
  switch (update.Type) {
    case 'STEP':
      return applyStep(current, update, now);
    case 'WAIT':
      return applyWait(current, update, now);
    case 'CONTEXT':
      return applyContext(current, update, now);
    case 'CALLBACK':
      return applyCallback(current, update, now, ids);
    case 'CHAINED_INVOKE':
      return applyChainedInvoke(current, update, now, ids);
    default:
      return reject(update, 'the EXECUTION operation ends with the invocation, not by checkpoint');
  }
}

function positiveSeconds(update: OperationUpdate, value: unknown, field: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value * 1000 > ONE_YEAR_MS) {
    reject(update, `${field} must be above 0 and at most one year`);
  }
  return Math.max(1, Math.round(value * 1000));
}

function applyCallback(current: Operation | undefined, update: OperationUpdate, now: number, ids: IdIssuer): Operation {
  if (update.Action !== 'START') {
    return reject(
      update,
      `${update.Action} is not valid for a CALLBACK from the handler (callbacks complete from outside)`,
    );
  }
  if (current) reject(update, 'the callback is already started');
  const timeoutMs = positiveSeconds(update, update.CallbackOptions?.TimeoutSeconds, 'CallbackOptions.TimeoutSeconds');
  const heartbeatMs = positiveSeconds(
    update,
    update.CallbackOptions?.HeartbeatTimeoutSeconds,
    'CallbackOptions.HeartbeatTimeoutSeconds',
  );
  return {
    ...fresh(update, now),
    CallbackDetails: {
      CallbackId: ids.callbackId(update.Id),
      ...(timeoutMs === undefined ? {} : { TimeoutTimestamp: now + timeoutMs }),
      ...(heartbeatMs === undefined
        ? {}
        : { HeartbeatTimeoutSeconds: heartbeatMs / 1000, HeartbeatDeadline: now + heartbeatMs }),
    },
  };
}

function applyChainedInvoke(
  current: Operation | undefined,
  update: OperationUpdate,
  now: number,
  ids: IdIssuer,
): Operation {
  if (update.Action !== 'START') {
    return reject(
      update,
      `${update.Action} is not valid for a CHAINED_INVOKE from the handler (the child run completes it)`,
    );
  }
  if (current) reject(update, 'the invoke is already started');
  const functionName = update.ChainedInvokeOptions?.FunctionName;
  if (typeof functionName !== 'string' || functionName.length === 0 || functionName.length > 256) {
    reject(update, 'START needs ChainedInvokeOptions.FunctionName (1-256 characters)');
  }
  const tenantId = update.ChainedInvokeOptions?.TenantId;
  const executed = executedVersionOf(functionName as string);
  return {
    ...fresh(update, now),
    ChainedInvokeDetails: {
      FunctionName: functionName,
      ChildRunId: ids.childRunId(update.Id),
      ...(update.Payload === undefined ? {} : { Input: update.Payload }),
      ...(tenantId === undefined ? {} : { TenantId: tenantId }),
      ...(executed === undefined ? {} : { ExecutedVersion: executed }),
    },
  };
}

/**
 * The version a child run of `functionName` executes, as Lambda's `ExecutedVersion`: a version
 * number or `$LATEST` as qualified, `$LATEST` unqualified; undefined for an alias (its version is
 * known only once the child runs).
 */
export function executedVersionOf(functionName: string): string | undefined {
  // `name[:qualifier]`, or `arn:aws:lambda:<region>:<account>:function:<name>[:<qualifier>]`.
  const parts = functionName.split(':');
  const qualifier = functionName.startsWith('arn:') ? parts[7] : parts[1];
  if (qualifier === undefined) return '$LATEST';
  return /^(\d+|\$LATEST)$/.test(qualifier) ? qualifier : undefined;
}

/**
 * A callback whose timeout or heartbeat deadline has passed, as TIMED_OUT; otherwise undefined.
 * Kept apart from {@link settleDue}: a callback is also written by outside callers, so its
 * timeout is stored only by a conditional outside write, never carried by a session commit.
 */
export function callbackTimeout(op: Operation, now: number): Operation | undefined {
  if (op.Type !== 'CALLBACK' || op.Status !== 'STARTED') return undefined;
  const d = op.CallbackDetails;
  const heartbeat = d?.HeartbeatDeadline !== undefined && d.HeartbeatDeadline <= now;
  const overall = d?.TimeoutTimestamp !== undefined && d.TimeoutTimestamp <= now;
  if (!heartbeat && !overall) return undefined;
  const end = Math.min(heartbeat ? (d?.HeartbeatDeadline ?? now) : now, overall ? (d?.TimeoutTimestamp ?? now) : now);
  // AWS's service's error types (`Callback.Timeout`, `Callback.Heartbeat`: the conformance
  // requirements' CallbackTimedOut events carry them) with the messages of AWS's local runner,
  // which stores no type; our stable code rides along.
  const overallFirst = overall && (!heartbeat || (d?.TimeoutTimestamp ?? now) <= (d?.HeartbeatDeadline ?? now));
  const message = overallFirst ? 'Callback timed out' : 'Callback timed out on heartbeat';
  const type = overallFirst ? 'Callback.Timeout' : 'Callback.Heartbeat';
  return {
    ...op,
    Status: 'TIMED_OUT',
    EndTimestamp: end,
    CallbackDetails: {
      ...(d as NonNullable<Operation['CallbackDetails']>),
      Error: { ErrorType: type, ErrorMessage: message, ErrorCode: 'callback_timeout' },
    },
  };
}

function fresh(update: OperationUpdate, now: number): Operation {
  const op: Operation = { Id: update.Id, Type: update.Type, Status: 'STARTED', StartTimestamp: now };
  if (update.Name !== undefined) op.Name = update.Name;
  if (update.ParentId !== undefined) op.ParentId = update.ParentId;
  if (update.SubType !== undefined) op.SubType = update.SubType;
  return op;
}

function applyStep(current: Operation | undefined, update: OperationUpdate, now: number): Operation {
  if (current?.Status === 'PENDING') {
    reject(
      update,
      `next attempt is not due until ${new Date(current.StepDetails?.NextAttemptTimestamp ?? 0).toISOString()}`,
    );
  }
  // An update to a step not STARTED opens a new attempt: a START, or an outcome written without
  // its START (an at-least-once step that finished before its START was due).
  const opensAttempt = current === undefined || current.Status === 'READY';
  if (!opensAttempt && update.Action === 'START')
    reject(update, `attempt ${current?.StepDetails?.Attempt} is already started`);
  const op: Operation = current ? { ...current } : fresh(update, now);
  const previous = current?.StepDetails;
  const attempt = opensAttempt ? (previous?.Attempt ?? 0) + 1 : (previous?.Attempt ?? 1);
  // The failed-attempt history, and (as AWS's service keeps it) the last retry's scheduled time;
  // undefined for a step that never failed (most: nothing is built for them, the hot path).
  const history =
    previous?.NextAttemptTimestamp === undefined && !previous?.FailedAttempts
      ? undefined
      : {
          ...(previous.NextAttemptTimestamp === undefined
            ? {}
            : { NextAttemptTimestamp: previous.NextAttemptTimestamp }),
          ...(previous.FailedAttempts ? { FailedAttempts: previous.FailedAttempts } : {}),
        };
  const failed = (error: ErrorObject, state?: string) => ({
    FailedAttempts: recordFailure(previous?.FailedAttempts, attempt, now, error, state),
  });
  switch (update.Action) {
    case 'START':
      op.Status = 'STARTED';
      op.StepDetails = history ? { Attempt: attempt, ...history } : { Attempt: attempt };
      return op;
    case 'SUCCEED': {
      op.Status = 'SUCCEEDED';
      op.EndTimestamp = now;
      const details =
        update.Payload === undefined ? { Attempt: attempt } : { Attempt: attempt, Result: update.Payload };
      op.StepDetails = history ? { ...details, ...history } : details;
      return op;
    }
    case 'FAIL':
      if (!update.Error) reject(update, 'FAIL needs an Error');
      op.Status = 'FAILED';
      op.EndTimestamp = now;
      op.StepDetails = {
        Attempt: attempt,
        Error: update.Error,
        // The last state a waitForCondition stored stays with it: a retried run resumes from it.
        ...(update.Payload !== undefined
          ? { Result: update.Payload }
          : previous?.Result === undefined
            ? {}
            : { Result: previous.Result }),
        ...(previous?.NextAttemptTimestamp === undefined
          ? {}
          : { NextAttemptTimestamp: previous.NextAttemptTimestamp }),
        ...failed(update.Error as ErrorObject),
      };
      return op;
    case 'RETRY': {
      const delay = update.StepOptions?.NextAttemptDelaySeconds;
      if (typeof delay !== 'number' || !Number.isFinite(delay) || delay < 0 || delay * 1000 > ONE_YEAR_MS) {
        reject(update, 'RETRY needs StepOptions.NextAttemptDelaySeconds between 0 and one year');
      }
      if (!update.Error) reject(update, 'RETRY needs an Error');
      op.Status = 'PENDING';
      // A RETRY may carry a payload: the state a waitForCondition polls with.
      op.StepDetails = {
        Attempt: attempt,
        NextAttemptTimestamp: now + Math.round(delay * 1000),
        Error: update.Error,
        ...(update.Payload === undefined ? {} : { Result: update.Payload }),
        ...failed(update.Error as ErrorObject, update.Payload),
      };
      return op;
    }
    default:
      return reject(update, `${update.Action} is not valid for a STEP`);
  }
}

const MAX_FAILED_ATTEMPTS = 100;

/** A check's state kept in its attempt's history entry when at most this long (characters). */
const MAX_ATTEMPT_STATE = 1024;

/**
 * The step's failed-attempt history with one more entry, trimmed to the last 100. A RETRY's
 * payload (a waitForCondition check's state) is kept with it when small, so the history shows
 * each check's state (AWS's conformance 6-1), not only the latest.
 */
function recordFailure(
  past: FailedAttempt[] | undefined,
  attempt: number,
  now: number,
  error: ErrorObject,
  state?: string,
): FailedAttempt[] {
  const entry: FailedAttempt = {
    Attempt: attempt,
    Timestamp: now,
    Error: {
      ...(error.ErrorType === undefined ? {} : { ErrorType: error.ErrorType }),
      ...(error.ErrorMessage === undefined ? {} : { ErrorMessage: error.ErrorMessage.slice(0, 1024) }),
      ...(error.ErrorCode === undefined ? {} : { ErrorCode: error.ErrorCode }),
    },
  };
  if (state !== undefined && state.length <= MAX_ATTEMPT_STATE) entry.State = state;
  return [...(past ?? []), entry].slice(-MAX_FAILED_ATTEMPTS);
}

function applyWait(current: Operation | undefined, update: OperationUpdate, now: number): Operation {
  switch (update.Action) {
    case 'START': {
      if (current) reject(update, 'the wait is already started');
      const seconds = update.WaitOptions?.WaitSeconds;
      if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0 || seconds * 1000 > ONE_YEAR_MS) {
        reject(update, 'START needs WaitOptions.WaitSeconds above 0 and at most one year');
      }
      // At least 1 ms, so a wait never ends the moment it starts.
      return {
        ...fresh(update, now),
        WaitDetails: { ScheduledEndTimestamp: now + Math.max(1, Math.round(seconds * 1000)) },
      };
    }
    case 'CANCEL':
      if (!current) reject(update, 'cannot cancel a wait that never started');
      return { ...current, Status: 'CANCELLED', EndTimestamp: now };
    default:
      return reject(update, `${update.Action} is not valid for a WAIT (waits complete on the engine's clock)`);
  }
}

function applyContext(current: Operation | undefined, update: OperationUpdate, now: number): Operation {
  const op: Operation = current ? { ...current } : fresh(update, now);
  switch (update.Action) {
    case 'START':
      if (current) reject(update, 'the context is already started');
      return op;
    case 'SUCCEED':
      return {
        ...op,
        Status: 'SUCCEEDED',
        EndTimestamp: now,
        ContextDetails: {
          ...(update.Payload === undefined ? {} : { Result: update.Payload }),
          ...replayChildren(update),
        },
      };
    case 'FAIL':
      if (!update.Error) reject(update, 'FAIL needs an Error');
      return {
        ...op,
        Status: 'FAILED',
        EndTimestamp: now,
        ContextDetails: { Error: update.Error, ...replayChildren(update) },
      };
    default:
      return reject(update, `${update.Action} is not valid for a CONTEXT`);
  }
}

function replayChildren(update: OperationUpdate): { ReplayChildren?: boolean } {
  const flag = update.ContextOptions?.ReplayChildren;
  return flag === undefined ? {} : { ReplayChildren: flag };
}

/**
 * Applies what time alone changes: a wait whose end has passed succeeds, a step whose next
 * attempt is due becomes READY. Returns the changed operation, or undefined.
 */
export function settleDue(op: Operation, now: number): Operation | undefined {
  if (op.Type === 'WAIT' && op.Status === 'STARTED') {
    const end = op.WaitDetails?.ScheduledEndTimestamp;
    if (end !== undefined && end <= now) return { ...op, Status: 'SUCCEEDED', EndTimestamp: end };
  }
  if (op.Type === 'STEP' && op.Status === 'PENDING') {
    const next = op.StepDetails?.NextAttemptTimestamp;
    if (next !== undefined && next <= now) return { ...op, Status: 'READY' };
  }
  return undefined;
}

/**
 * The earliest time something of the run comes due: a wait's end, a retry's next attempt, a
 * callback's deadline. Undefined when nothing waits on time. Operations under a finished context
 * (the loser of a race, a map item after the map completed) are abandoned: no replay ever reaches
 * them again, so they never make the run due.
 */
export function nextDue(operations: ReadonlyMap<string, Operation> | Iterable<Operation>): number | undefined {
  const ops: ReadonlyMap<string, Operation> =
    operations instanceof Map
      ? operations
      : new Map([...(operations as Iterable<Operation>)].map((op) => [op.Id, op] as const));
  let earliest: number | undefined;
  const abandoned = abandonedCheck(ops);
  const consider = (op: Operation, t: number | undefined) => {
    if (t !== undefined && (earliest === undefined || t < earliest) && !abandoned(op)) earliest = t;
  };
  for (const op of ops.values()) {
    if (op.Type === 'WAIT' && op.Status === 'STARTED') consider(op, op.WaitDetails?.ScheduledEndTimestamp);
    else if (op.Type === 'STEP' && op.Status === 'PENDING') consider(op, op.StepDetails?.NextAttemptTimestamp);
    else if (op.Type === 'CALLBACK' && op.Status === 'STARTED') {
      consider(op, op.CallbackDetails?.TimeoutTimestamp);
      consider(op, op.CallbackDetails?.HeartbeatDeadline);
    }
    // A READY step is due already: its (past) next-attempt time says so.
    else if (op.Type === 'STEP' && op.Status === 'READY')
      consider(op, op.StepDetails?.NextAttemptTimestamp ?? op.StartTimestamp);
  }
  return earliest;
}

/** Whether an operation has a finished context among its ancestors (memoized per parent). */
function abandonedCheck(ops: ReadonlyMap<string, Operation>): (op: Operation) => boolean {
  const memo = new Map<string, boolean>();
  const underFinished = (parentId: string | undefined): boolean => {
    if (parentId === undefined) return false;
    const known = memo.get(parentId);
    if (known !== undefined) return known;
    const parent = ops.get(parentId);
    const result = parent !== undefined && (isTerminal(parent.Status) || underFinished(parent.ParentId));
    memo.set(parentId, result);
    return result;
  };
  return (op) => underFinished(op.ParentId);
}
