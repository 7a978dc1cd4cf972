/**
 * What every operation's transition shares: the limits and id issuer the engine applies updates
 * with, the refusal of an update, the check of a duration, and a newly started operation. A leaf,
 * so the transitions of each operation type (`transitions.ts`, `step-transition.ts`,
 * `callback-invoke-transitions.ts`) all use it without importing one another.
 */
import { CheckpointRejectedError, type Operation, type OperationUpdate } from '@durable-lambda/protocol';

/** The longest wait, timeout or heartbeat an update may ask for, ms. */
export const ONE_YEAR_MS = 365 * 86_400_000;

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

/** The issuer of a caller that issues no ids (an update needing one is refused). */
export const noIds: IdIssuer = {
  callbackId: () => {
    throw new Error('no callback ids can be issued here');
  },
  childRunId: () => {
    throw new Error('no child runs can be started here');
  },
};

/** Refuses `update` with `message` (`CheckpointRejectedError`). */
export function reject(update: { Id?: unknown }, message: string): never {
  throw new CheckpointRejectedError(`update of operation ${String(update.Id)}: ${message}`, String(update.Id));
}

/** A duration in seconds checked (above 0, at most a year) and turned into whole ms, at least 1. */
export function positiveSeconds(update: OperationUpdate, value: unknown, field: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value * 1000 > ONE_YEAR_MS) {
    reject(update, `${field} must be above 0 and at most one year`);
  }
  return Math.max(1, Math.round(value * 1000));
}

/** The operation `update` starts, with the fields every type shares. */
export function fresh(update: OperationUpdate, now: number): Operation {
  const op: Operation = { Id: update.Id, Type: update.Type, Status: 'STARTED', StartTimestamp: now };
  if (update.Name !== undefined) op.Name = update.Name;
  if (update.ParentId !== undefined) op.ParentId = update.ParentId;
  if (update.SubType !== undefined) op.SubType = update.SubType;
  return op;
}
