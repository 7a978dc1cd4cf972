/**
 * What the store suites build runs, operations and clocks from, and the checks they share.
 */
import { dueAtOf, type RunRecord } from '@durable-lambda/engine';
import type { Operation } from '@durable-lambda/protocol';
import { expect } from 'vitest';

/** A clock the suite moves. */
export interface ConformanceClock {
  now(): number;
  set(t: number): void;
}

/** Options for stores that deliberately differ from the contract in one respect. */
export interface ConformanceOptions {
  /**
   * Test names (as given to `it`) expected to fail on this store: they run as `it.fails`, so the
   * suite stays green while the deviation is known and turns red once it is fixed.
   */
  knownDeviations?: readonly string[];
}

/**
 * The suite's start: 2100-01-01, in the future. DynamoDB Local does expire items whose TTL has
 * passed in real time (a sweep of a few items a second, measured on 3.3.1), so a run written at a
 * time in the past could vanish between two lines of a test; the stores' own TTL filters follow
 * the suite's clock whatever it says.
 */
export const T0 = Date.UTC(2100, 0, 1);

/** A clock the suite moves, starting at `start`. */
export function conformanceClock(start = T0): ConformanceClock {
  let t = start;
  return {
    now: () => t,
    set: (next: number) => {
      t = next;
    },
  };
}
/** A mebibyte. */
export const MB = 1024 * 1024;

export function runRecord(runId: string, overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    runId,
    functionName: 'fn',
    status: 'RUNNING',
    input: '{"n":1}',
    createdAt: T0,
    updatedAt: T0,
    fence: 0,
    nextWakeAt: T0,
    invocations: 0,
    lostInvocations: 0,
    eventSeq: 0,
    handledEventSeq: 0,
    ...overrides,
  };
}

export function executionOp(input = '{"n":1}'): Operation {
  return {
    Id: '0',
    Type: 'EXECUTION',
    Status: 'STARTED',
    StartTimestamp: T0,
    ExecutionDetails: { InputPayload: input },
  };
}

export function stepOp(id: string, result: string, extra: Partial<Operation> = {}): Operation {
  const parent = id.includes('-') ? id.slice(0, id.lastIndexOf('-')) : undefined;
  return {
    Id: id,
    ...(parent ? { ParentId: parent } : {}),
    Type: 'STEP',
    Status: 'SUCCEEDED',
    StartTimestamp: T0,
    EndTimestamp: T0 + 1,
    StepDetails: { Attempt: 1, Result: result },
    ...extra,
  };
}

export function contextOp(id: string): Operation {
  const parent = id.includes('-') ? id.slice(0, id.lastIndexOf('-')) : undefined;
  return {
    Id: id,
    ...(parent ? { ParentId: parent } : {}),
    Type: 'CONTEXT',
    Status: 'STARTED',
    StartTimestamp: T0,
  };
}

export function callbackOp(id: string, details: Partial<NonNullable<Operation['CallbackDetails']>> = {}): Operation {
  return {
    Id: id,
    Type: 'CALLBACK',
    Status: 'STARTED',
    StartTimestamp: T0,
    CallbackDetails: { CallbackId: `cb-${id}`, ...details },
  };
}

/**
 * A string of `bytes` UTF-8 bytes (give or take a character) mixing 1- to 4-byte characters, so
 * any split on byte boundaries would show.
 */
export function payload(bytes: number, seed = 'x'): string {
  const unit = `${seed}:é€😀-abcdefghijklmnopqrstuvwxyz0123456789|`;
  const unitBytes = Buffer.byteLength(unit);
  const parts: string[] = [];
  for (let i = 0, size = 0; size < bytes; i++, size += unitBytes + String(i).length) parts.push(`${i}${unit}`);
  return parts.join('');
}

/** Checks the order every store guarantees (see the file's comment). */
export function expectGuaranteedOrder(ids: readonly string[]): void {
  const position = new Map(ids.map((id, index) => [id, index]));
  expect(ids[0]).toBe('0');
  for (const [index, id] of ids.entries()) {
    const dash = id.lastIndexOf('-');
    if (dash >= 0) {
      const parent = id.slice(0, dash);
      if (position.has(parent)) expect(position.get(parent), `${parent} before ${id}`).toBeLessThan(index);
    }
  }
  const siblings = new Map<string, number[]>();
  for (const id of ids) {
    const dash = id.lastIndexOf('-');
    const parent = dash >= 0 ? id.slice(0, dash) : '';
    const list = siblings.get(parent) ?? [];
    list.push(Number(id.slice(dash + 1)));
    siblings.set(parent, list);
  }
  for (const [parent, numbers] of siblings) {
    expect(numbers, `children of "${parent}" by number`).toEqual([...numbers].sort((a, b) => a - b));
  }
}

/** The run as a store keeps it: with `dueAt` as {@link dueAtOf} says (absent when not due). */
export function withDueAt(run: RunRecord): RunRecord {
  const { dueAt: _ignored, ...rest } = run;
  const dueAt = dueAtOf(rest);
  return dueAt === undefined ? rest : { ...rest, dueAt };
}

let tokens = 0;
/** A lease token unique to one `acquireLease` call, as the engine makes them. */
export function leaseToken(): string {
  return `token-${process.pid}-${++tokens}`;
}
