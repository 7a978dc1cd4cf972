/**
 * Store conformance, continued: `listRuns` by function across the qualifiers version pinning
 * records (`orders:7` pinned, `orders:live` on the alias, `orders:$LATEST` opted out, bare
 * `orders` from before). A bare name lists the runs of every qualifier of it, a qualified name
 * only its own; cursors page the merged listing, each run exactly once, in order. Called by
 * `describeControlConformance`.
 */
import type { RunQuery, RunRecord, RunStatus, Store } from '@durable-lambda/engine';
import { describe, expect } from 'vitest';
import { type ConformanceClock, type ConformanceOptions, executionOp, runRecord, T0 } from './fixtures';
import { conformanceTest, useStore } from './support';

/** A run to create: its id, name, status and creation time offset from T0. */
type Spec = { id: string; functionName: string; status?: RunStatus; at: number };

/** Names that share a prefix with `orders` without being one of its qualifiers. */
const NEIGHBOURS = ['orders-eu', 'orders-eu:3', 'ordersx:1', 'order', 'order:1', 'orders_x', 'xorders:1'];

const PAY_ARN = 'arn:aws:lambda:us-east-1:123456789012:function:pay';

export function describeFunctionVersionListingConformance(
  name: string,
  setup: () => Promise<{ store: Store; clock: ConformanceClock }>,
  options: ConformanceOptions = {},
): void {
  const test = conformanceTest(options);

  describe(`${name}: listRuns by function across versions and aliases`, () => {
    const s = useStore(setup);

    async function create(specs: readonly Spec[]): Promise<void> {
      for (const { id, at, ...fields } of specs) {
        const overrides: Partial<RunRecord> = { ...fields, createdAt: T0 + at, updatedAt: T0 + at };
        await s.store.createRun(runRecord(id, overrides), executionOp());
      }
    }

    /** Every run id of `query`, following cursors `limit` at a time; checks each page's size. */
    async function pagedIds(query: RunQuery, limit: number): Promise<string[]> {
      const ids: string[] = [];
      let cursor: string | undefined;
      for (let pages = 0; ; pages++) {
        if (pages > 100) throw new Error('listRuns never stopped paging');
        const page = await s.store.listRuns({ ...query, limit, ...(cursor === undefined ? {} : { cursor }) });
        expect(page.runs.length).toBeLessThanOrEqual(limit);
        ids.push(...page.runs.map((run) => run.runId));
        cursor = page.cursor;
        if (cursor === undefined) return ids;
      }
    }

    /** The ids of `specs` that `keep` selects, newest first, then by run id descending. */
    function expected(specs: readonly Spec[], keep: (spec: Spec) => boolean): string[] {
      return specs
        .filter(keep)
        .sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : -1))
        .map((spec) => spec.id);
    }

    test('a bare name lists the runs of each of its qualifiers, a qualified name only its own', async () => {
      const specs: Spec[] = [
        { id: 'bare', functionName: 'orders', at: 1 },
        { id: 'v1', functionName: 'orders:1', at: 2 },
        { id: 'v2', functionName: 'orders:2', at: 3, status: 'SUCCEEDED' },
        { id: 'alias', functionName: 'orders:live', at: 4 },
        { id: 'latest', functionName: 'orders:$LATEST', at: 5, status: 'FAILED' },
        ...NEIGHBOURS.map((functionName, i) => ({ id: `n${i}`, functionName, at: 10 + i })),
        // A child run started by an invoke that named its function by ARN: the qualifier follows the name.
        { id: 'arn', functionName: PAY_ARN, at: 30 },
        { id: 'arn7', functionName: `${PAY_ARN}:7`, at: 31 },
      ];
      await create(specs);
      const ids = async (query: RunQuery) => (await s.store.listRuns(query)).runs.map((run) => run.runId);

      expect(await ids({ functionName: 'orders' })).toEqual(['latest', 'alias', 'v2', 'v1', 'bare']);
      expect(await ids({ functionName: 'orders:2' })).toEqual(['v2']);
      expect(await ids({ functionName: 'orders:live' })).toEqual(['alias']);
      expect(await ids({ functionName: 'orders:$LATEST' })).toEqual(['latest']);
      expect(await ids({ functionName: 'orders:3' })).toEqual([]);
      expect(await ids({ functionName: 'orders', status: 'RUNNING' })).toEqual(['alias', 'v1', 'bare']);
      expect(await ids({ functionName: 'orders', status: 'SUCCEEDED' })).toEqual(['v2']);
      expect(await ids({ functionName: 'orders:1', status: 'SUCCEEDED' })).toEqual([]);
      expect(await ids({ functionName: 'orders', createdAfter: T0 + 2, createdBefore: T0 + 5 })).toEqual([
        'alias',
        'v2',
        'v1',
      ]);
      // The neighbours are functions of their own: each lists itself (and its qualifiers) only.
      expect(await ids({ functionName: 'orders-eu' })).toEqual(['n1', 'n0']);
      expect(await ids({ functionName: 'order' })).toEqual(['n4', 'n3']);
      expect(await ids({ functionName: 'orders_x' })).toEqual(['n5']);
      expect(await ids({ functionName: PAY_ARN })).toEqual(['arn7', 'arn']);
      expect(await ids({ functionName: `${PAY_ARN}:7` })).toEqual(['arn7']);
      expect(await ids({ functionName: 'arn' })).toEqual([]);
    });

    test('cursors page a bare name across qualifiers and statuses: every run once, in order', async () => {
      const names = ['orders', 'orders:1', 'orders:2', 'orders:live', 'orders:$LATEST', 'orders-eu:1'];
      const statuses: RunStatus[] = ['RUNNING', 'SUCCEEDED', 'FAILED'];
      // Creation times collide (i % 5), so the order within one time is by run id across names.
      const specs: Spec[] = Array.from({ length: 19 }, (_, i) => ({
        id: `run-${String(i).padStart(2, '0')}`,
        functionName: names[i % names.length] as string,
        status: statuses[i % statuses.length] as RunStatus,
        at: i % 5,
      }));
      await create(specs);
      const ofOrders = (spec: Spec) => spec.functionName === 'orders' || spec.functionName.startsWith('orders:');

      for (const limit of [3, 20]) {
        expect(await pagedIds({ functionName: 'orders' }, limit)).toEqual(expected(specs, ofOrders));
      }
      expect(await pagedIds({ functionName: 'orders', status: 'RUNNING' }, 3)).toEqual(
        expected(specs, (spec) => ofOrders(spec) && spec.status === 'RUNNING'),
      );
      expect(await pagedIds({ functionName: 'orders:2' }, 2)).toEqual(
        expected(specs, (spec) => spec.functionName === 'orders:2'),
      );
    });

    test('a run ended after it was created is listed under its bare and its qualified name by its new status', async () => {
      await create([{ id: 'p', functionName: 'orders:7', at: 0 }]);
      await s.store.reviseRun('p', 'RUNNING', { status: 'CANCELLED' }, []);
      const ids = async (query: RunQuery) => (await s.store.listRuns(query)).runs.map((run) => run.runId);
      expect(await ids({ functionName: 'orders', status: 'CANCELLED' })).toEqual(['p']);
      expect(await ids({ functionName: 'orders:7', status: 'CANCELLED' })).toEqual(['p']);
      expect(await ids({ functionName: 'orders', status: 'RUNNING' })).toEqual([]);
    });
  });
}
