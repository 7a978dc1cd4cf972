/**
 * Store conformance, continued: finding runs by search tags and error code (issue 27, "Finding
 * runs"). Tags set at creation or by a commit (a key's new value replaces the old, which no longer
 * finds the run), every tag of a query must match, combined with function, status, time range and
 * error code, newest first, paged by cursor over many runs (pages may be short: callers page on
 * until there is no cursor). Called by `describeStoreConformance`.
 */
import type { RunQuery, RunRecord, Store } from '@durable-lambda/engine';
import { describe, expect } from 'vitest';
import { type ConformanceClock, type ConformanceOptions, executionOp, leaseToken, runRecord, T0 } from './fixtures';
import { conformanceTest, useStore } from './support';

/** Every run the query finds, page after page of `limit`, as ids in the order returned. */
async function everyPage(store: Store, query: RunQuery, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 200; pages++) {
    const page = await store.listRuns({ ...query, limit, ...(cursor === undefined ? {} : { cursor }) });
    expect(page.runs.length).toBeLessThanOrEqual(limit);
    ids.push(...page.runs.map((run) => run.runId));
    if (page.cursor === undefined) {
      expect(new Set(ids).size).toBe(ids.length);
      return ids;
    }
    cursor = page.cursor;
  }
  throw new Error('no last page after 200 pages');
}

/** Newest first, then by run id descending: the order of every listing. */
function newestFirst(runs: ReadonlyArray<Pick<RunRecord, 'runId' | 'createdAt'>>): string[] {
  return [...runs]
    .sort((a, b) => b.createdAt - a.createdAt || (a.runId < b.runId ? 1 : a.runId > b.runId ? -1 : 0))
    .map((run) => run.runId);
}

