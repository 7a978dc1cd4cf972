/**
 * Store conformance, continued: `loadReplayOperations`, what an invocation replays from. It is
 * exactly the engine's `replayScope` of `loadOperations` (the live operations plus one record per
 * finished context; the children of a context with `ReplayChildren`, recursively), and
 * `loadOperations` still returns everything (history, console, export).
 */
import { replayScope, type Store } from '@durable-lambda/engine';
import type { Operation } from '@durable-lambda/protocol';
import { describe, expect } from 'vitest';
import {
  type ConformanceClock,
  type ConformanceOptions,
  contextOp,
  executionOp,
  expectGuaranteedOrder,
  runRecord,
  stepOp,
  T0,
} from './fixtures';
import { conformanceTest, useStore } from './support';

/** A CONTEXT ended with `status`, its result inline unless `replayChildren`. */
function ended(id: string, status: 'SUCCEEDED' | 'FAILED' = 'SUCCEEDED', replayChildren = false): Operation {
  return {
    ...contextOp(id),
    Status: status,
    EndTimestamp: T0 + 2,
    ContextDetails: {
      ...(status === 'SUCCEEDED' ? { Result: JSON.stringify(`result of ${id}`) } : { Error: { ErrorMessage: id } }),
      ...(replayChildren ? { ReplayChildren: true } : {}),
    },
  };
}

/** `count` finished steps under `parent`, numbered from `from`. */
function steps(parent: string, count: number, from = 1): Operation[] {
  return Array.from({ length: count }, (_, i) => stepOp(`${parent}-${from + i}`, JSON.stringify(`${parent}:${i}`)));
}

function wait(id: string): Operation {
  const parent = id.includes('-') ? id.slice(0, id.lastIndexOf('-')) : undefined;
  return {
    Id: id,
    ...(parent ? { ParentId: parent } : {}),
    Type: 'WAIT',
    Status: 'STARTED',
    StartTimestamp: T0,
    WaitDetails: { ScheduledEndTimestamp: T0 + 3_600_000 },
  };
}

async function read(store: Store, runId: string): Promise<Operation[]> {
  const load = store.loadReplayOperations?.bind(store);
  if (!load) throw new Error('the store has no loadReplayOperations');
  return load(runId);
}

const ids = (ops: readonly Operation[]) => ops.map((op) => op.Id);

