import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDurableTable, DynamoDbStore } from '@durable-lambda/aws';
import { Engine, type WakeRequest, wakeEvent } from '@durable-lambda/engine';
import { VirtualClock } from '@durable-lambda/local';
import { withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../../support/dynamodb-local';

let client: DynamoDBDocumentClient;

beforeAll(async () => {
  client = localDocumentClient(await dynamoDbLocalEndpoint());
}, 60_000);

afterAll(() => client?.destroy());

const lambda = (requestId: string) => ({
  functionName: 'fn',
  awsRequestId: requestId,
  getRemainingTimeInMillis: () => 15 * 60_000,
});

describe('DynamoDbStore under the engine', () => {
  it('runs a workflow with a large step result, a wait, a callback, a map and a lost invocation', async () => {
    const tableName = uniqueTableName('engine');
    await createDurableTable(client, tableName);
    const clock = new VirtualClock(Date.UTC(2026, 0, 1));
    const wakeUps: WakeRequest[] = [];
    const store = new DynamoDbStore({ client, tableName, clock });
    const engine = new Engine({
      store,
      clock,
      waker: { wakeAt: async (request) => void wakeUps.push(request) },
      retentionMs: 86_400_000,
    });
    let callbackId = '';
    let crash = true;
    const handler = withDurableExecution(
      async (event: { n: number }, ctx) => {
        const big = await ctx.step('big', async () => 'é'.repeat(400_000));
        await ctx.wait({ hours: 1 });
        const [approval, id] = await ctx.createCallback<string>('approval', { timeout: { days: 1 } });
        await ctx.step('notify', async () => {
          callbackId = id;
        });
        const answer = await approval;
        const doubled = await ctx.map('double', [1, 2, 3], async (child, n) => child.step(`x${n}`, async () => n * 2));
        const fragile = await ctx.step('fragile', async () => {
          if (crash) {
            crash = false;
            throw Object.assign(new Error('simulated crash'), { crash: true });
          }
          return event.n;
        });
        return { size: big.length, answer, doubled: doubled.getResults(), fragile };
      },
      { backend: engine, inProcessWaitMs: 0 },
    );

    expect(await handler({ n: 21 }, lambda('req-1'))).toEqual({ Status: 'PENDING' });
    const [run] = (await store.listRuns({ functionName: 'fn' })).runs;
    const runId = run?.runId ?? '';
    expect(run?.status).toBe('RUNNING');
    // A duplicate delivery of the same event finds the run instead of starting another.
    await handler({ n: 21 }, lambda('req-1'));
    expect((await store.listRuns({})).runs).toHaveLength(1);

    // The wait's wake-up: the run replays (the large result comes back from its chunks) and waits for the callback.
    clock.advanceTo((await store.getRun(runId))?.nextWakeAt ?? 0);
    expect(await handler(wakeEvent(runId), lambda('wake-1'))).toEqual({ Status: 'PENDING' });
    expect(callbackId).not.toBe('');
    await engine.sendCallbackSuccess(callbackId, '"yes"');

    // An invocation takes the lease and dies without a word: the lease lapses, the next one counts it lost.
    const lost = await engine.openRun(runId, { remainingTimeMs: () => 60_000 });
    expect(lost).toBeDefined();
    expect(await handler(wakeEvent(runId), lambda('wake-busy'))).toEqual({ Status: 'PENDING', runId });
    clock.advanceTo(clock.now() + 70_001);

    // The next wake-ups replay it to the end; the fragile step fails once and is retried.
    for (let i = 0; i < 10; i++) {
      const current = await store.getRun(runId);
      if (current?.status !== 'RUNNING') break;
      if (current.nextWakeAt !== undefined && current.eventSeq <= current.handledEventSeq) {
        clock.advanceTo(Math.max(clock.now(), current.nextWakeAt));
      }
      await handler(wakeEvent(runId), lambda(`wake-${i + 2}`));
    }
    const done = await store.getRun(runId);
    expect(done).toMatchObject({ status: 'SUCCEEDED', lostInvocations: 1 });
    expect(JSON.parse(done?.result ?? '{}')).toEqual({
      size: 400_000,
      answer: '"yes"',
      doubled: [2, 4, 6],
      fragile: 21,
    });
    expect((await store.listRuns({ status: 'SUCCEEDED' })).runs.map((r) => r.runId)).toEqual([runId]);
    const operations = await engine.getOperations(runId);
    expect(operations[0]?.Type).toBe('EXECUTION');
    expect(operations.find((op) => op.Name === 'big')?.StepDetails?.Result).toBe(JSON.stringify('é'.repeat(400_000)));
    expect(wakeUps.length).toBeGreaterThan(0);
  });
});
