/**
 * The user's DynamoDB tables as the local stores (memory, SQLite) emulate them for transactional
 * steps: a table is declared with its key schema, and a step's writes are checked and applied
 * against it all at once, like one TransactWriteItems: every condition is evaluated on the items
 * as they were before the transaction, a failed one cancels everything
 * ({@link TransactConditionFailedError}), and what the subset cannot express is refused
 * ({@link TransactRejectedError}, `unsupported_expression`) instead of guessed at.
 */
import {
  TransactConditionFailedError,
  type TransactItem,
  TransactRejectedError,
  type TransactWrite,
  transactEntry,
} from '@durable-lambda/protocol';
import type { StoreTransactWrite } from '../store';
import { evaluate, type Values } from './expression-eval';
import {
  type Condition,
  ExpressionError,
  parseCondition,
  parseUpdate,
  tokensOf,
  type UpdateActions,
} from './expression-parser';
import { applyUpdate } from './update-apply';

/** A table's key schema: its partition key and optional sort key attribute names. */
export interface EmulatedKeySchema {
  partitionKey: string;
  sortKey?: string;
}

/** What applying a transaction changes: items to put and keys to delete, per table. */
export interface EmulatedChange {
  tableName: string;
  /** The item's key, canonical (see {@link itemKey}). */
  key: string;
  /** The new item, or undefined to delete it. */
  item: TransactItem | undefined;
}

/** The canonical key of an item (or a `Key`) under a schema: the key attributes' values as JSON. */
export function itemKey(schema: EmulatedKeySchema, item: TransactItem, field: string, operationId?: string): string {
  const part = (name: string) => {
    const v = item[name];
    if (typeof v !== 'string' && typeof v !== 'number') {
      throw new TransactRejectedError(
        'invalid_write',
        field,
        `the key attribute ${name} must be a string or a number`,
        operationId,
      );
    }
    return v;
  };
  return JSON.stringify(
    schema.sortKey === undefined ? [part(schema.partitionKey)] : [part(schema.partitionKey), part(schema.sortKey)],
  );
}

/**
 * Checks a commit's writes against the tables as `read` shows them and returns what they change,
 * or throws: {@link TransactConditionFailedError} (a condition failed; nothing may be written),
 * {@link TransactRejectedError} (an unknown table, a malformed or unsupported expression, two
 * writes to one item). Pure: the caller applies the change in its own atomic write.
 */
export function planTransaction(
  writes: readonly StoreTransactWrite[],
  schemaOf: (tableName: string) => EmulatedKeySchema | undefined,
  read: (tableName: string, key: string) => TransactItem | undefined,
): EmulatedChange[] {
  const changes: EmulatedChange[] = [];
  const touched = new Set<string>();
  const prepared = writes.map((w) => prepare(w, schemaOf));
  for (const p of prepared) {
    const target = `${p.tableName}\u0000${p.key}`;
    if (touched.has(target)) {
      throw new TransactRejectedError(
        'invalid_write',
        p.field,
        'two writes of one transaction name the same item (DynamoDB refuses this too)',
        p.operationId,
      );
    }
    touched.add(target);
  }
  for (const p of prepared) {
    const before = read(p.tableName, p.key);
    if (p.condition && !evaluate(p.condition, before, p.values)) {
      throw new TransactConditionFailedError(p.operationId, p.index, { kind: p.kind, tableName: p.tableName });
    }
  }
  for (const p of prepared) {
    const before = read(p.tableName, p.key);
    if (p.kind === 'ConditionCheck') continue;
    if (p.kind === 'Delete') changes.push({ tableName: p.tableName, key: p.key, item: undefined });
    else if (p.kind === 'Put') changes.push({ tableName: p.tableName, key: p.key, item: structuredClone(p.item) });
    else changes.push({ tableName: p.tableName, key: p.key, item: p.apply(before) });
  }
  return changes;
}

interface Prepared {
  operationId: string;
  index: number;
  field: string;
  kind: 'Put' | 'Update' | 'Delete' | 'ConditionCheck';
  tableName: string;
  key: string;
  item: TransactItem;
  condition: Condition | undefined;
  values: Values;
  apply: (before: TransactItem | undefined) => TransactItem;
}

function prepare(w: StoreTransactWrite, schemaOf: (tableName: string) => EmulatedKeySchema | undefined): Prepared {
  const [kind, body] = transactEntry(w.write as TransactWrite);
  const field = `transactWrites[${w.index}].${kind}`;
  const reject = (reason: 'invalid_write' | 'unsupported_expression' | 'unknown_table', at: string, message: string) =>
    new TransactRejectedError(reason, at, message, w.operationId);
  const schema = schemaOf(body.TableName);
  if (!schema) {
    throw reject(
      'unknown_table',
      `${field}.TableName`,
      `the local store has no table ${body.TableName} (declare it with defineTable)`,
    );
  }
  const names = body.ExpressionAttributeNames ?? {};
  const values = (body.ExpressionAttributeValues ?? {}) as Values;
  const usedNames = new Set<string>();
  const usedValues = new Set<string>();
  const parse = <T>(text: string, at: string, parser: (t: ReturnType<typeof tokensOf>) => T): T => {
    try {
      return parser(tokensOf(text, names, usedNames, usedValues));
    } catch (error) {
      if (error instanceof ExpressionError) {
        throw reject(error.unsupported ? 'unsupported_expression' : 'invalid_write', `${field}.${at}`, error.message);
      }
      throw error;
    }
  };
  const condition =
    body.ConditionExpression === undefined
      ? undefined
      : parse(body.ConditionExpression, 'ConditionExpression', parseCondition);
  let update: UpdateActions | undefined;
  if (kind === 'Update')
    update = parse((body as { UpdateExpression: string }).UpdateExpression, 'UpdateExpression', parseUpdate);
  for (const v of usedValues)
    if (!(v in values)) throw reject('invalid_write', `${field}.ExpressionAttributeValues`, `${v} is not defined`);
  for (const n of Object.keys(names))
    if (!usedNames.has(n))
      throw reject('invalid_write', `${field}.ExpressionAttributeNames`, `${n} is unused in the expressions`);
  for (const v of Object.keys(values))
    if (!usedValues.has(v))
      throw reject('invalid_write', `${field}.ExpressionAttributeValues`, `${v} is unused in the expressions`);
  const item = kind === 'Put' ? (body as { Item: TransactItem }).Item : (body as { Key: TransactItem }).Key;
  const keyField = `${field}.${kind === 'Put' ? 'Item' : 'Key'}`;
  const key = itemKey(schema, item, keyField, w.operationId);
  if (kind !== 'Put') {
    const extra = Object.keys(item).filter((k) => k !== schema.partitionKey && k !== schema.sortKey);
    if (extra.length > 0)
      throw reject('invalid_write', keyField, `holds ${extra.join(', ')}, which are not key attributes`);
  }
  const keyNames = [schema.partitionKey, ...(schema.sortKey === undefined ? [] : [schema.sortKey])];
  return {
    operationId: w.operationId,
    index: w.index,
    field,
    kind,
    tableName: body.TableName,
    key,
    item,
    condition,
    values,
    apply: (before) => {
      try {
        return applyUpdate(before ?? structuredClone(item), update as UpdateActions, values, keyNames);
      } catch (error) {
        if (error instanceof ExpressionError) throw reject('invalid_write', `${field}.UpdateExpression`, error.message);
        throw error;
      }
    },
  };
}
