/**
 * On DynamoDB Local, an invocation's load is flat in the operations held in finished contexts: a
 * resume after a wait that follows N steps in a completed child context reads a handful of items,
 * whatever N, and chunks are read by reference for the operations loaded only (not those of the
 * finished context's children, never orphaned ones). Counted from every response the store's
 * client got (its own access, no model of it).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDurableTable, DynamoDbStore } from '@durable-lambda/aws';
import { TestDriver } from '@durable-lambda/local';
import type { Operation } from '@durable-lambda/protocol';
import { type DurableContext, withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextOp, executionOp, payload, runRecord, stepOp, T0 } from '../../store-conformance/conformance';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../../support/dynamodb-local';

/** What the store's client read while counting: requests by command, and the sort keys of the items returned. */
interface Reads {
  requests: Record<string, number>;
  keys: string[];
}

let client: DynamoDBDocumentClient;
let counting: Reads | undefined;

beforeAll(async () => {
  client = localDocumentClient(await dynamoDbLocalEndpoint());
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (counting) {
        const name = String(context.commandName ?? 'unknown');
        counting.requests[name] = (counting.requests[name] ?? 0) + 1;
        const out = result.output as {
          Item?: Record<string, unknown>;
          Items?: Record<string, unknown>[];
          Responses?: Record<string, Record<string, unknown>[]>;
        };
        const items = [
          ...(out.Item ? [out.Item] : []),
          ...(out.Items ?? []),
          ...Object.values(out.Responses ?? {}).flat(),
        ];
        counting.keys.push(...items.map((item) => String(item.sk)));
      }
      return result;
    },
    { step: 'initialize', name: 'countReads' },
  );
}, 60_000);

afterAll(() => client?.destroy());

/** Counts what `read` reads. */
async function counted<T>(read: () => Promise<T>): Promise<{ value: T; reads: Reads }> {
  const reads: Reads = { requests: {}, keys: [] };
  counting = reads;
  try {
    return { value: await read(), reads };
  } finally {
    counting = undefined;
  }
}

/** The DynamoDB store, recording what each of its replay loads read. */
class CountedStore extends DynamoDbStore {
  readonly loads: Array<{ ops: Operation[]; reads: Reads }> = [];

  override async loadReplayOperations(runId: string): Promise<Operation[]> {
    const { value, reads } = await counted(() => super.loadReplayOperations(runId));
    this.loads.push({ ops: value, reads });
    return value;
  }

  /** A wake-up replays from the run item its lease returned (`LeaseGrant.replay`): counted the same. */
  override async acquireLease(...args: Parameters<DynamoDbStore['acquireLease']>) {
    const grant = await super.acquireLease(...args);
    const replay = grant?.replay;
    if (!grant || !replay) return grant;
    return {
      ...grant,
      replay: async () => {
        const { value, reads } = await counted(replay);
        this.loads.push({ ops: value, reads });
        return value;
      },
    };
  }
}

// 300 is past the first two pages a reader that does not jump would take (16 + 128 items): it would
// read over 140 keys, where this one reads 18 whatever N is. REPLAY_LOAD_OPS=10000 for a larger run.
const N = Number(process.env.REPLAY_LOAD_OPS ?? 300);

