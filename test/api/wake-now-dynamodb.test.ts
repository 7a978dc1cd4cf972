/**
 * "Wake now" on the DynamoDB store (DynamoDB Local): a two-day wait and a one-hour retry backoff
 * end at once and their runs finish without the clock moving; the woken run is in the due index
 * (a lost wake-up is found by the reconciler); a write that lost the race with an invocation is
 * refused by the fence and changes nothing.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDurableTable, DynamoDbStore } from '@durable-lambda/aws';
import { Engine, type Store } from '@durable-lambda/engine';
import { VirtualClock } from '@durable-lambda/local';
import { type DurableLambdaHandler, RetryAfterError, withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunBusyError } from '../../packages/engine/src/wake-now';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../support/dynamodb-local';

let client: DynamoDBDocumentClient;
beforeAll(async () => {
  client = localDocumentClient(await dynamoDbLocalEndpoint());
}, 60_000);
afterAll(() => client?.destroy());

const lambda = { functionName: 'fn', getRemainingTimeInMillis: () => 15 * 60_000 };

async function world(wrap: (store: Store) => Store = (store) => store) {
  const tableName = uniqueTableName('wake');
  await createDurableTable(client, tableName);
  const clock = new VirtualClock(Date.UTC(2026, 0, 1));
  const store = new DynamoDbStore({ client, tableName, clock });
  const engine = new Engine({ store: wrap(store), clock, waker: { wakeAt: async () => {} } });
  return { clock, store, engine };
}

/** Runs one invocation of the run as Lambda would, on the engine. */
async function invoke(handler: DurableLambdaHandler, runId: string): Promise<unknown> {
  return handler({ durableLambda: { action: 'wake', runId } }, lambda);
}

describe('wake now on DynamoDB', () => {
  it('ends a two-day wait and a one-hour backoff at once; both runs finish without the clock moving', async () => {
    const { clock, store, engine } = await world();
    const waiting = withDurableExecution(
      async (_e, ctx) => {
        await ctx.wait('two-days', { days: 2 });
        return 'waited';
      },
      { backend: engine, inProcessWaitMs: 0, logSink: () => {} },
    );
    let attempts = 0;
    const backingOff = withDurableExecution(
      async (_e, ctx) =>
        ctx.step('charge', async () => {
          attempts++;
          if (attempts === 1) throw new RetryAfterError('rate limited', { hours: 1 });
          return attempts;
        }),
      { backend: engine, inProcessWaitMs: 0, logSink: () => {} },
    );
    const a = (await engine.startRun({ functionName: 'fn' })).run;
    const b = (await engine.startRun({ functionName: 'fn' })).run;
    expect(await invoke(waiting, a.runId)).toEqual({ Status: 'PENDING' });
    expect(await invoke(backingOff, b.runId)).toEqual({ Status: 'PENDING' });
    const now = clock.now();

    expect((await engine.wakeRun(a.runId)).woken.map((w) => w.kind)).toEqual(['wait']);
    expect((await engine.wakeRun(b.runId)).woken.map((w) => w.kind)).toEqual(['retry']);
    const due = (await store.findDueRuns(now, 10)).map((d) => d.runId);
    expect(due).toEqual(expect.arrayContaining([a.runId, b.runId]));

    await invoke(waiting, a.runId);
    await invoke(backingOff, b.runId);
    expect(clock.now()).toBe(now);
    expect(await engine.getRun(a.runId)).toMatchObject({ status: 'SUCCEEDED', result: '"waited"' });
    expect(await engine.getRun(b.runId)).toMatchObject({ status: 'SUCCEEDED', result: '2' });
  }, 60_000);

  it('changes nothing when an invocation took the run between the read and the write', async () => {
    let race: (() => Promise<unknown>) | undefined;
    const { store, engine, clock } = await world(
      (inner) =>
        new Proxy(inner, {
          get(target, name, receiver) {
            const value = Reflect.get(target, name, receiver);
            if (name !== 'loadOperations' || typeof value !== 'function') {
              return typeof value === 'function' ? value.bind(target) : value;
            }
            return async (runId: string) => {
              const ops = await value.call(target, runId);
              const once = race;
              race = undefined;
              await once?.();
              return ops;
            };
          },
        }),
    );
    const backingOff = withDurableExecution(
      async (_e, ctx) =>
        ctx.step('charge', async () => {
          throw new RetryAfterError('rate limited', { hours: 1 });
        }),
      { backend: engine, inProcessWaitMs: 0, logSink: () => {} },
    );
    const { run } = await engine.startRun({ functionName: 'fn' });
    await invoke(backingOff, run.runId);
    const before = await store.getOperation(run.runId, (await store.loadOperations(run.runId)).at(-1)?.Id ?? '');
    expect(before?.Status).toBe('PENDING');

    race = () => store.acquireLease(run.runId, clock.now(), clock.now() + 60_000, 'racer');
    await expect(engine.wakeRun(run.runId)).rejects.toBeInstanceOf(RunBusyError);
    expect(await store.getOperation(run.runId, before?.Id ?? '')).toEqual(before);
  }, 60_000);
});
