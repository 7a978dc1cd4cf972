/**
 * The execution timeout and the operator actions on every store: the fields they add to a run
 * (`deadlineAt`, `childrenOpen`, `actions`) round-trip, the due index follows them, and the
 * flows (a timeout with its child told, a fenced skip, a tree cancel) end the same way.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDurableTable, DynamoDbStore } from '@durable-lambda/aws';
import { MemoryStore, type RunRecord, type Store } from '@durable-lambda/engine';
import { SqliteStore, type VirtualClock } from '@durable-lambda/local';
import { withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../support/dynamodb-local';
import { until } from '../support/harness';
import { RepairWorld } from '../support/repair-world';

let dynamo: DynamoDBDocumentClient | undefined;
const sqlite: SqliteStore[] = [];

beforeAll(async () => {
  dynamo = localDocumentClient(await dynamoDbLocalEndpoint());
}, 120_000);

afterAll(() => {
  dynamo?.destroy();
  for (const store of sqlite) store.close();
});

let table: Promise<string> | undefined;

/** One DynamoDB Local and one table per file (run ids never collide), a store per world. */
async function dynamoStore(clock: VirtualClock): Promise<Store> {
  const client = dynamo;
  if (!client) throw new Error('DynamoDB Local is not up');
  table ??= (async () => {
    const name = uniqueTableName('repair');
    await createDurableTable(client, name);
    return name;
  })();
  return new DynamoDbStore({ client, tableName: await table, clock });
}

const STORES: Array<[string, (clock: VirtualClock) => Store | Promise<Store>]> = [
  ['MemoryStore', (clock) => new MemoryStore(clock)],
  [
    'SqliteStore',
    (clock) => {
      const store = new SqliteStore({ path: ':memory:', clock });
      sqlite.push(store);
      return store;
    },
  ],
  ['DynamoDbStore', dynamoStore],
];

