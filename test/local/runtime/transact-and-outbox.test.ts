/**
 * The local runtime (what the dev server runs) on a SQLite file (issue 27): a transactional step's
 * writes land in the store's emulated table with the step's outcome, and the events a step emits
 * are delivered to the runtime's in-process outbox, once each, after their step.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalRuntime, SqliteStore } from '@durable-lambda/local';
import { withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'durable-transact-runtime-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('LocalRuntime on SQLite: transactional steps and the outbox', () => {
  it('stores the writes with the step, and delivers the events once each', async () => {
    const shop = withDurableExecution(async (event: { order: string }, ctx) => {
      await ctx.step(
        'record',
        async (step) => {
          step.tx.put({
            TableName: 'Orders',
            Item: { id: event.order, state: 'placed' },
            ConditionExpression: 'attribute_not_exists(#id)',
            ExpressionAttributeNames: { '#id': 'id' },
          });
          step.emit({ source: 'shop', detailType: 'OrderPlaced', detail: { order: event.order } });
        },
        { transact: true },
      );
      return 'ok';
    });
    const store = new SqliteStore({ path: join(dir, 'runtime.sqlite') }).defineTable('Orders', { partitionKey: 'id' });
    const runtime = new LocalRuntime({ store, functions: new Map([['shop', shop]]), overrides: { logSink: () => {} } });
    try {
      await runtime.start();
      const { runId } = await runtime.startRun('shop', { order: 'o-7' });
      for (let i = 0; i < 500 && (await runtime.engine.getRun(runId))?.status !== 'SUCCEEDED'; i++) await sleep(10);
      expect((await runtime.engine.getRun(runId))?.status).toBe('SUCCEEDED');
      expect(store.getTableItem('Orders', { id: 'o-7' })).toEqual({ id: 'o-7', state: 'placed' });
      expect(runtime.outbox.deliveries.map((d) => [d.id, d.event.kind])).toEqual([[`${runId}:1:0`, 'eventbridge']]);
    } finally {
      await runtime.stop();
      store.close();
    }
  });
});
