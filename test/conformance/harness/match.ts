/**
 * Matching an actual history and outcome against a requirement's expectations (the rules are
 * listed in `requirement.ts`). Every mismatch is reported, with the path to it.
 */
import type { Expected, ExpectedEvent } from './requirement';

/** An actual history event, as `getHistoryEvents()` or `GetDurableExecutionHistory` give it. */
export type ActualEvent = { EventId?: number; EventType?: string } & Record<string, unknown>;

const BINDING = /^\$([A-Za-z_][A-Za-z0-9_]*)$/;
const REFERENCE = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Bindings shared by one requirement's checks: its variables, then what the history binds. */
export class Bindings {
  private readonly values = new Map<string, unknown>();

  constructor(vars: Record<string, string> = {}) {
    for (const [name, value] of Object.entries(vars)) this.values.set(name, value);
  }

  /** `{VAR}` references in strings replaced, deep (unknown names left as written). */
  substitute<T>(value: T): T {
    if (typeof value === 'string') {
      return value.replace(REFERENCE, (whole, name: string) =>
        this.values.has(name) ? String(this.values.get(name)) : whole,
      ) as T;
    }
    if (Array.isArray(value)) return value.map((item) => this.substitute(item)) as T;
    if (value !== null && typeof value === 'object' && !(value instanceof RegExp)) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.substitute(v)])) as T;
    }
    return value;
  }

  /** Binds `name` or checks it against its earlier value; a message when they differ. */
  bindOrCheck(name: string, actual: unknown): string | undefined {
    if (!this.values.has(name)) {
      this.values.set(name, actual);
      return undefined;
    }
    const before = this.values.get(name);
    return before === actual ? undefined : `$${name} was ${JSON.stringify(before)}, here ${JSON.stringify(actual)}`;
  }
}

/** Every difference between `expected` and `actual` at `path`. */
export function matchValue(expected: Expected, actual: unknown, path: string, bindings: Bindings): string[] {
  if (expected === '*') return [];
  if (expected instanceof RegExp) {
    return expected.test(String(actual)) ? [] : [`${path}: ${JSON.stringify(actual)} does not match ${expected}`];
  }
  if (typeof expected === 'string') {
    const binding = BINDING.exec(expected);
    if (binding) {
      const problem = bindings.bindOrCheck(binding[1] as string, actual);
      return problem ? [`${path}: ${problem}`] : [];
    }
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${path}: expected a list, got ${JSON.stringify(actual)}`];
    if (actual.length !== expected.length) {
      return [`${path}: ${actual.length} items, expected ${expected.length}`];
    }
    return expected.flatMap((item, i) => matchValue(item, actual[i], `${path}[${i}]`, bindings));
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) {
      return [`${path}: expected an object, got ${JSON.stringify(actual)}`];
    }
    const record = actual as Record<string, unknown>;
    return Object.entries(expected).flatMap(([key, inner]) =>
      key in record && record[key] !== undefined
        ? matchValue(inner, record[key], `${path}.${key}`, bindings)
        : [`${path}.${key}: missing`],
    );
  }
  const wanted = bindings.substitute(expected);
  return wanted === actual ? [] : [`${path}: expected ${JSON.stringify(wanted)}, got ${JSON.stringify(actual)}`];
}

/** An expected event as the object it describes (our short keys to the history's field names). */
function eventShape(event: ExpectedEvent): Record<string, Expected> {
  const shape: Record<string, Expected> = { EventType: event.type };
  if (event.sub !== undefined) shape.SubType = event.sub;
  if (event.id !== undefined) shape.Id = event.id;
  if (event.parent !== undefined) shape.ParentId = event.parent;
  if (event.name !== undefined) shape.Name = event.name;
  if (event.details !== undefined) shape[`${event.type}Details`] = event.details;
  return shape;
}

/** Every difference between the expected events and the actual history (extra actual events are allowed). */
export function matchHistory(expected: readonly ExpectedEvent[], actual: readonly ActualEvent[], bindings: Bindings) {
  const byId = new Map(actual.map((event) => [event.EventId, event]));
  return expected.flatMap((event) => {
    const found = byId.get(event.eventId);
    if (!found) return [`event ${event.eventId}: none (the history has ${actual.length})`];
    return matchValue(eventShape(event), found, `event ${event.eventId}`, bindings);
  });
}

/**
 * Every difference between the expected outcome and the run's: the status, and for a run that
 * succeeded the result (the stored JSON text parsed; a text that is not JSON compared as it is).
 */
export function matchOutcome(
  expected: { status: string; result?: Expected } | undefined,
  actual: { status: string; result?: string },
  bindings: Bindings,
): string[] {
  if (!expected) return [];
  if (expected.status !== actual.status) return [`status: expected ${expected.status}, got ${actual.status}`];
  if (actual.status !== 'SUCCEEDED' || !('result' in expected)) return [];
  let value: unknown = actual.result;
  if (actual.result !== undefined) {
    try {
      value = JSON.parse(actual.result);
    } catch {
      value = actual.result;
    }
  } else value = null;
  // The result is compared for equality, after variables are put in (no bindings or wildcards).
  const wanted = bindings.substitute(expected.result);
  return JSON.stringify(sortKeys(wanted)) === JSON.stringify(sortKeys(value))
    ? []
    : [`result: expected ${JSON.stringify(wanted)}, got ${JSON.stringify(value)}`];
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}