/** `store`, whose first `reviseRun` runs `before()` to its end, then writes. */
function reviseAfter(store: Store, before: () => Promise<unknown> | undefined): Store {
  let armed = true;
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'reviseRun') {
        return async (...args: Parameters<Store['reviseRun']>) => {
          if (armed) {
            armed = false;
            await before();
          }
          return target.reviseRun(...args);
        };
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

function run(overrides: Partial<RunRecord>): RunRecord {
  const t = Date.UTC(2026, 0, 1);
  return {
    runId: `r-${Math.random().toString(36).slice(2)}`,
    functionName: 'fn',
    status: 'RUNNING',
    createdAt: t,
    updatedAt: t,
    fence: 0,
    nextWakeAt: t,
    invocations: 0,
    lostInvocations: 0,
    eventSeq: 0,
    handledEventSeq: 0,
    ...overrides,
  };
}

// DynamoDB Local on a loaded machine takes seconds per flow.
describe.each(STORES)('%s: execution timeout and operator actions', { timeout: 60_000 }, (_name, make) => {
  it('keeps the new run fields, and its due index follows the deadline and an ended tree', async () => {
    const world = await RepairWorld.on(make);
    const { store } = world;
    const t = world.clock.now();
    const record = run({ deadlineAt: t + 3_600_000, executionTimeoutMs: 3_600_000 });
    await store.createRun(record, { Id: '0', Type: 'EXECUTION', Status: 'STARTED', StartTimestamp: t });
    // Waiting only on outside events: due at its deadline, no earlier.
    const waiting = await store.reviseRun(record.runId, 'RUNNING', { nextWakeAt: null }, []);
    expect(waiting).toMatchObject({ deadlineAt: t + 3_600_000, executionTimeoutMs: 3_600_000, dueAt: t + 3_600_000 });
    const dueOf = async (before: number) =>
      (await store.findDueRuns(before, 100)).filter((entry) => entry.runId === record.runId);
    expect(await dueOf(t + 3_599_999)).toEqual([]);
    expect(await dueOf(t + 3_600_000)).toEqual([{ runId: record.runId, dueAt: t + 3_600_000 }]);
    // Ended with children still to end: due until they are.
    const action = { id: 'a1', action: 'cancel_tree' as const, actor: 'ops', at: t, fromStatus: 'RUNNING' as const };
    await store.reviseRun(
      record.runId,
      'RUNNING',
      { status: 'CANCELLED', endedAt: t, nextWakeAt: null, childrenOpen: true, actions: [action] },
      [],
    );
    expect(await dueOf(t)).toEqual([{ runId: record.runId, dueAt: t }]);
    expect(await store.getRun(record.runId)).toMatchObject({ childrenOpen: true, actions: [action] });
    await store.reviseRun(record.runId, 'CANCELLED', { childrenOpen: null }, []);
    expect(await dueOf(t + 10 * 3_600_000)).toEqual([]);
    expect((await store.getRun(record.runId))?.childrenOpen).toBeUndefined();
  });

  it('times a run out at its deadline: its child run is told, and its callback too', async () => {
    const world = await RepairWorld.on(make);
    world.register(
      'child',
      withDurableExecution(async (_e, ctx) => {
        const [approval] = await ctx.createCallback('approval');
        return approval;
      }),
    );
    world.register(
      'parent',
      withDurableExecution(async (_e, ctx) => ctx.invoke('kid', 'child')),
    );
    const runId = await world.start('parent', undefined, 1800);
    const ended = await world.settle(runId);
    expect(ended).toMatchObject({ status: 'TIMED_OUT', endedAt: ended.createdAt + 1_800_000 });
    expect(ended.error?.ErrorCode).toBe('execution_timed_out');
    const [child] = await world.children(runId);
    expect(child).toMatchObject({ status: 'TIMED_OUT', parentNotified: true });
    const callback = (await world.store.loadOperations(child?.runId ?? '')).find((op) => op.Type === 'CALLBACK');
    expect(callback?.Status).toBe('TIMED_OUT');
  });

  it('two actions at once keep both audit entries: the one built on a stale read is built again', async () => {
    // The first revision waits for a whole second action to land before it writes.
    let between: (() => Promise<unknown>) | undefined;
    const world = await RepairWorld.on(async (clock) =>
      reviseAfter(await make(clock), () => {
        const other = between;
        between = undefined;
        return other?.();
      }),
    );
    world.register(
      'fn',
      withDurableExecution(async (_e, ctx) => {
        await ctx.step('a', () => 'done');
        await ctx.wait('later', { hours: 1 });
        return 'ok';
      }),
    );
    const runId = await world.start('fn');
    await world.invoke(runId);
    expect((await world.engine.getRun(runId))?.status).toBe('RUNNING');
    between = () => world.engine.retryRun(runId, { fromOperationId: '1', actor: 'bob', actionId: 'retry-bob' });
    await world.engine.retryRun(runId, { fromOperationId: '1', actor: 'alice', actionId: 'retry-alice' });
    expect(between).toBeUndefined();
    const ended = await world.settle(runId);
    expect(ended.status).toBe('SUCCEEDED');
    expect(ended.actions?.map((entry) => [entry.id, entry.actor])).toEqual([
      ['retry-bob', 'bob'],
      ['retry-alice', 'alice'],
    ]);
  });

  it('skips a failed step while an invocation runs: fenced, and recorded in the run', async () => {
    const world = await RepairWorld.on(make);
    let release: (() => void) | undefined;
    world.register(
      'fn',
      withDurableExecution(async (_e, ctx) => {
        try {
          return await ctx.step(
            'charge',
            async () => {
              throw new Error('down');
            },
            { retry: { maxAttempts: 1 } },
          );
        } catch {
          await ctx.step('hold', () => new Promise<void>((r) => (release = r)));
          return 'gave up';
        }
      }),
    );
    const runId = await world.start('fn');
    const running = world.invoke(runId);
    await until(() => release !== undefined, 30_000);
    await world.engine.skipStep(runId, '1', { result: '"by hand"', actor: 'ops', actionId: 'skip-1' });
    release?.();
    expect(await running).toBe('fenced');
    const ended = await world.settle(runId);
    expect(ended).toMatchObject({ status: 'SUCCEEDED', result: '"by hand"' });
    expect(ended.actions).toEqual([
      expect.objectContaining({ id: 'skip-1', action: 'skip_step', actor: 'ops', operationId: '1' }),
    ]);
  });
});
