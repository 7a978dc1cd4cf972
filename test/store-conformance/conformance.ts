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
import { describeConcurrencySlotConformance } from './concurrency-slot-conformance';
import { describeDueConformance } from './due-conformance';
import {
  type ConformanceClock,
  type ConformanceOptions,
  contextOp,
  executionOp,
  expectGuaranteedOrder,
  leaseToken,
  payload,
  runRecord,
  stepOp,
  T0,
  withDueAt,
} from './fixtures';
import { describeFlowGateConformance } from './flow-gate-conformance';
import { describeFunctionLimitsConformance } from './function-limits-conformance';
import { describeHistoryOrderConformance } from './history-order-conformance';
import { describeMeterConformance } from './meter-conformance';
import { describeOperationPageConformance } from './operation-page-conformance';
import { describeOutsideEventConformance } from './outside-event-conformance';
import { describePayloadConformance } from './payload-conformance';
import { describePublishedConformance } from './published-conformance';
import { describeRecreationConformance } from './recreation-conformance';
import { describeReplayLoadConformance } from './replay-load-conformance';
import { describeRetryConformance } from './retry-conformance';
import { describeSearchConformance } from './search-conformance';
import { describeSignalConformance } from './signal-conformance';
import { conformanceTest } from './support';

export * from './fixtures';

export function describeStoreConformance(
  name: string,
  setup: () => Promise<{ store: Store; clock: ConformanceClock }>,
  options: ConformanceOptions = {},
): void {
  const test = conformanceTest(options);

  describePayloadConformance(name, setup, options);
  describeDueConformance(name, setup, options);
  describeRetryConformance(name, setup, options);
  describeOutsideEventConformance(name, setup, options);
  describeOperationPageConformance(name, setup, options);
  describeReplayLoadConformance(name, setup, options);
  describeMeterConformance(name, setup, options);
  describeRecreationConformance(name, setup, options);
  describeConcurrencySlotConformance(name, setup, options);
  describeFlowGateConformance(name, setup, options);
  describeHistoryOrderConformance(name, setup, options);
  describeFunctionLimitsConformance(name, setup, options);
  describePublishedConformance(name, setup, options);
  describeSearchConformance(name, setup, options);
  describeSignalConformance(name, setup, options);

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
      const grant = await store.acquireLease(runId, clock.now(), clock.now() + 60_000, leaseToken());
      if (!grant) throw new Error('lease not granted');
      return grant.run.fence;
    }

    describe('createRun', () => {
      test('creates the run and its EXECUTION operation, readable back', async () => {
        const first = await store.createRun(runRecord('r1'), executionOp());
        // Stored with its due-index key: a new run is due at once (nextWakeAt = T0).
        expect(first).toEqual({ created: true, run: withDueAt(runRecord('r1')) });
        expect(first.run.dueAt).toBe(T0);
        expect(await store.getRun('r1')).toEqual(withDueAt(runRecord('r1')));
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
        expect(await store.getRun('r1')).toEqual(withDueAt(full));
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
        const token = leaseToken();
        const grant = await store.acquireLease('r1', T0 + 10, T0 + 1_000, token);
        expect(grant?.previousLost).toBe(false);
        const expected = runRecord('r1', {
          fence: 1,
          leaseExpiresAt: T0 + 1_000,
          leaseToken: token,
          invocations: 1,
          updatedAt: T0 + 10,
        });
        // Due at the lease's end, or still at the earlier time the run was due (see due-conformance).
        const { dueAt, ...rest } = grant?.run ?? expected;
        const { dueAt: _created, ...expectedRest } = expected;
        expect(rest).toEqual(expectedRest);
        expect(dueAt).toBeLessThanOrEqual(T0 + 1_000);
        expect(await store.getRun('r1')).toEqual(grant?.run);
      });

      test('refuses while another invocation holds the lease', async () => {
        await leased('r1');
        expect(await store.acquireLease('r1', T0 + 59_999, T0 + 100_000, leaseToken())).toBeUndefined();
        expect((await store.getRun('r1'))?.fence).toBe(1);
      });

      test('takes a lapsed lease and counts the invocation before as lost', async () => {
        await leased('r1');
        clock.set(T0 + 60_000);
        const grant = await store.acquireLease('r1', T0 + 60_000, T0 + 120_000, leaseToken());
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
        const grant = await store.acquireLease('r1', T0 + 1, T0 + 60_000, leaseToken());
        expect(grant?.previousLost).toBe(false);
        expect(grant?.run).toMatchObject({ fence: 2, invocations: 2, lostInvocations: 0 });
      });

      test('refuses a run that is not RUNNING, and an unknown run', async () => {
        const fence = await leased('r1');
        await store.commit('r1', fence, { operations: [], run: { status: 'SUCCEEDED', leaseExpiresAt: null } });
        expect(await store.acquireLease('r1', T0 + 1, T0 + 60_000, leaseToken())).toBeUndefined();
        expect(await store.acquireLease('nope', T0, T0 + 60_000, leaseToken())).toBeUndefined();
      });

      test('concurrent acquires on one run: exactly one wins', async () => {
        await store.createRun(runRecord('r1'), executionOp());
        const grants = await Promise.all(
          Array.from({ length: 10 }, () => store.acquireLease('r1', T0, T0 + 60_000, leaseToken())),
        );
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
        const fresh = await store.acquireLease('r1', T0 + 60_000, T0 + 120_000, leaseToken());
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
        await store.acquireLease('r1', T0 + 60_000, T0 + 120_000, leaseToken());
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
  });
}
