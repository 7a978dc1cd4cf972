/**
 * The behaviour every {@link Store} must have, as vitest suites. Run it on a store with:
 *
 *   describeStoreConformance('MyStore', async () => ({ store, clock }));
 *
 * `setup` runs before each test and must give a store with no runs (a fresh table, a fresh
 * database) whose notion of "now" (retention, `updatedAt`) is `clock`.
 *
 * What a store guarantees about the ORDER of `loadOperations`: every operation comes after its
 * parent (the id before its last "-segment", e.g. "3" for "3-1"), and siblings come by number
 * ("2" before "10"), with the EXECUTION operation "0" first. Among operations of different
 * branches the order is the store's own (creation order in memory, tree order in DynamoDB).
 */
import type { RunRecord, Store } from '@durable-lambda/engine';
import { FencedError, type Operation } from '@durable-lambda/protocol';
import { beforeEach, describe, expect } from 'vitest';
import { conformanceTest } from './support';

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

export const T0 = 1_700_000_000_000;

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
const MB = 1024 * 1024;

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

export function describeStoreConformance(
  name: string,
  setup: () => Promise<{ store: Store; clock: ConformanceClock }>,
  options: ConformanceOptions = {},
): void {
  const test = conformanceTest(options);

  describe(`${name}: store conformance`, () => {
    let store: Store;
    let clock: ConformanceClock;

    beforeEach(async () => {
      ({ store, clock } = await setup());
      clock.set(T0);
    });

    /** Creates `runId` and takes its lease; returns the fence. */
    async function leased(runId: string, overrides: Partial<RunRecord> = {}): Promise<number> {
      await store.createRun(runRecord(runId, overrides), executionOp(overrides.input));
      const grant = await store.acquireLease(runId, clock.now(), clock.now() + 60_000);
      if (!grant) throw new Error('lease not granted');
      return grant.run.fence;
    }

    describe('createRun', () => {
      test('creates the run and its EXECUTION operation, readable back', async () => {
        const first = await store.createRun(runRecord('r1'), executionOp());
        expect(first).toEqual({ created: true, run: runRecord('r1') });
        expect(await store.getRun('r1')).toEqual(runRecord('r1'));
        expect(await store.loadOperations('r1')).toEqual([executionOp()]);
        expect(await store.getOperation('r1', '0')).toEqual(executionOp());
      });

      test('keeps every field of the run record, including optional ones', async () => {
        const full = runRecord('r1', {
          runKey: 'key-1',
          parent: { runId: 'p1', operationId: '3-1' },
          leaseExpiresAt: T0 + 5,
          expiresAt: T0 + 10 * 86_400_000,
          endedAt: T0 + 2,
          result: '"done"',
          error: { ErrorType: 'E', ErrorMessage: 'm', ErrorCode: 'c', ErrorData: 'd', StackTrace: ['a', 'b'] },
        });
        await store.createRun(full, executionOp());
        expect(await store.getRun('r1')).toEqual(full);
      });

      test('is idempotent: a second create returns created false and the first run', async () => {
        const first = await store.createRun(runRecord('r1'), executionOp());
        const second = await store.createRun(
          runRecord('r1', { input: '"other"', createdAt: T0 + 5 }),
          executionOp('"other"'),
        );
        expect(second.created).toBe(false);
        expect(second.run).toEqual(first.run);
        expect(await store.loadOperations('r1')).toEqual([executionOp()]);
      });

      test('concurrent creates of one run: exactly one creates it, all return it', async () => {
        const results = await Promise.all(
          Array.from({ length: 6 }, (_, i) =>
            store.createRun(runRecord('r1', { input: `"${i}"` }), executionOp(`"${i}"`)),
          ),
        );
        expect(results.filter((r) => r.created)).toHaveLength(1);
        const winner = results.find((r) => r.created)?.run;
        for (const r of results) expect(r.run).toEqual(winner);
        expect(await store.getRun('r1')).toEqual(winner);
      });
    });

    describe('acquireLease', () => {
      test('takes a free lease: fence, invocations and updatedAt move, previousLost false', async () => {
        await store.createRun(runRecord('r1'), executionOp());
        clock.set(T0 + 10);
        const grant = await store.acquireLease('r1', T0 + 10, T0 + 1_000);
        expect(grant?.previousLost).toBe(false);
        const expected = runRecord('r1', { fence: 1, leaseExpiresAt: T0 + 1_000, invocations: 1, updatedAt: T0 + 10 });
        expect(grant?.run).toEqual(expected);
        expect(await store.getRun('r1')).toEqual(expected);
      });

      test('refuses while another invocation holds the lease', async () => {
        await leased('r1');
        expect(await store.acquireLease('r1', T0 + 59_999, T0 + 100_000)).toBeUndefined();
        expect((await store.getRun('r1'))?.fence).toBe(1);
      });

      test('takes a lapsed lease and counts the invocation before as lost', async () => {
        await leased('r1');
        clock.set(T0 + 60_000);
        const grant = await store.acquireLease('r1', T0 + 60_000, T0 + 120_000);
        expect(grant?.previousLost).toBe(true);
        expect(grant?.run).toMatchObject({
          fence: 2,
          invocations: 2,
          lostInvocations: 1,
          leaseExpiresAt: T0 + 120_000,
        });
        expect(await store.getRun('r1')).toMatchObject({ fence: 2, invocations: 2, lostInvocations: 1 });
      });

      test('a released lease is free, not lost', async () => {
        const fence = await leased('r1');
        await store.commit('r1', fence, { operations: [], run: { leaseExpiresAt: null } });
        const grant = await store.acquireLease('r1', T0 + 1, T0 + 60_000);
        expect(grant?.previousLost).toBe(false);
        expect(grant?.run).toMatchObject({ fence: 2, invocations: 2, lostInvocations: 0 });
      });

      test('refuses a run that is not RUNNING, and an unknown run', async () => {
        const fence = await leased('r1');
        await store.commit('r1', fence, { operations: [], run: { status: 'SUCCEEDED', leaseExpiresAt: null } });
        expect(await store.acquireLease('r1', T0 + 1, T0 + 60_000)).toBeUndefined();
        expect(await store.acquireLease('nope', T0, T0 + 60_000)).toBeUndefined();
      });

      test('concurrent acquires on one run: exactly one wins', async () => {
        await store.createRun(runRecord('r1'), executionOp());
        const grants = await Promise.all(Array.from({ length: 10 }, () => store.acquireLease('r1', T0, T0 + 60_000)));
        expect(grants.filter(Boolean)).toHaveLength(1);
        expect(await store.getRun('r1')).toMatchObject({ fence: 1, invocations: 1 });
      });
    });

    describe('commit', () => {
      test('writes operations and the run patch while the fence holds', async () => {
        const fence = await leased('r1');
        clock.set(T0 + 7);
        await store.commit('r1', fence, { operations: [stepOp('1', '"a"')], run: { nextWakeAt: T0 + 99 } });
        expect(await store.loadOperations('r1')).toEqual([executionOp(), stepOp('1', '"a"')]);
        expect(await store.getRun('r1')).toMatchObject({ nextWakeAt: T0 + 99, updatedAt: T0 + 7, fence });
      });

      test('a stale fence is FencedError and writes nothing, operations included', async () => {
        const stale = await leased('r1');
        clock.set(T0 + 60_000);
        const fresh = await store.acquireLease('r1', T0 + 60_000, T0 + 120_000);
        expect(fresh).toBeDefined();
        const before = await store.getRun('r1');
        const attempt = store.commit('r1', stale, {
          operations: [stepOp('1', '"stale"'), stepOp('2', '"stale"')],
          run: { status: 'SUCCEEDED', result: '"stale"', nextWakeAt: null },
        });
        await expect(attempt).rejects.toBeInstanceOf(FencedError);
        expect(await store.getRun('r1')).toEqual(before);
        expect(await store.loadOperations('r1')).toEqual([executionOp()]);
        expect(await store.getOperation('r1', '1')).toBeUndefined();
      });

      test('a stale commit of more than 100 operations writes none of them', async () => {
        const stale = await leased('r1');
        clock.set(T0 + 60_000);
        await store.acquireLease('r1', T0 + 60_000, T0 + 120_000);
        const ops = Array.from({ length: 150 }, (_, i) => stepOp(String(i + 1), `"${i}"`));
        await expect(store.commit('r1', stale, { operations: ops })).rejects.toBeInstanceOf(FencedError);
        expect(await store.loadOperations('r1')).toEqual([executionOp()]);
      });

      test('a commit on an unknown run is FencedError', async () => {
        await expect(store.commit('nope', 1, { operations: [stepOp('1', '1')] })).rejects.toBeInstanceOf(FencedError);
        expect(await store.getRun('nope')).toBeUndefined();
        expect(await store.loadOperations('nope')).toEqual([]);
      });

      test('a commit with no operations and no patch still checks the fence', async () => {
        const fence = await leased('r1');
        clock.set(T0 + 3);
        await store.commit('r1', fence, { operations: [] });
        expect((await store.getRun('r1'))?.updatedAt).toBe(T0 + 3);
        await expect(store.commit('r1', fence + 1, { operations: [] })).rejects.toBeInstanceOf(FencedError);
      });

      test('RunPatch: null removes a field, undefined leaves it, values set it', async () => {
        const fence = await leased('r1', { expiresAt: T0 + 86_400_000 });
        await store.commit('r1', fence, {
          operations: [],
          run: { nextWakeAt: null, leaseExpiresAt: null, expiresAt: null, handledEventSeq: undefined },
        });
        const run = await store.getRun('r1');
        expect(run).toBeDefined();
        expect(run && 'nextWakeAt' in run).toBe(false);
        expect(run && 'leaseExpiresAt' in run).toBe(false);
        expect(run && 'expiresAt' in run).toBe(false);
        expect(run?.handledEventSeq).toBe(0);
        const error = { ErrorType: 'Boom', ErrorMessage: 'it failed', StackTrace: ['at x'] };
        await store.commit('r1', fence, {
          operations: [],
          run: { status: 'FAILED', error, endedAt: T0 + 9, handledEventSeq: 4 },
        });
        expect(await store.getRun('r1')).toMatchObject({
          status: 'FAILED',
          error,
          endedAt: T0 + 9,
          handledEventSeq: 4,
        });
        await store.commit('r1', fence, { operations: [], run: { error: null, result: '"r"' } });
        const after = await store.getRun('r1');
        expect(after && 'error' in after).toBe(false);
        expect(after?.result).toBe('"r"');
      });

      test('rewriting an operation replaces it in place', async () => {
        const fence = await leased('r1');
        await store.commit('r1', fence, { operations: [stepOp('1', '"a"'), stepOp('2', '"b"')] });
        const retried = stepOp('1', '"a2"', { StepDetails: { Attempt: 2, Result: '"a2"' } });
        await store.commit('r1', fence, { operations: [retried] });
        expect(await store.loadOperations('r1')).toEqual([executionOp(), retried, stepOp('2', '"b"')]);
      });

      test('commits on two runs at once do not interfere', async () => {
        const [f1, f2] = await Promise.all([leased('a'), leased('b')]);
        await Promise.all(
          Array.from({ length: 10 }, (_, i) => [
            store.commit('a', f1, { operations: [stepOp(String(i + 1), `"a${i}"`)], run: { handledEventSeq: i } }),
            store.commit('b', f2, { operations: [stepOp(String(i + 1), `"b${i}"`)], run: { nextWakeAt: T0 + i } }),
          ]).flat(),
        );
        const a = await store.loadOperations('a');
        const b = await store.loadOperations('b');
        expect(a.slice(1).map((op) => op.StepDetails?.Result)).toEqual(Array.from({ length: 10 }, (_, i) => `"a${i}"`));
        expect(b.slice(1).map((op) => op.StepDetails?.Result)).toEqual(Array.from({ length: 10 }, (_, i) => `"b${i}"`));
        expect((await store.getRun('a'))?.nextWakeAt).toBe(T0);
        expect((await store.getRun('b'))?.handledEventSeq).toBe(0);
      });
    });

    describe('loadOperations and getOperation', () => {
      test('order: EXECUTION first, parents before children, siblings by number', async () => {
        const fence = await leased('r1');
        // Created in this order, as concurrent branches would: "1", "2", "10", then children.
        const created = [
          '1',
          '2',
          '3',
          '4',
          '5',
          '6',
          '7',
          '8',
          '9',
          '10',
          '2-1',
          '2-2',
          '10-1',
          '2-10',
          '2-1-1',
          '11',
        ];
        for (const id of created) {
          await store.commit('r1', fence, { operations: [id.includes('-') ? stepOp(id, '1') : contextOp(id)] });
        }
        const ids = (await store.loadOperations('r1')).map((op) => op.Id);
        expect([...ids].sort()).toEqual(['0', ...created].sort());
        expectGuaranteedOrder(ids);
      });

      test('getOperation returns one operation, or undefined', async () => {
        const fence = await leased('r1');
        await store.commit('r1', fence, { operations: [stepOp('1', '"a"'), stepOp('1-1', '"b"')] });
        expect(await store.getOperation('r1', '1-1')).toEqual(stepOp('1-1', '"b"'));
        expect(await store.getOperation('r1', '2')).toBeUndefined();
        expect(await store.getOperation('nope', '1')).toBeUndefined();
      });

      test('returns copies: changing them changes nothing stored', async () => {
        const fence = await leased('r1');
        await store.commit('r1', fence, { operations: [stepOp('1', '"a"')] });
        const [, op] = await store.loadOperations('r1');
        if (op?.StepDetails) op.StepDetails.Result = 'changed';
        const run = await store.getRun('r1');
        if (run) run.fence = 99;
        expect(await store.getOperation('r1', '1')).toEqual(stepOp('1', '"a"'));
        expect((await store.getRun('r1'))?.fence).toBe(fence);
      });

      test('pages through thousands of operations: all come back, exactly, in the guaranteed order', async () => {
        const fence = await leased('r1');
        // 100 contexts with 24 children each: 2,500 operations of ~600 bytes (~1.5 MB in all).
        const ops: Operation[] = [];
        for (let i = 1; i <= 100; i++) {
          ops.push(contextOp(String(i)));
          for (let j = 1; j <= 24; j++) ops.push(stepOp(`${i}-${j}`, JSON.stringify(payload(560, `${i}-${j}`))));
        }
        for (let i = 0; i < ops.length; i += 500)
          await store.commit('r1', fence, { operations: ops.slice(i, i + 500) });
        const loaded = await store.loadOperations('r1');
        expect(loaded).toHaveLength(2_501);
        expectGuaranteedOrder(loaded.map((op) => op.Id));
        const byId = new Map(loaded.map((op) => [op.Id, op]));
        for (const op of ops) expect(byId.get(op.Id)).toEqual(op);
      }, 60_000);
    });

    describe('outside events', () => {
      async function withCallback(details: Partial<NonNullable<Operation['CallbackDetails']>> = {}) {
        const fence = await leased('r1');
        await store.commit('r1', fence, { operations: [callbackOp('1', details)] });
        return fence;
      }
      const done = (details: Partial<NonNullable<Operation['CallbackDetails']>> = {}): Operation => ({
        ...callbackOp('1', details),
        Status: 'SUCCEEDED',
        EndTimestamp: T0 + 5,
        CallbackDetails: { CallbackId: 'cb-1', Result: '"ok"', ...details },
      });

      test('applies while the operation is as expected; with event it grows eventSeq', async () => {
        await withCallback();
        clock.set(T0 + 5);
        expect(await store.writeOutsideEvent('r1', done(), { Status: 'STARTED' }, true)).toBe(true);
        expect(await store.getOperation('r1', '1')).toEqual(done());
        expect(await store.getRun('r1')).toMatchObject({ eventSeq: 1, updatedAt: T0 + 5 });
      });

      test('eventSeq grows only with event', async () => {
        await withCallback({ HeartbeatTimeoutSeconds: 10, HeartbeatDeadline: T0 + 10_000 });
        const beat = callbackOp('1', { HeartbeatTimeoutSeconds: 10, HeartbeatDeadline: T0 + 20_000 });
        const expected = { Status: 'STARTED' as const, deadlines: { HeartbeatDeadline: T0 + 10_000 } };
        expect(await store.writeOutsideEvent('r1', beat, expected, false)).toBe(true);
        expect((await store.getRun('r1'))?.eventSeq).toBe(0);
        expect(await store.getOperation('r1', '1')).toEqual(beat);
      });

      test('refuses (false, nothing written) when the status differs', async () => {
        await withCallback();
        expect(await store.writeOutsideEvent('r1', done(), { Status: 'STARTED' }, true)).toBe(true);
        const again = { ...done(), CallbackDetails: { CallbackId: 'cb-1', Result: '"second"' } };
        expect(await store.writeOutsideEvent('r1', again, { Status: 'STARTED' }, true)).toBe(false);
        expect(await store.getOperation('r1', '1')).toEqual(done());
        expect((await store.getRun('r1'))?.eventSeq).toBe(1);
      });

      test('deadlines must be equal when given, absent matching absent only', async () => {
        await withCallback({ TimeoutTimestamp: T0 + 1_000 });
        const write = (deadlines: { TimeoutTimestamp?: number; HeartbeatDeadline?: number }) =>
          store.writeOutsideEvent('r1', done({ TimeoutTimestamp: T0 + 1_000 }), { Status: 'STARTED', deadlines }, true);
        expect(await write({ TimeoutTimestamp: T0 + 999 })).toBe(false);
        expect(await write({})).toBe(false);
        expect(await write({ TimeoutTimestamp: T0 + 1_000, HeartbeatDeadline: T0 + 5 })).toBe(false);
        expect((await store.getOperation('r1', '1'))?.Status).toBe('STARTED');
        expect((await store.getRun('r1'))?.eventSeq).toBe(0);
        expect(await write({ TimeoutTimestamp: T0 + 1_000 })).toBe(true);
        expect((await store.getOperation('r1', '1'))?.Status).toBe('SUCCEEDED');
      });

      test('deadlines given as absent match an operation without them', async () => {
        await withCallback();
        expect(await store.writeOutsideEvent('r1', done(), { Status: 'STARTED', deadlines: {} }, false)).toBe(true);
      });

      test('an unknown operation or run is false', async () => {
        await withCallback();
        expect(await store.writeOutsideEvent('r1', { ...done(), Id: '9' }, { Status: 'STARTED' }, true)).toBe(false);
        expect(await store.writeOutsideEvent('nope', done(), { Status: 'STARTED' }, true)).toBe(false);
        expect(await store.getOperation('r1', '9')).toBeUndefined();
        expect((await store.getRun('r1'))?.eventSeq).toBe(0);
      });

      test('concurrent writers with the same expectation: exactly one applies', async () => {
        await withCallback();
        const outcomes = await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            store.writeOutsideEvent(
              'r1',
              { ...done(), CallbackDetails: { CallbackId: 'cb-1', Result: `"${i}"` } },
              { Status: 'STARTED' },
              true,
            ),
          ),
        );
        expect(outcomes.filter(Boolean)).toHaveLength(1);
        const winner = outcomes.indexOf(true);
        expect((await store.getOperation('r1', '1'))?.CallbackDetails?.Result).toBe(`"${winner}"`);
        expect((await store.getRun('r1'))?.eventSeq).toBe(1);
      });

      test('an outside write does not need, nor disturb, the lease', async () => {
        const fence = await withCallback();
        expect(await store.writeOutsideEvent('r1', done(), { Status: 'STARTED' }, true)).toBe(true);
        await store.commit('r1', fence, { operations: [stepOp('2', '2')], run: { handledEventSeq: 1 } });
        expect(await store.getRun('r1')).toMatchObject({ fence, eventSeq: 1, handledEventSeq: 1 });
      });
    });

    describe('large payloads', () => {
      test('a 1 MB and a 5 MB step result round-trip exactly', async () => {
        const fence = await leased('r1');
        const oneMb = payload(MB, 'one');
        const fiveMb = payload(5 * MB, 'five');
        await store.commit('r1', fence, { operations: [stepOp('1', oneMb)] });
        await store.commit('r1', fence, { operations: [stepOp('2', fiveMb), stepOp('3', '"small"')] });
        expect(await store.getOperation('r1', '1')).toEqual(stepOp('1', oneMb));
        expect(await store.getOperation('r1', '2')).toEqual(stepOp('2', fiveMb));
        const loaded = await store.loadOperations('r1');
        expect(loaded.map((op) => op.StepDetails?.Result)).toEqual([undefined, oneMb, fiveMb, '"small"']);
      }, 60_000);

      test('a 1 MB run input round-trips through createRun, getRun, acquireLease and its EXECUTION', async () => {
        const input = JSON.stringify(payload(MB, 'input'));
        const created = await store.createRun(runRecord('r1', { input }), executionOp(input));
        expect(created.run.input).toBe(input);
        expect((await store.getRun('r1'))?.input).toBe(input);
        const grant = await store.acquireLease('r1', T0, T0 + 60_000);
        expect(grant?.run.input).toBe(input);
        expect(await store.loadOperations('r1')).toEqual([executionOp(input)]);
        const again = await store.createRun(runRecord('r1', { input }), executionOp(input));
        expect(again.created).toBe(false);
        expect(again.run.input).toBe(input);
      });

      test('a large run result and error, and a large operation error, round-trip', async () => {
        const fence = await leased('r1');
        const result = payload(2 * MB, 'result');
        const error = { ErrorType: 'Big', ErrorMessage: 'large', ErrorData: payload(MB, 'data'), StackTrace: ['a'] };
        const failed: Operation = {
          ...stepOp('1', ''),
          Status: 'FAILED',
          StepDetails: { Attempt: 3, Error: error },
        };
        await store.commit('r1', fence, { operations: [failed], run: { status: 'SUCCEEDED', result, endedAt: T0 } });
        expect(await store.getOperation('r1', '1')).toEqual(failed);
        expect((await store.getRun('r1'))?.result).toBe(result);
        await store.commit('r1', fence, { operations: [], run: { status: 'FAILED', result: null, error } });
        const run = await store.getRun('r1');
        expect(run?.error).toEqual(error);
        expect(run && 'result' in run).toBe(false);
        await store.commit('r1', fence, { operations: [], run: { result: '"small again"', error: null } });
        expect(await store.getRun('r1')).toMatchObject({ result: '"small again"' });
      });

      test('a value over 6 MB is rejected with payload_too_large and nothing is written', async () => {
        const fence = await leased('r1');
        const tooBig = payload(6 * MB + 100, 'big');
        const attempt = store.commit('r1', fence, {
          operations: [stepOp('1', '"fine"'), stepOp('2', tooBig)],
          run: { handledEventSeq: 3 },
        });
        await expect(attempt).rejects.toMatchObject({ code: 'payload_too_large' });
        expect(await store.loadOperations('r1')).toEqual([executionOp()]);
        expect((await store.getRun('r1'))?.handledEventSeq).toBe(0);
      });
    });

    describe('retention', () => {
      test('a run past expiresAt is invisible everywhere, and can be created anew', async () => {
        const fence = await leased('r1', { expiresAt: T0 + 5_000 });
        await store.commit('r1', fence, { operations: [stepOp('1', '"old"'), callbackOp('2')] });
        clock.set(T0 + 4_999);
        expect(await store.getRun('r1')).toBeDefined();
        clock.set(T0 + 5_000);
        expect(await store.getRun('r1')).toBeUndefined();
        expect(await store.loadOperations('r1')).toEqual([]);
        expect(await store.getOperation('r1', '1')).toBeUndefined();
        clock.set(T0 + 70_000);
        expect(await store.acquireLease('r1', T0 + 70_000, T0 + 80_000)).toBeUndefined();
        await expect(store.commit('r1', fence, { operations: [stepOp('3', '3')] })).rejects.toBeInstanceOf(FencedError);
        const done = { ...callbackOp('2'), Status: 'SUCCEEDED' as const };
        expect(await store.writeOutsideEvent('r1', done, { Status: 'STARTED' }, true)).toBe(false);

        const fresh = await store.createRun(
          runRecord('r1', { input: '"new"', createdAt: T0 + 70_000 }),
          executionOp('"new"'),
        );
        expect(fresh.created).toBe(true);
        expect(fresh.run.input).toBe('"new"');
        expect((await store.getRun('r1'))?.input).toBe('"new"');
        expect(await store.loadOperations('r1')).toEqual([executionOp('"new"')]);
        expect(await store.getOperation('r1', '1')).toBeUndefined();
        expect(await store.acquireLease('r1', T0 + 70_000, T0 + 80_000)).toBeDefined();
      });

      test('a fence of an expired run never writes into the run created anew under its id', async () => {
        const stale = await leased('r1', { expiresAt: T0 + 5_000 });
        clock.set(T0 + 5_000);
        await store.createRun(runRecord('r1', { input: '"new"', createdAt: T0 + 5_000 }), executionOp('"new"'));
        const grant = await store.acquireLease('r1', T0 + 5_000, T0 + 60_000);
        expect(grant).toBeDefined();
        await expect(store.commit('r1', stale, { operations: [stepOp('1', '"stale"')] })).rejects.toBeInstanceOf(
          FencedError,
        );
        expect(await store.loadOperations('r1')).toEqual([executionOp('"new"')]);
      });

      test('retention set by a commit applies the same way', async () => {
        const fence = await leased('r1');
        await store.commit('r1', fence, {
          operations: [],
          run: { status: 'SUCCEEDED', endedAt: T0, leaseExpiresAt: null, expiresAt: T0 + 1_000 },
        });
        expect((await store.getRun('r1'))?.expiresAt).toBe(T0 + 1_000);
        clock.set(T0 + 1_000);
        expect(await store.getRun('r1')).toBeUndefined();
        expect(await store.loadOperations('r1')).toEqual([]);
      });
    });
  });
}
