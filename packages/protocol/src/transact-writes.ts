/**
 * Writes a transactional step makes to the user's own DynamoDB tables (`step(name, fn, { transact:
 * true })`): DynamoDB TransactWriteItems entries with plain JS values (as `@aws-sdk/lib-dynamodb`
 * takes them). They ride on the step's SUCCEED update and are committed in the same transaction as
 * the step's outcome: both are stored, or neither. Shared by the sdk (which collects and checks
 * them before anything is sent) and the engine and its stores (which check them again and apply them).
 */
import { DurableProtocolError } from './errors';

/** Plain JS attribute values, marshalled the way lib-dynamodb marshals them. */
export type TransactItem = Record<string, unknown>;

/** The expression parts every entry may carry. */
export interface TransactExpressionParts {
  /** A condition that must hold for the whole transaction to commit. */
  ConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
}

/** A `Put`: writes the whole item. */
export interface TransactPut extends TransactExpressionParts {
  TableName: string;
  Item: TransactItem;
}

/** An `Update` of the item at `Key` (created when absent, as DynamoDB does). */
export interface TransactUpdate extends TransactExpressionParts {
  TableName: string;
  Key: TransactItem;
  UpdateExpression: string;
}

/** A `Delete` of the item at `Key`. */
export interface TransactDelete extends TransactExpressionParts {
  TableName: string;
  Key: TransactItem;
}

/** A `ConditionCheck` of the item at `Key`: writes nothing, only its condition must hold. */
export interface TransactConditionCheck extends TransactExpressionParts {
  TableName: string;
  Key: TransactItem;
  ConditionExpression: string;
}

/** One write of a transactional step, in TransactWriteItems' shape. */
export type TransactWrite =
  | { Put: TransactPut }
  | { Update: TransactUpdate }
  | { Delete: TransactDelete }
  | { ConditionCheck: TransactConditionCheck };

/** The kind of a {@link TransactWrite}: its one key. */
export type TransactWriteKind = 'Put' | 'Update' | 'Delete' | 'ConditionCheck';

/**
 * User writes per step outcome: DynamoDB's 100 items per transaction, less one for the run item
 * the checkpoint updates in the same transaction.
 */
export const MAX_TRANSACT_WRITES = 99;

/**
 * Bytes of user writes per step outcome (their JSON, a close estimate of DynamoDB's item sizes):
 * DynamoDB's 4 MB per transaction, less room for the checkpoint's own run item and operations.
 */
export const MAX_TRANSACT_BYTES = 3_000_000;

/** Why a transaction was refused before anything was written: a stable reason. */
export type TransactRejection =
  | 'invalid_write'
  | 'too_many_writes'
  | 'writes_too_large'
  | 'unknown_table'
  | 'unsupported_expression';

/**
 * A transactional step's user condition failed: DynamoDB (or the local store) cancelled the
 * transaction, so neither the step's outcome nor any of its writes was stored. Thrown into the
 * step's attempt, which fails with it and goes through the step's retry policy like any failure.
 * Code `transact_condition_failed`.
 */
export class TransactConditionFailedError extends DurableProtocolError<'transact_condition_failed'> {
  /** Stable code. */
  readonly code = 'transact_condition_failed';
  constructor(
    /** The step whose outcome carried the writes. */
    readonly operationId: string,
    /** Which of the step's writes failed its condition (0-based, in the order collected). */
    readonly writeIndex: number,
    /** That write's kind and table. */
    readonly write: { kind: TransactWriteKind; tableName: string },
  ) {
    super(
      `transactional write ${writeIndex} (${write.kind} on table ${write.tableName}) of step ${operationId}: ` +
        'its condition failed; neither the step nor any of its writes was stored',
    );
    this.name = 'TransactConditionFailedError';
  }
}

/**
 * A transactional step's writes were refused before anything was sent: a malformed write, past
 * DynamoDB's limits, a table or expression the local store cannot emulate. `field` names what
 * (`transactWrites[3].Update.UpdateExpression`), `reason` why. Code `transact_rejected`.
 */
