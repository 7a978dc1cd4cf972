/**
 * A schedule's firings, each starting the run keyed by the schedule and its fire time, decided
 * against the schedule's runs still RUNNING by its overlap policy: the `ScheduleReceiver` over the
 * engine on a virtual clock, on the memory store and DynamoDB Local. Runs are invoked through a
 * queue the test delivers (Lambda's asynchronous invoke), so a run stays RUNNING until delivered.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  createDurableTable,
  DynamoDbStore,
  decideOverlap,
  type OverlapPolicy,
  type ScheduleFiringEvent,
  ScheduleReceiver,
  scheduleOfRunKey,
  scheduleRunKey,
} from '@durable-lambda/aws';
import { Engine, MemoryStore, type Store, type WakeRequest, wakeEvent } from '@durable-lambda/engine';
import { VirtualClock } from '@durable-lambda/local';
import { withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../../support/dynamodb-local';

let client: DynamoDBDocumentClient | undefined;
beforeAll(async () => {
  client = localDocumentClient(await dynamoDbLocalEndpoint());
}, 60_000);
afterAll(() => client?.destroy());

const stores: Array<[string, (clock: VirtualClock) => Promise<Store>]> = [
  ['memory', async (clock) => new MemoryStore(clock)],
  [
    'DynamoDB Local',
    async (clock) => {
      const tableName = uniqueTableName('schedules');
      const c = client as DynamoDBDocumentClient;
      await createDurableTable(c, tableName);
      return new DynamoDbStore({ client: c, tableName, clock });
    },
  ],
];

const T0 = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;

async function world(makeStore: (clock: VirtualClock) => Promise<Store>) {
  const clock = new VirtualClock(T0);
  const store = await makeStore(clock);
  const wakes: WakeRequest[] = [];
  const engine = new Engine({
    store,
    clock,
    waker: { wakeAt: async (w) => void wakes.push(w) },
    retentionMs: 86_400_000,
  });
  const invoked: unknown[] = [];
  const receiver = new ScheduleReceiver({
    engine,
    invoker: { invoke: async (_fn, event) => void invoked.push(event) },
    waker: engine.waker,
    clock,
  });
  const handler = withDurableExecution(async (input: { n: number }, ctx) => ctx.step('work', async () => input.n), {
    backend: engine,
  });
  let seq = 0;
  const drain = async () => {
    for (const event of invoked.splice(0)) {
      await handler(event, {
        functionName: 'report',
        awsRequestId: `r${++seq}`,
        getRemainingTimeInMillis: () => 60_000,
      });
    }
  };
  /** Delivers the wake-ups asked for (a hand-over, the reconciler's), as the waker would. */
  const wake = async () => {
    for (const w of wakes.splice(0)) if (w.reason !== 'lease') invoked.push(wakeEvent(w.runId));
    await drain();
  };
  /** Scheduler firing schedule `nightly` at `at` (the clock moved there first). */
  const fire = async (overlap: OverlapPolicy, at: number) => {
    clock.advanceTo(at);
    const event: ScheduleFiringEvent = {
      durableLambda: {
        action: 'schedule',
        name: 'nightly',
        scheduledTime: new Date(at).toISOString(),
        overlap,
        input: '{"n":1}',
      },
    };
    return receiver.receive(event, 'report');
  };
  const run = async (at: number) =>
    (await engine.listRuns({ limit: 100 })).runs.find((r) => r.runKey === scheduleRunKey('report', 'nightly', at));
  const runs = async () => (await engine.listRuns({ limit: 100 })).runs;
  return { fire, drain, wake, run, runs, invoked, engine, clock, store };
}

