/**
 * Evaluates a parsed condition (`expression-parser.ts`) on an item with plain JS values as
 * lib-dynamodb reads them, by DynamoDB's rules: comparisons of different types are false (`<>`
 * true), a missing attribute compares false (`<>` true), strings order by UTF-8 bytes, sets are
 * equal whatever their order.
 */
import type { TransactItem } from '@durable-lambda/protocol';
import type { Condition, Operand } from './expression-parser';

/** `ExpressionAttributeValues`. */
export type Values = Record<string, unknown>;

const MISSING = Symbol('missing');
type Resolved = unknown | typeof MISSING;

function resolve(operand: Operand, item: TransactItem | undefined, values: Values): Resolved {
  if ('value' in operand) return values[operand.value];
  if (!item || !(operand.path in item) || item[operand.path] === undefined) return MISSING;
  return item[operand.path];
}

/** DynamoDB's type of a value: `N`, `S`, `B`, `BOOL`, `NULL`, `L`, `M`, `SS`/`NS`/`BS` (as `SET`). */
export function typeOf(v: unknown): string {
  if (typeof v === 'number' || typeof v === 'bigint') return 'N';
  if (typeof v === 'string') return 'S';
  if (typeof v === 'boolean') return 'BOOL';
  if (v === null) return 'NULL';
  if (v instanceof Uint8Array) return 'B';
  if (v instanceof Set) return 'SET';
  if (Array.isArray(v)) return 'L';
  return 'M';
}

/** Orders two values of one scalar type (`N`, `S`, `B`); undefined for other types. */
function order(a: unknown, b: unknown): number | undefined {
  const t = typeOf(a);
  if (t !== typeOf(b)) return undefined;
  if (t === 'N') return Number(a) - Number(b);
  if (t === 'S') return Buffer.compare(Buffer.from(a as string, 'utf8'), Buffer.from(b as string, 'utf8'));
  if (t === 'B') return Buffer.compare(Buffer.from(a as Uint8Array), Buffer.from(b as Uint8Array));
  return undefined;
}

/** Deep equality by DynamoDB's rules (sets unordered). */
export function equal(a: unknown, b: unknown): boolean {
  const t = typeOf(a);
  if (t !== typeOf(b)) return false;
  if (t === 'N' || t === 'S' || t === 'B') return order(a, b) === 0;
  if (t === 'BOOL' || t === 'NULL') return a === b;
  if (t === 'SET') {
    const x = [...(a as Set<unknown>)];
    const y = [...(b as Set<unknown>)];
    return x.length === y.length && x.every((v) => y.some((w) => equal(v, w)));
  }
  if (t === 'L') {
    const x = a as unknown[];
    const y = b as unknown[];
    return x.length === y.length && x.every((v, i) => equal(v, y[i]));
  }
  const x = Object.entries(a as object).filter(([, v]) => v !== undefined);
  const y = b as Record<string, unknown>;
  return (
    x.length === Object.values(y).filter((v) => v !== undefined).length && x.every(([k, v]) => k in y && equal(v, y[k]))
  );
}

function compare(cmp: string, a: Resolved, b: Resolved): boolean {
  if (a === MISSING || b === MISSING) return cmp === '<>';
  if (cmp === '=') return equal(a, b);
  if (cmp === '<>') return !equal(a, b);
  const o = order(a, b);
  if (o === undefined) return false;
  if (cmp === '<') return o < 0;
  if (cmp === '<=') return o <= 0;
  if (cmp === '>') return o > 0;
  return o >= 0;
}

/** Whether `condition` holds on `item` (undefined: the item does not exist). */
export function evaluate(condition: Condition, item: TransactItem | undefined, values: Values): boolean {
  switch (condition.op) {
    case 'and':
      return evaluate(condition.left, item, values) && evaluate(condition.right, item, values);
    case 'or':
      return evaluate(condition.left, item, values) || evaluate(condition.right, item, values);
    case 'not':
      return !evaluate(condition.of, item, values);
    case 'exists':
      return item !== undefined && item[condition.path] !== undefined;
    case 'not_exists':
      return item === undefined || item[condition.path] === undefined;
    case 'cmp':
      return compare(condition.cmp, resolve(condition.left, item, values), resolve(condition.right, item, values));
    case 'between': {
      const v = resolve(condition.of, item, values);
      return (
        compare('>=', v, resolve(condition.low, item, values)) &&
        compare('<=', v, resolve(condition.high, item, values))
      );
    }
    case 'in': {
      const v = resolve(condition.of, item, values);
      return condition.list.some((o) => compare('=', v, resolve(o, item, values)));
    }
    case 'begins_with': {
      const v = resolve(condition.of, item, values);
      const p = resolve(condition.prefix, item, values);
      if (typeof v === 'string' && typeof p === 'string') return v.startsWith(p);
      if (v instanceof Uint8Array && p instanceof Uint8Array)
        return Buffer.from(v).subarray(0, p.length).equals(Buffer.from(p));
      return false;
    }
  }
}
