/**
 * Store conformance, continued: `loadOperationPage`. Its pages, followed from the first to the
 * one without `after`, are `loadOperations` exactly (each operation once, in its order), each at
 * most `limit` long; a rewrite keeps an operation's place, an operation created between two pages
 * shows on a later one when it sorts after the cursor, and nothing is read of a run that is gone.
 * Optional in the port: a store without it lists these titles in `knownDeviations`. Called by
 * `describeStoreConformance`.
 */
import type { OperationPage, Store } from '@durable-lambda/engine';
import type { Operation } from '@durable-lambda/protocol';
import { describe, expect } from 'vitest';
import {
  type ConformanceClock,
  type ConformanceOptions,
  contextOp,
  executionOp,
  payload,
  runRecord,
  stepOp,
  T0,
} from './fixtures';
import { conformanceTest, useStore } from './support';

/** Every page of `runId`'s operations, `limit` at a time (at most `max` pages, so a loop fails). */
async function allPages(store: Store, runId: string, limit: number, max = 1_000): Promise<OperationPage[]> {
  const read = store.loadOperationPage?.bind(store);
  if (!read) throw new Error('the store has no loadOperationPage');
  const pages: OperationPage[] = [];
  let after: string | undefined;
  do {
    const page = await read(runId, { limit, ...(after === undefined ? {} : { after }) });
    pages.push(page);
    after = page.after;
  } while (after !== undefined && pages.length < max);
  return pages;
}

const ids = (ops: readonly Operation[]) => ops.map((op) => op.Id);

/**
 * A run's worth of operations: contexts with children, grandchildren, siblings numbered past 9
 * (so "10" sorts after "9" in tree order), a step still STARTED (a store may keep it inline in
 * the run item) and one whose result is large (a store may chunk it).
 */
function tree(): Operation[] {
  const ops: Operation[] = [contextOp('1')];
  for (let i = 1; i <= 12; i++) ops.push(stepOp(`1-${i}`, JSON.stringify(i)));
  ops.push(contextOp('2'), contextOp('2-1'), stepOp('2-1-1', '"deep"'), stepOp('2-2', payload(500_000)));
  ops.push(stepOp('3', '"x"', { Status: 'STARTED', EndTimestamp: undefined, StepDetails: { Attempt: 1 } }));
  for (let i = 4; i <= 11; i++) ops.push(stepOp(String(i), JSON.stringify(i)));
  return ops;
}

export function describeOperationPageConformance(
  name: string,
  setup: () => Promise<{ store: Store; clock: ConformanceClock }>,
  options: ConformanceOptions = {},
): void {
  const test = conformanceTest(options);

  describe(`${name}: store conformance (operation pages)`, () => {
    const s = useStore(setup);

    test('loadOperationPage: the pages are loadOperations, each operation once, in order', async () => {
      const fence = await s.leased('r1');
      // Committed in a few writes, as invocations do.
      const ops = tree();
      for (let start = 0; start < ops.length; start += 9) {
        await s.store.commit('r1', fence, { operations: ops.slice(start, start + 9) });
      }
      const everything = await s.store.loadOperations('r1');
      expect(everything).toHaveLength(ops.length + 1);
      for (const limit of [3, 8, everything.length + 5]) {
        const pages = await allPages(s.store, 'r1', limit);
        for (const page of pages) expect(page.operations.length).toBeLessThanOrEqual(limit);
        for (const page of pages.slice(0, -1)) {
          expect(page.operations.length, `a page before the last (limit ${limit})`).toBeGreaterThan(0);
          expect(page.after).toBe(page.operations.at(-1)?.Id);
        }
        expect(pages.at(-1)?.after).toBeUndefined();
        expect(
          pages.flatMap((page) => page.operations),
          `limit ${limit}`,
        ).toEqual(everything);
      }
    });

    test('loadOperationPage: a rewritten operation keeps its place; one created later shows after the cursor', async () => {
      const fence = await s.leased('r1');
      await s.store.commit('r1', fence, { operations: [stepOp('1', '1'), stepOp('2', '2'), stepOp('3', '3')] });
      const read = s.store.loadOperationPage?.bind(s.store);
      if (!read) throw new Error('the store has no loadOperationPage');
      const first = await read('r1', { limit: 2 });
      expect(ids(first.operations)).toEqual(['0', '1']);
      expect(first.after).toBe('1');
      // Between two pages: "1" is written again (before the cursor), "4" is new (after it).
      await s.store.commit('r1', fence, { operations: [stepOp('1', '"again"'), stepOp('4', '4')] });
      const rest = await allPages(s.store, 'r1', 2);
      const after = await read('r1', { limit: 10, after: '1' });
      expect(ids(after.operations)).toEqual(['2', '3', '4']);
      expect(after.after).toBeUndefined();
      expect(rest.flatMap((page) => page.operations)).toEqual(await s.store.loadOperations('r1'));
      expect(rest[0]?.operations[1]?.StepDetails?.Result).toBe('"again"');
    });

    test('loadOperationPage: nothing of a run that does not exist or whose retention has passed', async () => {
      const read = s.store.loadOperationPage?.bind(s.store);
      if (!read) throw new Error('the store has no loadOperationPage');
      expect(await read('missing', { limit: 10 })).toEqual({ operations: [] });
      await s.store.createRun(runRecord('r2', { expiresAt: T0 + 1_000 }), executionOp());
      expect(ids((await read('r2', { limit: 10 })).operations)).toEqual(['0']);
      s.clock.set(T0 + 2_000);
      expect(await read('r2', { limit: 10 })).toEqual({ operations: [] });
    });
  });
}