describe.each(stores)('schedule overlap on %s', (_name, makeStore) => {
  it('a duplicate firing is the same run, invoked once', async () => {
    const w = await world(makeStore);
    const first = await w.fire('allowAll', T0);
    const second = await w.fire('allowAll', T0);
    expect(first).toMatchObject({ created: true });
    expect(second).toEqual({ ...first, created: false });
    expect(w.invoked).toHaveLength(2); // not yet invoked when the copy came: kicked again, harmless
    await w.drain();
    expect((await w.run(T0))?.status).toBe('SUCCEEDED');
    expect((await w.run(T0))?.invocations).toBe(1);
    expect(await w.fire('allowAll', T0)).toEqual({ ...first, created: false });
    expect(w.invoked).toEqual([]);
  }, 60_000);

  it('skip: no run while the previous runs; the next firing after it ended starts', async () => {
    const w = await world(makeStore);
    await w.fire('skip', T0);
    const skipped = await w.fire('skip', T0 + MINUTE);
    expect(skipped).toEqual({ schedule: 'nightly', skipped: true, running: [(await w.run(T0))?.runId] });
    await w.drain();
    expect(await w.fire('skip', T0 + 2 * MINUTE)).toMatchObject({ created: true });
    expect(await w.run(T0 + MINUTE)).toBeUndefined();
    expect(await w.runs()).toHaveLength(2);
  }, 60_000);

  it('cancelPrevious: the running one is cancelled, the new one starts', async () => {
    const w = await world(makeStore);
    await w.fire('cancelPrevious', T0);
    const previous = (await w.run(T0))?.runId;
    expect(await w.fire('cancelPrevious', T0 + MINUTE)).toMatchObject({ created: true, cancelled: [previous] });
    expect((await w.run(T0))?.status).toBe('CANCELLED');
    expect((await w.run(T0 + MINUTE))?.status).toBe('RUNNING');
  }, 60_000);

  it('allowAll: each firing starts its run while the others run', async () => {
    const w = await world(makeStore);
    for (const i of [0, 1, 2]) expect(await w.fire('allowAll', T0 + i * MINUTE)).toMatchObject({ created: true });
    expect((await w.runs()).filter((r) => r.status === 'RUNNING')).toHaveLength(3);
  }, 60_000);

  it('a firing that dies between naming its run and starting it is started by its redelivery, and seen by the next', async () => {
    const w = await world(makeStore);
    const start = w.engine.startRun.bind(w.engine);
    let died = false;
    w.engine.startRun = async (request) => {
      if (!died) {
        died = true;
        throw new Error('process died');
      }
      return start(request);
    };
    await expect(w.fire('skip', T0)).rejects.toThrow('process died');
    expect(await w.run(T0)).toBeUndefined();
    // Scheduler delivers the firing again: its run is named already, and now started.
    expect(await w.fire('skip', T0)).toMatchObject({ created: true });
    // The next firing sees it RUNNING: skipped.
    expect(await w.fire('skip', T0 + MINUTE)).toMatchObject({ skipped: true });
    w.engine.startRun = start;
  }, 60_000);

  it('bufferOne: one firing waits QUEUED behind the running run and starts when it ends; more are skipped', async () => {
    const w = await world(makeStore);
    await w.fire('bufferOne', T0);
    const buffered = await w.fire('bufferOne', T0 + MINUTE);
    expect(buffered).toMatchObject({ created: true, buffered: true });
    const waiting = await w.run(T0 + MINUTE);
    expect(waiting).toMatchObject({
      status: 'QUEUED',
      flow: { waitingFor: 'schedule', behind: [(await w.run(T0))?.runId] },
    });
    // A third firing while one waits is skipped; a duplicate of the buffered firing finds it.
    expect(await w.fire('bufferOne', T0 + 2 * MINUTE)).toMatchObject({ skipped: true });
    expect(await w.fire('bufferOne', T0 + MINUTE)).toMatchObject({ runId: waiting?.runId, created: false });
    expect(w.invoked).toHaveLength(1);
    // The first run ends: the buffered one starts (woken), and ends in turn.
    await w.drain();
    expect((await w.run(T0))?.status).toBe('SUCCEEDED');
    expect((await w.run(T0 + MINUTE))?.status).toBe('RUNNING');
    await w.wake();
    expect(await w.run(T0 + MINUTE)).toMatchObject({ status: 'SUCCEEDED', invocations: 1 });
    expect((await w.run(T0 + MINUTE))?.flow).toBeUndefined();
    expect(await w.run(T0 + 2 * MINUTE)).toBeUndefined();
  }, 60_000);

  it('bufferOne: a hand-over lost to a crash is made up at the re-check, never while the previous still runs', async () => {
    const w = await world(makeStore);
    await w.fire('bufferOne', T0);
    await w.fire('bufferOne', T0 + MINUTE);
    // The re-check comes while the first still runs: the buffered run keeps waiting.
    w.clock.advanceTo(T0 + 20 * MINUTE);
    await w.engine.reconcile({ graceMs: 0 });
    expect((await w.run(T0 + MINUTE))?.status).toBe('QUEUED');
    // The first ends, but the hand-over is lost (the queue cannot be read as it ends).
    const list = w.store.listQueuedRuns?.bind(w.store);
    w.store.listQueuedRuns = async () => {
      throw new Error('process died');
    };
    await w.drain();
    w.store.listQueuedRuns = list;
    expect((await w.run(T0 + MINUTE))?.status).toBe('QUEUED');
    w.clock.advanceTo(T0 + 40 * MINUTE);
    await w.engine.reconcile({ graceMs: 0 });
    expect((await w.run(T0 + MINUTE))?.status).toBe('RUNNING');
    await w.wake();
    expect((await w.run(T0 + MINUTE))?.status).toBe('SUCCEEDED');
  }, 60_000);
});

describe('the overlap decision', () => {
  it('decides each policy against the running runs and the buffered count', () => {
    expect(decideOverlap('skip', [])).toEqual({ action: 'start', cancel: [] });
    expect(decideOverlap('skip', ['a'])).toEqual({ action: 'skip' });
    expect(decideOverlap('allowAll', ['a', 'b'])).toEqual({ action: 'start', cancel: [] });
    expect(decideOverlap('cancelPrevious', ['a', 'b'])).toEqual({ action: 'start', cancel: ['a', 'b'] });
    expect(decideOverlap('bufferOne', ['a'], 0)).toEqual({ action: 'buffer' });
    expect(decideOverlap('bufferOne', ['a'], 1)).toEqual({ action: 'skip' });
    expect(scheduleRunKey('report', 'nightly', '2026-01-01T00:00:00Z')).toBe(
      'schedule:report:nightly:2026-01-01T00:00:00.000Z',
    );
    expect(scheduleRunKey('report:7', 'nightly', T0)).toBe(scheduleRunKey('report', 'nightly', T0));
    expect(scheduleRunKey('audit', 'nightly', T0)).not.toBe(scheduleRunKey('report', 'nightly', T0));
    expect(scheduleOfRunKey(scheduleRunKey('report', 'a:b', T0))).toBe('a:b');
    expect(scheduleOfRunKey('sqs:m-1')).toBeUndefined();
  });
});
