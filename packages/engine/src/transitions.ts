import {
  CheckpointRejectedError,
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

function reject(update: { Id?: unknown }, message: string): never {
  throw new CheckpointRejectedError(`update of operation ${String(update.Id)}: ${message}`, String(update.Id));
}

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
): Operation {
  if (typeof update.Id !== 'string' || update.Id.length === 0 || update.Id.length > 512)
    reject(update, 'Id must be a string of 1-512 characters');
  if (!TYPES.has(update.Type)) reject(update, `unknown Type ${JSON.stringify(update.Type)}`);
  if (!ACTIONS.has(update.Action)) reject(update, `unknown Action ${JSON.stringify(update.Action)}`);
  if (update.Payload !== undefined && typeof update.Payload !== 'string') reject(update, 'Payload must be a string');
  if (update.Payload !== undefined && Buffer.byteLength(update.Payload, 'utf8') > limits.maxPayloadBytes) {
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
    case 'EXECUTION':
      return reject(update, 'the EXECUTION operation ends with the invocation, not by checkpoint');
    default:
      return reject(update, `${update.Type} operations are not supported by this engine version`);
  }
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
  switch (update.Action) {
    case 'START':
      op.Status = 'STARTED';
      op.StepDetails = { Attempt: attempt };
      return op;
    case 'SUCCEED':
      op.Status = 'SUCCEEDED';
      op.EndTimestamp = now;
      op.StepDetails = { Attempt: attempt, ...(update.Payload === undefined ? {} : { Result: update.Payload }) };
      return op;
    case 'FAIL':
      if (!update.Error) reject(update, 'FAIL needs an Error');
      op.Status = 'FAILED';
      op.EndTimestamp = now;
      op.StepDetails = { Attempt: attempt, Error: update.Error };
      return op;
    case 'RETRY': {
      const delay = update.StepOptions?.NextAttemptDelaySeconds;
      if (typeof delay !== 'number' || !Number.isFinite(delay) || delay < 0 || delay * 1000 > ONE_YEAR_MS) {
        reject(update, 'RETRY needs StepOptions.NextAttemptDelaySeconds between 0 and one year');
      }
      if (!update.Error) reject(update, 'RETRY needs an Error');
      op.Status = 'PENDING';
      op.StepDetails = { Attempt: attempt, NextAttemptTimestamp: now + Math.round(delay * 1000), Error: update.Error };
      return op;
    }
    default:
      return reject(update, `${update.Action} is not valid for a STEP`);
  }
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
 * The earliest time something of the run comes due: a wait's end or a retry's next attempt.
 * Undefined when nothing waits on time.
 */
export function nextDue(ops: Iterable<Operation>): number | undefined {
  let earliest: number | undefined;
  const consider = (t: number | undefined) => {
    if (t !== undefined && (earliest === undefined || t < earliest)) earliest = t;
  };
  for (const op of ops) {
    if (op.Type === 'WAIT' && op.Status === 'STARTED') consider(op.WaitDetails?.ScheduledEndTimestamp);
    else if (op.Type === 'STEP' && op.Status === 'PENDING') consider(op.StepDetails?.NextAttemptTimestamp);
    // A READY step is due already: its (past) next-attempt time says so.
    else if (op.Type === 'STEP' && op.Status === 'READY')
      consider(op.StepDetails?.NextAttemptTimestamp ?? op.StartTimestamp);
  }
  return earliest;
}