export function describeSearchConformance(
  name: string,
  setup: () => Promise<{ store: Store; clock: ConformanceClock }>,
  options: ConformanceOptions = {},
): void {
  const test = conformanceTest(options);

  describe(`${name}: store conformance (tags and search)`, () => {
    const s = useStore(setup);

    /** Creates a run (not leased) with these fields. */
    async function create(runId: string, overrides: Partial<RunRecord>): Promise<void> {
      await s.store.createRun(runRecord(runId, overrides), executionOp());
    }

    /** Takes the lease of `runId`; returns the fence. */
    async function lease(runId: string): Promise<number> {
      const grant = await s.store.acquireLease(runId, s.clock.now(), s.clock.now() + 60_000, leaseToken());
      if (!grant) throw new Error('lease not granted');
      return grant.run.fence;
    }

    /** Ends a leased run FAILED with `code`. */
    async function fail(runId: string, fence: number, code: string): Promise<void> {
      await s.store.commit(runId, fence, {
        operations: [],
        run: {
          status: 'FAILED',
          error: { ErrorType: 'Error', ErrorMessage: 'no', ErrorCode: code },
          endedAt: s.clock.now(),
          leaseExpiresAt: null,
          dueAt: null,
          expiresAt: s.clock.now() + 86_400_000,
        },
      });
    }

    const ids = async (query: RunQuery) => (await s.store.listRuns({ limit: 100, ...query })).runs.map((r) => r.runId);

    test('tags given at creation find the run; every tag of a query must match, value exact', async () => {
      await create('a', { tags: { customer: 'c-1', region: 'eu' }, createdAt: T0 + 1 });
      await create('b', { tags: { customer: 'c-1', region: 'us' }, createdAt: T0 + 2 });
      await create('c', { tags: { customer: 'c-2', region: 'eu' }, createdAt: T0 + 3 });
      await create('d', { createdAt: T0 + 4 });
      expect(await ids({ tags: { customer: 'c-1' } })).toEqual(['b', 'a']);
      expect(await ids({ tags: { region: 'eu' } })).toEqual(['c', 'a']);
      expect(await ids({ tags: { customer: 'c-1', region: 'eu' } })).toEqual(['a']);
      expect(await ids({ tags: { customer: 'c-' } })).toEqual([]);
      expect(await ids({ tags: { customer: 'C-1' } })).toEqual([]);
      expect(await ids({ tags: { missing: 'x' } })).toEqual([]);
      expect((await s.store.getRun('a'))?.tags).toEqual({ customer: 'c-1', region: 'eu' });
      expect((await s.store.listRuns({ tags: { customer: 'c-2' } })).runs[0]?.tags).toEqual({
        customer: 'c-2',
        region: 'eu',
      });
    });

    test('a commit that tags a run makes it found; a key tagged again finds it by the new value only', async () => {
      await create('t1', { tags: { customer: 'c-1' } });
      const fence = await lease('t1');
      await s.store.commit('t1', fence, {
        operations: [],
        run: { tags: { customer: 'c-1', stage: 'reserving' } },
        tagged: { before: { customer: 'c-1' }, createdAt: T0 },
      });
      expect(await ids({ tags: { stage: 'reserving' } })).toEqual(['t1']);
      await s.store.commit('t1', fence, {
        operations: [],
        run: { tags: { customer: 'c-2', stage: 'charging' } },
        tagged: { before: { customer: 'c-1', stage: 'reserving' }, createdAt: T0 },
      });
      expect(await ids({ tags: { stage: 'reserving' } })).toEqual([]);
      expect(await ids({ tags: { customer: 'c-1' } })).toEqual([]);
      expect(await ids({ tags: { customer: 'c-2', stage: 'charging' } })).toEqual(['t1']);
      // The same write again (a retry after a lost response) changes nothing.
      await s.store.commit('t1', fence, {
        operations: [],
        run: { tags: { customer: 'c-2', stage: 'charging' } },
        tagged: { before: { customer: 'c-1', stage: 'reserving' }, createdAt: T0 },
      });
      expect(await ids({ tags: { customer: 'c-2' } })).toEqual(['t1']);
      expect((await s.store.getRun('t1'))?.tags).toEqual({ customer: 'c-2', stage: 'charging' });
    });

    test('a fenced-out commit tags nothing', async () => {
      await create('f1', {});
      const fence = await lease('f1');
      await expect(
        s.store.commit('f1', fence + 1, {
          operations: [],
          run: { tags: { stale: 'yes' } },
          tagged: { before: {}, createdAt: T0 },
        }),
      ).rejects.toThrow();
      expect(await ids({ tags: { stale: 'yes' } })).toEqual([]);
    });

    test('tags combine with function, status, time range and error code', async () => {
      await create('x1', { functionName: 'orders', tags: { customer: 'c-1' }, createdAt: T0 + 10 });
      await create('x2', { functionName: 'orders:7', tags: { customer: 'c-1' }, createdAt: T0 + 20 });
      await create('x3', { functionName: 'billing', tags: { customer: 'c-1' }, createdAt: T0 + 30 });
      await create('x4', { functionName: 'orders', tags: { customer: 'c-1' }, createdAt: T0 + 40 });
      await create('x5', { functionName: 'orders', createdAt: T0 + 50 });
      s.clock.set(T0 + 60);
      await fail('x2', await lease('x2'), 'card_declined');
      await fail('x4', await lease('x4'), 'out_of_stock');
      await fail('x5', await lease('x5'), 'card_declined');
      const customer = { customer: 'c-1' };
      expect(await ids({ tags: customer, functionName: 'orders' })).toEqual(['x4', 'x2', 'x1']);
      expect(await ids({ tags: customer, functionName: 'orders:7' })).toEqual(['x2']);
      expect(await ids({ tags: customer, status: 'FAILED' })).toEqual(['x4', 'x2']);
      expect(await ids({ tags: customer, status: 'RUNNING' })).toEqual(['x3', 'x1']);
      expect(await ids({ tags: customer, createdAfter: T0 + 20, createdBefore: T0 + 40 })).toEqual(['x3', 'x2']);
      expect(await ids({ tags: customer, errorCode: 'card_declined' })).toEqual(['x2']);
      expect(await ids({ errorCode: 'card_declined' })).toEqual(['x5', 'x2']);
      expect(await ids({ errorCode: 'card_declined', functionName: 'orders', status: 'FAILED' })).toEqual(['x5', 'x2']);
      expect(await ids({ errorCode: 'card' })).toEqual([]);
      expect(await ids({ errorCode: 'out_of_stock', tags: { customer: 'c-2' } })).toEqual([]);
    });

    test('pages newest first across many runs, ties by run id, short pages allowed, each run once', async () => {
      const runs: Array<Pick<RunRecord, 'runId' | 'createdAt'>> = [];
      const failed: Array<Pick<RunRecord, 'runId' | 'createdAt'>> = [];
      for (let i = 0; i < 45; i++) {
        const runId = `p${String(i).padStart(2, '0')}`;
        // Ties: three runs share each created time.
        const createdAt = T0 + Math.floor(i / 3) * 1000;
        const region = i % 5 === 0 ? 'us' : 'eu';
        await create(runId, { tags: { region, batch: 'b1' }, createdAt });
        if (region === 'eu') runs.push({ runId, createdAt });
        if (region === 'eu' && i % 4 === 1) failed.push({ runId, createdAt });
      }
      s.clock.set(T0 + 100_000);
      for (const run of failed) await fail(run.runId, await lease(run.runId), 'timeout_upstream');
      expect(await everyPage(s.store, { tags: { region: 'eu' } }, 7)).toEqual(newestFirst(runs));
      expect(await everyPage(s.store, { tags: { region: 'eu', batch: 'b1' } }, 10)).toEqual(newestFirst(runs));
      expect(await everyPage(s.store, { tags: { region: 'eu' }, status: 'FAILED' }, 3)).toEqual(newestFirst(failed));
      expect(await everyPage(s.store, { errorCode: 'timeout_upstream' }, 4)).toEqual(newestFirst(failed));
      expect(await everyPage(s.store, { tags: { region: 'eu' }, errorCode: 'timeout_upstream' }, 2)).toEqual(
        newestFirst(failed),
      );
      const window = runs.filter((run) => run.createdAt >= T0 + 3000 && run.createdAt < T0 + 9000);
      expect(
        await everyPage(s.store, { tags: { region: 'eu' }, createdAfter: T0 + 3000, createdBefore: T0 + 9000 }, 4),
      ).toEqual(newestFirst(window));
    });

    test('a run past its retention is not found by its tags, nor a new run of its id by the old tags', async () => {
      await create('old', { tags: { customer: 'c-1' }, createdAt: T0 });
      await fail('old', await lease('old'), 'x');
      expect(await ids({ tags: { customer: 'c-1' } })).toEqual(['old']);
      s.clock.set(T0 + 86_400_000 + 1);
      expect(await ids({ tags: { customer: 'c-1' } })).toEqual([]);
      await create('old', { tags: { customer: 'c-2' }, createdAt: s.clock.now() });
      expect(await ids({ tags: { customer: 'c-1' } })).toEqual([]);
      expect(await ids({ tags: { customer: 'c-2' } })).toEqual(['old']);
    });

    test('refuses a query tag no run can carry, naming the field', async () => {
      await expect(s.store.listRuns({ tags: { 'bad key': 'x' } })).rejects.toMatchObject({
        code: 'invalid_argument',
        field: 'tags.bad key',
      });
      await expect(s.store.listRuns({ errorCode: '' })).rejects.toMatchObject({
        code: 'invalid_argument',
        field: 'errorCode',
      });
    });
  });
}
