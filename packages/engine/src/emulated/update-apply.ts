/**
 * Applies a parsed update expression (`expression-parser.ts`) to an item, by DynamoDB's rules:
 * every value is read from the item as it was before the update; arithmetic on numbers only;
 * `ADD` to a number or a set (created when missing), `DELETE` from a set (removed when emptied);
 * key attributes never change. A value of the wrong type is an {@link ExpressionError}, as
 * DynamoDB refuses the request.
 */
import type { TransactItem } from '@durable-lambda/protocol';
import { typeOf, type Values } from './expression-eval';
import { ExpressionError, type SetValue, type UpdateActions } from './expression-parser';

function setValueOf(v: SetValue, before: TransactItem, values: Values): unknown {
  switch (v.kind) {
    case 'operand': {
      const got = 'value' in v.of ? values[v.of.value] : before[v.of.path];
      if (got === undefined)
        throw new ExpressionError(false, `the attribute ${'path' in v.of ? v.of.path : ''} does not exist`);
      return got;
    }
    case 'if_not_exists': {
      const got = before[v.path];
      return got !== undefined ? got : 'value' in v.fallback ? values[v.fallback.value] : before[v.fallback.path];
    }
    default: {
      const a = setValueOf(v.left, before, values);
      const b = setValueOf(v.right, before, values);
      if (typeOf(a) !== 'N' || typeOf(b) !== 'N') throw new ExpressionError(false, 'arithmetic needs two numbers');
      return v.kind === 'plus' ? Number(a) + Number(b) : Number(a) - Number(b);
    }
  }
}

function setOf(v: unknown, what: string): Set<unknown> {
  if (!(v instanceof Set)) throw new ExpressionError(false, `${what} must be a set`);
  return v;
}

/** The item after `actions` (a new object; `before` is not changed). */
export function applyUpdate(
  before: TransactItem,
  actions: UpdateActions,
  values: Values,
  keyNames: readonly string[],
): TransactItem {
  const after: TransactItem = structuredClone(before);
  const touched = new Set<string>();
  const touch = (path: string) => {
    if (keyNames.includes(path)) throw new ExpressionError(false, `the key attribute ${path} cannot be updated`);
    if (touched.has(path)) throw new ExpressionError(false, `two actions update ${path}`);
    touched.add(path);
  };
  for (const { path, value } of actions.set) {
    touch(path);
    after[path] = structuredClone(setValueOf(value, before, values));
  }
  for (const path of actions.remove) {
    touch(path);
    delete after[path];
  }
  for (const { path, value } of actions.add) {
    touch(path);
    const v = values[value];
    const current = before[path];
    if (typeOf(v) === 'N') {
      if (current !== undefined && typeOf(current) !== 'N')
        throw new ExpressionError(false, `ADD ${path}: the attribute is not a number`);
      after[path] = Number(current ?? 0) + Number(v);
    } else if (v instanceof Set) {
      const merged = new Set(current === undefined ? [] : setOf(current, `ADD ${path}: the attribute`));
      for (const x of v) merged.add(x);
      after[path] = merged;
    } else {
      throw new ExpressionError(false, `ADD ${path}: the value must be a number or a set`);
    }
  }
  for (const { path, value } of actions.delete) {
    touch(path);
    const take = setOf(values[value], `DELETE ${path}: the value`);
    if (before[path] === undefined) continue;
    const left = new Set([...setOf(before[path], `DELETE ${path}: the attribute`)].filter((x) => !take.has(x)));
    if (left.size === 0) delete after[path];
    else after[path] = left;
  }
  return after;
}
