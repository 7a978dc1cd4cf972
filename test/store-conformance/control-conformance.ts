/**
 * The behaviour every {@link Store} must have for the control API's methods, as vitest suites:
 * `listRuns`, `reviseRun`, and the idempotency records (`claimIdempotencyKey`,
 * `completeIdempotencyKey`, `releaseIdempotencyKey`). Run it on a store with:
 *
 *   describeControlConformance('MyStore', async () => ({ store, clock }));
 *
 * `setup` runs before each test and must give a store with no runs and no idempotency records
 * whose notion of "now" (retention, idempotency expiry, `updatedAt`) is `clock`.
 */
import type { IdempotencyRecord, RunRecord, RunStatus, Store } from '@durable-lambda/engine';
import { FencedError } from '@durable-lambda/protocol';
import { beforeEach, describe, expect } from 'vitest';
import {
  type ConformanceClock,
  type ConformanceOptions,
  callbackOp,
  executionOp,
  leaseToken,
  runRecord,
  stepOp,
  T0,
} from './fixtures';
import { describeFunctionVersionListingConformance } from './function-versions-conformance';
import { conformanceTest } from './support';

export function describeControlConformance(
  name: string,
  setup: () => Promise<{ store: Store; clock: ConformanceClock }>,
  options: ConformanceOptions = {},
): void {
  const test = conformanceTest(options);

  describeFunctionVersionListingConformance(name, setup, options);

  describe(`${name}: control conformance`, () => {
    let store: Store;
    let clock: ConformanceClock;

    beforeEach(async () => {
      ({ store, clock } = await setup());
      clock.set(T0);
    });

    /** Creates runs `${prefix}${i}` created at `T0 + offsets[i]`. */
    async function createRuns(specs: ReadonlyArray<{ id: string; at: number } & Partial<RunRecord>>): Promise<void> {
      for (const { id, at, ...overrides } of specs) {
        await store.createRun(runRecord(id, { createdAt: at, updatedAt: at, ...overrides }), executionOp());
      }
    }

    /** Every run of the query, following cursors; also checks each page's size. */
    async function listAll(query: Parameters<Store['listRuns']>[0], limit: number): Promise<string[][]> {
      const pages: string[][] = [];
      let cursor: string | undefined;
      do {
        const page = await store.listRuns({ ...query, limit, ...(cursor === undefined ? {} : { cursor }) });
        expect(page.runs.length).toBeLessThanOrEqual(limit);
        pages.push(page.runs.map((run) => run.runId));
        cursor = page.cursor;
        if (pages.length > 100) throw new Error('listRuns never stopped paging');
      } while (cursor !== undefined);
      return pages;
    }

    async function leased(runId: string, overrides: Partial<RunRecord> = {}): Promise<number> {
      await store.createRun(runRecord(runId, overrides), executionOp());
      const grant = await store.acquireLease(runId, clock.now(), clock.now() + 60_000, leaseToken());
      if (!grant) throw new Error('lease not granted');
      return grant.run.fence;
    }

    describe('listRuns', () => {
      test('an empty store lists nothing, without a cursor', async () => {
        expect(await store.listRuns({})).toEqual({ runs: [] });
      });

      test('newest first; runs created at the same time by run id, descending', async () => {
        await createRuns([
          { id: 'b', at: T0 + 1 },
          { id: 'a', at: T0 + 3 },
          { id: 'c', at: T0 + 2 },
          { id: 'e', at: T0 + 2 },
          { id: 'd', at: T0 + 2 },
        ]);
        const page = await store.listRuns({});
        expect(page.runs.map((run) => run.runId)).toEqual(['a', 'e', 'd', 'c', 'b']);
        expect(page.cursor).toBeUndefined();
      });

      test('returns whole run records, as getRun does', async () => {
        await createRuns([{ id: 'r1', at: T0, runKey: 'k', parent: { runId: 'p', operationId: '2' } }]);
        const fence = (await store.acquireLease('r1', T0, T0 + 60_000, leaseToken()))?.run.fence ?? 0;
        await store.commit('r1', fence, { operations: [], run: { nextWakeAt: T0 + 5 } });
        const { runs } = await store.listRuns({});
        expect(runs).toEqual([await store.getRun('r1')]);
      });

      test('filters by function name, status and creation time (after inclusive, before exclusive)', async () => {
        await createRuns([
          { id: 'f1', at: T0 + 10, functionName: 'one' },
          { id: 'f2', at: T0 + 20, functionName: 'two' },
          { id: 'f3', at: T0 + 30, functionName: 'one', status: 'SUCCEEDED' },
          { id: 'f4', at: T0 + 40, functionName: 'one', status: 'FAILED' },
          { id: 'f5', at: T0 + 50, functionName: 'two', status: 'SUCCEEDED' },
        ]);
        const ids = async (query: Parameters<Store['listRuns']>[0]) =>
          (await store.listRuns(query)).runs.map((run) => run.runId);
        expect(await ids({ functionName: 'one' })).toEqual(['f4', 'f3', 'f1']);
        expect(await ids({ functionName: 'nope' })).toEqual([]);
        expect(await ids({ status: 'SUCCEEDED' })).toEqual(['f5', 'f3']);
        expect(await ids({ status: 'RUNNING' })).toEqual(['f2', 'f1']);
        expect(await ids({ createdAfter: T0 + 20 })).toEqual(['f5', 'f4', 'f3', 'f2']);
        expect(await ids({ createdBefore: T0 + 40 })).toEqual(['f3', 'f2', 'f1']);
        expect(await ids({ createdAfter: T0 + 20, createdBefore: T0 + 50 })).toEqual(['f4', 'f3', 'f2']);
        expect(await ids({ functionName: 'one', status: 'SUCCEEDED' })).toEqual(['f3']);
        expect(await ids({ functionName: 'two', status: 'SUCCEEDED', createdBefore: T0 + 50 })).toEqual([]);
        expect(await ids({ functionName: 'one', createdAfter: T0 + 11, createdBefore: T0 + 41 })).toEqual(['f4', 'f3']);
      });

      test('the filters see the current status, after commits and revisions', async () => {
        const fence = await leased('r1');
        await store.createRun(runRecord('r2', { createdAt: T0 + 1 }), executionOp());
        await store.commit('r1', fence, { operations: [], run: { status: 'SUCCEEDED', leaseExpiresAt: null } });
        await store.reviseRun('r2', 'RUNNING', { status: 'CANCELLED' }, []);
        expect((await store.listRuns({ status: 'RUNNING' })).runs).toEqual([]);
        expect((await store.listRuns({ status: 'SUCCEEDED' })).runs.map((run) => run.runId)).toEqual(['r1']);
        expect((await store.listRuns({ status: 'CANCELLED' })).runs.map((run) => run.runId)).toEqual(['r2']);
      });

      test('pages with cursors: every run exactly once, in order, 20 by default', async () => {
        const specs = Array.from({ length: 45 }, (_, i) => ({
          id: `run-${String(i).padStart(2, '0')}`,
          at: T0 + (i % 7),
        }));
        await createRuns(specs);
        const expected = [...specs].sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : -1)).map((spec) => spec.id);

        const first = await store.listRuns({});
        expect(first.runs).toHaveLength(20);
        expect(first.cursor).toEqual(expect.any(String));

        const pages = await listAll({}, 20);
        expect(pages.slice(0, 3).map((page) => page.length)).toEqual([20, 20, 5]);
        expect(pages.flat()).toEqual(expected);

        const byOne = await listAll({}, 1);
        expect(byOne.flat()).toEqual(expected);
        const byHundred = await listAll({}, 100);
        expect(byHundred[0]).toEqual(expected);
      });

      test('a page that is not the last always has a cursor; following it past the end gives nothing', async () => {
        await createRuns(Array.from({ length: 6 }, (_, i) => ({ id: `r${i}`, at: T0 + i })));
        const page = await store.listRuns({ limit: 5 });
        expect(page.runs.map((run) => run.runId)).toEqual(['r5', 'r4', 'r3', 'r2', 'r1']);
        expect(page.cursor).toBeDefined();
        const last = await store.listRuns({ limit: 5, cursor: page.cursor as string });
        expect(last.runs.map((run) => run.runId)).toEqual(['r0']);
        expect(last.cursor).toBeUndefined();
        // Exactly a full page: a cursor may come (a store can't always tell), but leads nowhere.
        const full = await store.listRuns({ limit: 6 });
        expect(full.runs).toHaveLength(6);
        if (full.cursor !== undefined)
          expect(await store.listRuns({ limit: 6, cursor: full.cursor })).toEqual({ runs: [] });
      });

      test('cursors page within the filters', async () => {
        await createRuns(
          Array.from({ length: 30 }, (_, i) => ({
            id: `r${String(i).padStart(2, '0')}`,
            at: T0 + i,
            functionName: i % 3 === 0 ? 'three' : 'other',
            status: (i % 2 === 0 ? 'RUNNING' : 'SUCCEEDED') as RunStatus,
          })),
        );
        const pages = await listAll({ functionName: 'three', status: 'RUNNING', createdBefore: T0 + 25 }, 2);
        expect(pages.flat()).toEqual(['r24', 'r18', 'r12', 'r06', 'r00']);
      });

      test('a cursor stays valid while runs are created: newer ones are not listed, none repeats', async () => {
        await createRuns(Array.from({ length: 10 }, (_, i) => ({ id: `r${i}`, at: T0 + i })));
        const first = await store.listRuns({ limit: 4 });
        await createRuns([
          { id: 'new', at: T0 + 100 },
          { id: 'r3b', at: T0 + 3 },
        ]);
        const rest = await listAll({}, 4);
        const second = await store.listRuns({ limit: 4, cursor: first.cursor as string });
        expect(first.runs.map((run) => run.runId)).toEqual(['r9', 'r8', 'r7', 'r6']);
        expect(second.runs.map((run) => run.runId)).toEqual(['r5', 'r4', 'r3b', 'r3']);
        expect(rest.flat()).toHaveLength(12);
      });

      test('limit must be a whole number from 1 to 100; a cursor must be one it returned', async () => {
        await createRuns(Array.from({ length: 3 }, (_, i) => ({ id: `r${i}`, at: T0 + i })));
        for (const limit of [0, -1, 101, 1.5, Number.NaN]) {
          await expect(store.listRuns({ limit }), `limit ${limit}`).rejects.toMatchObject({
            code: 'invalid_argument',
            field: 'limit',
          });
        }
        expect((await store.listRuns({ limit: 1 })).runs).toHaveLength(1);
        expect((await store.listRuns({ limit: 100 })).runs).toHaveLength(3);
        await expect(store.listRuns({ cursor: 'not a cursor' })).rejects.toMatchObject({
          code: 'invalid_argument',
          field: 'cursor',
        });
      });

      test('expired runs are not listed, nor counted in pages', async () => {
        await createRuns([
          { id: 'kept', at: T0 + 1 },
          { id: 'gone1', at: T0 + 2, expiresAt: T0 + 1_000 },
          { id: 'later', at: T0 + 3, expiresAt: T0 + 5_000 },
          { id: 'gone2', at: T0 + 4, expiresAt: T0 + 1_000 },
          { id: 'kept2', at: T0 + 5 },
        ]);
        expect((await store.listRuns({})).runs.map((run) => run.runId)).toEqual([
          'kept2',
          'gone2',
          'later',
          'gone1',
          'kept',
        ]);
        clock.set(T0 + 1_000);
        expect((await store.listRuns({})).runs.map((run) => run.runId)).toEqual(['kept2', 'later', 'kept']);
        const pages = await listAll({}, 2);
        expect(pages.flat()).toEqual(['kept2', 'later', 'kept']);
        expect(pages[0]).toEqual(['kept2', 'later']);
        clock.set(T0 + 5_000);
        expect((await store.listRuns({ createdAfter: T0 + 2 })).runs.map((run) => run.runId)).toEqual(['kept2']);
      });

      test('returns copies', async () => {
        await createRuns([{ id: 'r1', at: T0 }]);
        const [run] = (await store.listRuns({})).runs;
        if (run) run.status = 'FAILED';
        expect((await store.getRun('r1'))?.status).toBe('RUNNING');
      });
    });

    describe('reviseRun', () => {
      test('applies the patch while the status is as expected: fence grows, lease released, updatedAt now', async () => {
        const fence = await leased('r1', { nextWakeAt: T0 + 50 });
        clock.set(T0 + 9);
        const revised = await store.reviseRun(
          'r1',
          'RUNNING',
          { status: 'CANCELLED', endedAt: T0 + 9, nextWakeAt: null },
          [],
        );
        expect(revised).toMatchObject({ status: 'CANCELLED', endedAt: T0 + 9, fence: fence + 1, updatedAt: T0 + 9 });
        expect(revised && 'leaseExpiresAt' in revised).toBe(false);
        expect(revised && 'nextWakeAt' in revised).toBe(false);
        expect(await store.getRun('r1')).toEqual(revised);
      });

      test('refuses (undefined, nothing written) when the status differs, or the run is unknown', async () => {
        const fence = await leased('r1');
        const before = await store.getRun('r1');
        const attempt = await store.reviseRun('r1', 'FAILED', { status: 'RUNNING', error: null }, [
          stepOp('1', '"revised"'),
        ]);
        expect(attempt).toBeUndefined();
        expect(await store.getRun('r1')).toEqual(before);
        expect(await store.loadOperations('r1')).toEqual([executionOp()]);
        await store.commit('r1', fence, { operations: [stepOp('2', '"still mine"')] });
        expect(await store.reviseRun('nope', 'RUNNING', { status: 'CANCELLED' }, [])).toBeUndefined();
        expect(await store.getRun('nope')).toBeUndefined();
      });

      test('with basedOn, applies only at that fence: a revision or a lease in between refuses it', async () => {
        const fence = await leased('r1');
        const read = await store.getRun('r1');
        await store.reviseRun('r1', 'RUNNING', { nextWakeAt: T0 }, []);
        const after = await store.getRun('r1');
        const stale = await store.reviseRun('r1', 'RUNNING', { status: 'CANCELLED' }, [stepOp('1', '"x"')], {
          fence: read?.fence ?? fence,
        });
        expect(stale).toBeUndefined();
        expect(await store.getRun('r1')).toEqual(after);
        expect(await store.getOperation('r1', '1')).toBeUndefined();
        const current = await store.reviseRun('r1', 'RUNNING', { status: 'CANCELLED' }, [], {
          fence: after?.fence ?? 0,
        });
        expect(current).toMatchObject({ status: 'CANCELLED', fence: (after?.fence ?? 0) + 1 });
      });

      test('fences out the invocation that held the lease', async () => {
        const fence = await leased('r1');
        await store.reviseRun('r1', 'RUNNING', { status: 'CANCELLED' }, []);
        await expect(store.commit('r1', fence, { operations: [stepOp('1', '"late"')] })).rejects.toBeInstanceOf(
          FencedError,
        );
        expect(await store.getOperation('r1', '1')).toBeUndefined();
        expect((await store.getRun('r1'))?.status).toBe('CANCELLED');
      });

      test('writes its operations with the patch: new ones added, existing ones replaced in place', async () => {
        const fence = await leased('r1');
        await store.commit('r1', fence, {
          operations: [stepOp('1', '"a"'), { ...stepOp('2', ''), Status: 'FAILED' }, stepOp('3', '"c"')],
          run: { status: 'FAILED', leaseExpiresAt: null, error: { ErrorType: 'E', ErrorMessage: 'm' } },
        });
        const retried = stepOp('2', '"b"');
        const revised = await store.reviseRun('r1', 'FAILED', { status: 'RUNNING', error: null, nextWakeAt: T0 }, [
          retried,
          callbackOp('4'),
        ]);
        expect(revised).toMatchObject({ status: 'RUNNING', nextWakeAt: T0, fence: fence + 1 });
        expect(revised && 'error' in revised).toBe(false);
        expect(await store.loadOperations('r1')).toEqual([
          executionOp(),
          stepOp('1', '"a"'),
          retried,
          stepOp('3', '"c"'),
          callbackOp('4'),
        ]);
      });

      test('a revised run is leased afresh, its lease free rather than lost', async () => {
        const fence = await leased('r1');
        await store.commit('r1', fence, { operations: [], run: { status: 'FAILED', leaseExpiresAt: null } });
        await store.reviseRun('r1', 'FAILED', { status: 'RUNNING' }, []);
        const grant = await store.acquireLease('r1', T0 + 1, T0 + 60_000, leaseToken());
        expect(grant?.previousLost).toBe(false);
        expect(grant?.run).toMatchObject({ fence: fence + 2, lostInvocations: 0 });
      });

      test('a revision releases a lease that is still held: the next acquire needs no lapse', async () => {
        await leased('r1');
        const revised = await store.reviseRun('r1', 'RUNNING', { nextWakeAt: T0 }, []);
        expect(revised?.status).toBe('RUNNING');
        const grant = await store.acquireLease('r1', T0 + 1, T0 + 60_000, leaseToken());
        expect(grant?.previousLost).toBe(false);
      });

      test('concurrent revisions expecting the same status: exactly one applies', async () => {
        await leased('r1');
        const outcomes = await Promise.all(
          Array.from({ length: 6 }, (_, i) =>
            store.reviseRun('r1', 'RUNNING', { status: 'CANCELLED', endedAt: T0 + i }, [stepOp('1', `"${i}"`)]),
          ),
        );
        const applied = outcomes.filter((run) => run !== undefined);
        expect(applied).toHaveLength(1);
        const winner = outcomes.findIndex((run) => run !== undefined);
        expect(await store.getRun('r1')).toMatchObject({ endedAt: T0 + winner, fence: 2 });
        expect((await store.getOperation('r1', '1'))?.StepDetails?.Result).toBe(`"${winner}"`);
      });

      test('an expired run cannot be revised', async () => {
        await leased('r1', { expiresAt: T0 + 1_000 });
        clock.set(T0 + 1_000);
        expect(await store.reviseRun('r1', 'RUNNING', { status: 'CANCELLED' }, [stepOp('1', '1')])).toBeUndefined();
      });
    });

    describe('idempotency keys', () => {
      const record = (key: string, overrides: Partial<IdempotencyRecord> = {}): IdempotencyRecord => ({
        key,
        requestHash: `hash-of-${key}`,
        state: 'IN_PROGRESS',
        createdAt: T0,
        expiresAt: T0 + 60_000,
        ...overrides,
      });

      test('a key is claimed once; later claims get the live record', async () => {
        expect(await store.claimIdempotencyKey(record('k1'))).toEqual({ claimed: true });
        const again = await store.claimIdempotencyKey(record('k1', { requestHash: 'other', createdAt: T0 + 5 }));
        expect(again).toEqual({ claimed: false, existing: record('k1') });
        expect(await store.claimIdempotencyKey(record('k2'))).toEqual({ claimed: true });
      });

      test('complete stores the response, which later claims return', async () => {
        await store.claimIdempotencyKey(record('k1'));
        const response = { status: 201, body: '{"runId":"r1"}', headers: { 'content-type': 'application/json' } };
        await store.completeIdempotencyKey('k1', response);
        expect(await store.claimIdempotencyKey(record('k1'))).toEqual({
          claimed: false,
          existing: { ...record('k1'), state: 'COMPLETED', response },
        });
        await store.completeIdempotencyKey('k2', response);
        expect(await store.claimIdempotencyKey(record('k2'))).toEqual({ claimed: true });
      });

      test('a response without headers, and a large body, round-trip', async () => {
        await store.claimIdempotencyKey(record('k1'));
        const body = JSON.stringify({ data: 'x'.repeat(600_000) });
        await store.completeIdempotencyKey('k1', { status: 200, body });
        const again = await store.claimIdempotencyKey(record('k1'));
        expect(again).toEqual({
          claimed: false,
          existing: { ...record('k1'), state: 'COMPLETED', response: { status: 200, body } },
        });
      });

      test('an expired key may be claimed afresh', async () => {
        await store.claimIdempotencyKey(record('k1'));
        await store.completeIdempotencyKey('k1', { status: 200, body: 'old' });
        clock.set(T0 + 59_999);
        expect((await store.claimIdempotencyKey(record('k1'))).claimed).toBe(false);
        clock.set(T0 + 60_000);
        const fresh = record('k1', { requestHash: 'new', createdAt: T0 + 60_000, expiresAt: T0 + 120_000 });
        expect(await store.claimIdempotencyKey(fresh)).toEqual({ claimed: true });
        expect(await store.claimIdempotencyKey(record('k1'))).toEqual({ claimed: false, existing: fresh });
      });

      test('a key of any length works, past the size of a DynamoDB key (the path is part of it)', async () => {
        const long = `POST /v1/runs/${'%C3%A9'.repeat(500)}/cancel k1`;
        const longer = `${long}x`;
        expect(await store.claimIdempotencyKey(record(long))).toEqual({ claimed: true });
        expect(await store.claimIdempotencyKey(record(longer))).toEqual({ claimed: true });
        await store.completeIdempotencyKey(long, { status: 404, body: '{}' });
        expect(await store.claimIdempotencyKey(record(long))).toEqual({
          claimed: false,
          existing: { ...record(long), state: 'COMPLETED', response: { status: 404, body: '{}' } },
        });
        await store.releaseIdempotencyKey(longer);
        expect(await store.claimIdempotencyKey(record(longer, { requestHash: 'again' }))).toEqual({ claimed: true });
      });

      test('a released key may be claimed again', async () => {
        await store.claimIdempotencyKey(record('k1'));
        await store.releaseIdempotencyKey('k1');
        expect(await store.claimIdempotencyKey(record('k1', { requestHash: 'second' }))).toEqual({ claimed: true });
        await store.releaseIdempotencyKey('never-claimed');
      });

      test('concurrent claims of one key: exactly one claims it', async () => {
        const outcomes = await Promise.all(
          Array.from({ length: 8 }, (_, i) => store.claimIdempotencyKey(record('k1', { requestHash: `h${i}` }))),
        );
        expect(outcomes.filter((outcome) => outcome.claimed)).toHaveLength(1);
        const winner = outcomes.findIndex((outcome) => outcome.claimed);
        for (const outcome of outcomes) {
          if (!outcome.claimed) expect(outcome.existing.requestHash).toBe(`h${winner}`);
        }
      });
    });
  });
}
