import type { Operation } from '@durable-lambda/protocol';

/**
 * A deep copy of plain data (objects, arrays, primitives), as `structuredClone` makes of it, for
 * the stores' copy-on-the-way-in-and-out. Operations and run records are plain JSON-shaped data,
 * and `structuredClone` (a serialise and a deserialise through V8's value serializer) costs
 * several times more than walking them: on the test runner it was the largest part of a step.
 * Keys holding `undefined` are kept, as `structuredClone` keeps them. Anything that is not a
 * plain object or an array (a Date, a Map: never in an operation) falls back to `structuredClone`.
 */
export function copyData<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyData(value[i]);
    return out as T;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  // Built key by key (for-in: plain data has nothing inherited to enumerate), not spread: a stored
  // run record loses fields by `delete`, which puts it in V8's dictionary mode, where a spread costs
  // ~5× more than this (and more than structuredClone); for an operation both are well under 1 µs.
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key in source) {
    const field = source[key];
    out[key] = typeof field === 'object' && field !== null ? copyData(field) : field;
  }
  return out as T;
}

/** A deep copy of an operation (see {@link copyData}). */
export function copyOperation(op: Operation): Operation {
  return copyData(op);
}