describe('replay loads only what it needs (DynamoDB Local)', () => {
  it(`a resume after a wait following ${N} steps in a completed child context reads a handful of items`, async () => {
    const tableName = uniqueTableName('replay-load');
    await createDurableTable(client, tableName);
    let store: CountedStore | undefined;
    const handler = withDurableExecution(async (_event, ctx: DurableContext) => {
      // Eight steps at a time (a checkpoint each batch), so writing N operations stays quick.
      const sum = await ctx.runInChildContext('work', async (child) => {
        let total = 0;
        for (let i = 0; i < N; i += 8) {
          const batch = [...Array(Math.min(8, N - i)).keys()].map((k) => child.step(`s${i + k}`, async () => i + k));
          for (const value of await Promise.all(batch)) total += value;
        }
        return total;
      });
      await ctx.wait('pause', { hours: 1 });
      return ctx.step('last', async () => sum + 1);
    });
    const driver = new TestDriver(
      { fn: handler },
      {
        store: (clock) => {
          store = new CountedStore({ client, tableName, clock });
          return store;
        },
        startTime: Date.UTC(2026, 0, 1),
      },
    );
    const run = await driver.start('fn', {});
    const ended = await driver.runUntilDone(run.runId);
    expect(ended.status).toBe('SUCCEEDED');
    expect(JSON.parse(ended.result ?? 'null')).toBe((N * (N - 1)) / 2 + 1);
    if (!store) throw new Error('the driver built no store');
    const wake = store.loads.at(-1);
    expect(wake?.ops.map((op) => op.Name ?? op.Type)).toEqual(['EXECUTION', 'work', 'pause']);
    // The execution, the context's record, the rest of the first page (16) looking into the
    // context's subtree, then the wait and the run item: flat in N.
    expect(wake?.reads.keys.length).toBeLessThanOrEqual(18);
    // The run item came back with the lease (it holds the live operations and says the run has
    // items): no GetItem, only the Query.
    expect(wake?.reads.requests.GetItemCommand).toBeUndefined();
    expect(wake?.reads.requests.QueryCommand).toBeLessThanOrEqual(2);
    // Everything is still there for history; reading it all reads every item
    const all = await counted(() => driver.store.loadOperations(run.runId));
    expect(all.value).toHaveLength(N + 4);
    // (every operation item: the few still entries of the run item come with it).
    expect(all.reads.keys.length).toBeGreaterThan(N - 42);
  }, 120_000);

  it('reads chunks by reference for the operations it loads only: not the children’s, never orphaned ones', async () => {
    const tableName = uniqueTableName('replay-chunks');
    await createDurableTable(client, tableName);
    const clock = { now: () => T0 };
    const store = new DynamoDbStore({ client, tableName, clock });
    await store.createRun(runRecord('r1'), executionOp());
    const grant = await store.acquireLease('r1', T0, T0 + 60_000, 'token');
    if (!grant) throw new Error('lease not granted');
    const big = (seed: string) => JSON.stringify(payload(400_000, seed));
    const finished: Operation = {
      ...contextOp('1'),
      Status: 'SUCCEEDED',
      ContextDetails: { Result: big('context') },
    };
    const commit = (operations: Operation[]) => store.commit('r1', grant.run.fence, { operations });
    await commit([contextOp('1'), stepOp('1-1', big('child a')), stepOp('1-2', big('child b'))]);
    await commit([finished]);
    // Step 2's first result is replaced: its chunks stay behind, referenced by nothing.
    await commit([stepOp('2', big('replaced'))]);
    await commit([stepOp('2', big('kept'))]);
    const { value, reads } = await counted(() => store.loadReplayOperations('r1'));
    expect(value.map((op) => op.Id)).toEqual(['0', '1', '2']);
    expect(value[1]?.ContextDetails?.Result).toBe(big('context'));
    expect(value[2]?.StepDetails?.Result).toBe(big('kept'));
    const chunkKeys = reads.keys.filter((sk) => sk.startsWith('CHUNK#'));
    // Two chunk sets of two chunks each (~400 KB in ~349 KB pieces): the context's and step 2's.
    expect(chunkKeys).toHaveLength(4);
    expect(new Set(chunkKeys.map((sk) => sk.slice(0, sk.lastIndexOf('#')))).size).toBe(2);
    // The full read sees every chunk in the partition, the orphaned ones too.
    const everything = await counted(() => store.loadOperations('r1'));
    expect(everything.reads.keys.filter((sk) => sk.startsWith('CHUNK#')).length).toBeGreaterThan(chunkKeys.length);
  }, 60_000);
});