export function describeReplayLoadConformance(
  name: string,
  setup: () => Promise<{ store: Store; clock: ConformanceClock }>,
  options: ConformanceOptions = {},
): void {
  const test = conformanceTest(options);

  describe(`${name}: store conformance (replay load)`, () => {
    const s = useStore(setup);

    /** Commits `ops` in writes of at most 90, as invocations do. */
    async function commitAll(runId: string, fence: number, ops: readonly Operation[]): Promise<void> {
      for (let i = 0; i < ops.length; i += 90) await s.store.commit(runId, fence, { operations: ops.slice(i, i + 90) });
    }

    /** The replay load is replayScope(loadOperations), operation for operation, in the guaranteed order. */
    async function expectReplayScope(runId: string, expected: readonly string[]): Promise<Operation[]> {
      const everything = await s.store.loadOperations(runId);
      const loaded = await read(s.store, runId);
      expect([...ids(loaded)].sort()).toEqual([...expected].sort());
      expectGuaranteedOrder(ids(loaded));
      const scope = new Map(replayScope(everything).map((op) => [op.Id, op]));
      for (const op of loaded) expect(op, op.Id).toEqual(scope.get(op.Id));
      expect(loaded).toHaveLength(scope.size);
      return everything;
    }

    test('replay load: the live operations and one record per finished context, not their children', async () => {
      const fence = await s.leased('r1');
      await commitAll('r1', fence, [
        contextOp('1'),
        ...steps('1', 30),
        contextOp('1-31'),
        ...steps('1-31', 5),
        ended('1-31'),
        ended('1'),
        contextOp('2'),
        stepOp('2-1', '"a"'),
        contextOp('2-2'),
        ...steps('2-2', 12),
        ended('2-2'),
        wait('2-3'),
        stepOp('2-4', '"b"', { Status: 'STARTED', StepDetails: { Attempt: 1 } }),
        contextOp('3'),
        ...steps('3', 9),
        ended('3', 'FAILED'),
        wait('4'),
      ]);
      const everything = await expectReplayScope('r1', ['0', '1', '2', '2-1', '2-2', '2-3', '2-4', '3', '4']);
      // Nothing is dropped from the store: history still has every operation.
      expect(everything).toHaveLength(1 + 1 + 30 + 1 + 5 + 1 + 1 + 1 + 12 + 2 + 1 + 9 + 1);
      expect((await read(s.store, 'r1')).find((op) => op.Id === '1')?.ContextDetails?.Result).toBe('"result of 1"');
    });

    test('replay load: a finished context with ReplayChildren brings its children, recursively by the same rule', async () => {
      const fence = await s.leased('r1');
      await commitAll('r1', fence, [
        contextOp('1'),
        stepOp('1-1', '"a"'),
        contextOp('1-2'),
        ...steps('1-2', 20),
        ended('1-2'),
        contextOp('1-3'),
        stepOp('1-3-1', '"b"'),
        contextOp('1-3-2'),
        ...steps('1-3-2', 20),
        ended('1-3-2'),
        ended('1-3', 'SUCCEEDED', true),
        ended('1', 'SUCCEEDED', true),
        contextOp('2'),
        ...steps('2', 3),
        ended('2', 'FAILED', true),
        stepOp('3', '"c"'),
      ]);
      await expectReplayScope('r1', ['0', '1', '1-1', '1-2', '1-3', '1-3-1', '1-3-2', '2', '2-1', '2-2', '2-3', '3']);
    });

    test('replay load: an abandoned branch inside a finished parallel is left out with its siblings', async () => {
      const fence = await s.leased('r1');
      await commitAll('r1', fence, [
        contextOp('1'),
        contextOp('1-1'),
        stepOp('1-1-1', '"won"'),
        ended('1-1'),
        // The losing branch: still STARTED, a wait inside it, when the parallel completed.
        contextOp('1-2'),
        wait('1-2-1'),
        ended('1'),
        wait('2'),
      ]);
      const everything = await expectReplayScope('r1', ['0', '1', '2']);
      expect(ids(everything)).toContain('1-2-1');
    });

    test('replay load: large finished contexts among live ones, across many pages', async () => {
      const fence = await s.leased('r1');
      const ops: Operation[] = [contextOp('1'), ...steps('1', 300), ended('1'), contextOp('2')];
      for (let i = 1; i <= 6; i++) ops.push(contextOp(`2-${i}`), ...steps(`2-${i}`, i * 15), ended(`2-${i}`));
      ops.push(contextOp('2-7'), ...steps('2-7', 40), stepOp('3', '"c"'), wait('4'));
      await commitAll('r1', fence, ops);
      const live = ['2-7', ...ids(steps('2-7', 40))];
      await expectReplayScope('r1', ['0', '1', '2', '2-1', '2-2', '2-3', '2-4', '2-5', '2-6', ...live, '3', '4']);
    }, 60_000);

    test('replay load: ids that are not positional (AWS SDK hashes) follow ParentId alone', async () => {
      const fence = await s.leased('r1');
      const under = (op: Operation, parent: string): Operation => ({ ...op, ParentId: parent });
      await commitAll('r1', fence, [
        contextOp('c0ffee'),
        // An id the finished one's is a prefix of, with a '.': not its child (no ParentId).
        stepOp('c0ffee.1', '"not a child"'),
        under(stepOp('aa11', '"a"'), 'c0ffee'),
        under(contextOp('dd44'), 'c0ffee'),
        under(stepOp('ee55', '"e"'), 'dd44'),
        { ...ended('c0ffee'), Id: 'c0ffee' },
        contextOp('bb22'),
        under(stepOp('cc33', '"c"'), 'bb22'),
        under(wait('ff66'), 'bb22'),
      ]);
      const everything = await s.store.loadOperations('r1');
      const loaded = await read(s.store, 'r1');
      expect([...ids(loaded)].sort()).toEqual(['0', 'bb22', 'c0ffee', 'c0ffee.1', 'cc33', 'ff66']);
      const scope = new Map(replayScope(everything).map((op) => [op.Id, op]));
      for (const op of loaded) expect(op, op.Id).toEqual(scope.get(op.Id));
    });

    test('replay load: nothing of a missing run or one past its retention', async () => {
      expect(await read(s.store, 'missing')).toEqual([]);
      await s.store.createRun(runRecord('r2', { expiresAt: T0 + 1_000 }), executionOp());
      expect(ids(await read(s.store, 'r2'))).toEqual(['0']);
      s.clock.set(T0 + 2_000);
      expect(await read(s.store, 'r2')).toEqual([]);
    });

    test('replay load: a run created again over an expired one sees only its own operations', async () => {
      await s.store.createRun(runRecord('r1', { expiresAt: T0 + 1_000 }), executionOp('"old"'));
      const old = await s.store.acquireLease('r1', T0, T0 + 500, 'old-token');
      if (!old) throw new Error('lease not granted');
      await commitAll('r1', old.run.fence, [contextOp('1'), ...steps('1', 20), ended('1'), wait('2')]);
      s.clock.set(T0 + 2_000);
      await s.store.createRun(runRecord('r1', { createdAt: T0 + 2_000 }), executionOp('"new"'));
      const grant = await s.store.acquireLease('r1', T0 + 2_000, T0 + 60_000, 'new-token');
      if (!grant) throw new Error('lease not granted');
      await s.store.commit('r1', grant.run.fence, { operations: [stepOp('2', '"new"')] });
      const loaded = await read(s.store, 'r1');
      expect(loaded).toEqual([executionOp('"new"'), stepOp('2', '"new"')]);
    });
  });
}