export class TransactRejectedError extends DurableProtocolError<'transact_rejected'> {
  /** Stable code. */
  readonly code = 'transact_rejected';
  constructor(
    /** Why: a stable reason. */
    readonly reason: TransactRejection,
    /** The field at fault. */
    readonly field: string,
    message: string,
    /** The step whose outcome carried the writes, when known. */
    readonly operationId?: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'TransactRejectedError';
  }
}

/** The kind of a write and its body. */
export function transactEntry(
  write: TransactWrite,
): [TransactWriteKind, TransactPut | TransactUpdate | TransactDelete] {
  if ('Put' in write) return ['Put', write.Put];
  if ('Update' in write) return ['Update', write.Update];
  if ('Delete' in write) return ['Delete', write.Delete];
  return ['ConditionCheck', write.ConditionCheck];
}

const KINDS: readonly TransactWriteKind[] = ['Put', 'Update', 'Delete', 'ConditionCheck'];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks writes' shapes and DynamoDB's limits; throws {@link TransactRejectedError} naming the
 * field. `at` is the field the list is known by (`transactWrites`).
 */
export function checkTransactWrites(writes: readonly unknown[], at = 'transactWrites', operationId?: string): void {
  function reject(reason: TransactRejection, field: string, message: string): never {
    throw new TransactRejectedError(reason, field, message, operationId);
  }
  if (writes.length > MAX_TRANSACT_WRITES) {
    reject(
      'too_many_writes',
      at,
      `${writes.length} writes; at most ${MAX_TRANSACT_WRITES} per step (DynamoDB's 100 items per transaction, one for the checkpoint)`,
    );
  }
  let bytes = 0;
  for (const [i, write] of writes.entries()) {
    const field = `${at}[${i}]`;
    if (!isObject(write)) reject('invalid_write', field, 'must be an object');
    const keys = Object.keys(write);
    const kind = keys[0] as TransactWriteKind;
    if (keys.length !== 1 || !KINDS.includes(kind)) {
      reject('invalid_write', field, `must have exactly one of ${KINDS.join(', ')}`);
    }
    const body = write[kind];
    if (!isObject(body)) reject('invalid_write', `${field}.${kind}`, 'must be an object');
    if (typeof body.TableName !== 'string' || body.TableName.length === 0) {
      reject('invalid_write', `${field}.${kind}.TableName`, 'must be a non-empty string');
    }
    if (kind === 'Put' ? !isObject(body.Item) : !isObject(body.Key)) {
      reject('invalid_write', `${field}.${kind}.${kind === 'Put' ? 'Item' : 'Key'}`, 'must be an object');
    }
    if (kind === 'Update' && (typeof body.UpdateExpression !== 'string' || body.UpdateExpression.trim() === '')) {
      reject('invalid_write', `${field}.Update.UpdateExpression`, 'must be a non-empty string');
    }
    const condition = body.ConditionExpression;
    if (
      kind === 'ConditionCheck'
        ? typeof condition !== 'string' || condition.trim() === ''
        : condition !== undefined && typeof condition !== 'string'
    ) {
      reject('invalid_write', `${field}.${kind}.ConditionExpression`, 'must be a non-empty string');
    }
    for (const map of ['ExpressionAttributeNames', 'ExpressionAttributeValues'] as const) {
      if (body[map] !== undefined && !isObject(body[map]))
        reject('invalid_write', `${field}.${kind}.${map}`, 'must be an object');
    }
    try {
      bytes += JSON.stringify(write).length;
    } catch {
      reject('invalid_write', field, 'must be plain JSON-like values (no cycles)');
    }
  }
  if (bytes > MAX_TRANSACT_BYTES) {
    reject(
      'writes_too_large',
      at,
      `${bytes} bytes; at most ${MAX_TRANSACT_BYTES} per step (DynamoDB's 4 MB per transaction, with room for the checkpoint)`,
    );
  }
}
