/**
 * The server side of a checkpoint, one update at a time: `applyUpdate` validates an update against
 * the operation it names and returns the operation as it must be stored. The checks every update
 * passes, the dispatch by type, and the WAIT and CONTEXT transitions are here; a STEP's in
 * `step-transition.ts`, a CALLBACK's and a CHAINED_INVOKE's in `callback-invoke-transitions.ts`,
 * what time does in `due-times.ts` (all re-exported here).
 */
import {
  isTerminal,
  type Operation,
  OperationAction,
  OperationType,
  type OperationUpdate,
} from '@durable-lambda/protocol';
import { applyCallback, applyChainedInvoke } from './callback-invoke-transitions';
import { applyStep } from './step-transition';
import { fresh, type IdIssuer, noIds, ONE_YEAR_MS, reject, type UpdateLimits } from './update-checks';

export { callbackTimeout, executedVersionOf } from './callback-invoke-transitions';
export { nextDue, settleDue } from './due-times';
export type { IdIssuer, UpdateLimits } from './update-checks';

const TYPES = new Set<string>(Object.values(OperationType));
const ACTIONS = new Set<string>(Object.values(OperationAction));

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
