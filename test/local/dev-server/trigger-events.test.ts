/**
 * The dev server delivers trigger events and schedule firings locally: `POST
 * /v1/functions/<name>/events` with an SQS batch, an EventBridge event, an EventBridge pipe's
 * batch (a JSON array of records) or a schedule firing
 * starts one run per event, keyed as in production (a second delivery is the same run), run by
 * the dev server's runtime.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DevServer, startDevServer } from '@durable-lambda/local';
import { withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'durable-triggers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until<T>(probe: () => Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(50);
  }
}

let server: DevServer;
let executed = 0;
beforeAll(async () => {
  const orders = withDurableExecution(async (event: unknown, ctx) =>
    ctx.step('handle', async () => {
      executed++;
      return event;
    }),
  );
  server = await startDevServer({ functions: { orders }, port: 0, db: join(dir, 'dev.sqlite'), log: () => {} });
});
afterAll(() => server?.stop());

const post = async (name: string, body: unknown) => {
  const response = await fetch(`${server.url}/v1/functions/${name}/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};
const runs = async () =>
  (
    (await (await fetch(`${server.url}/v1/runs?limit=100`)).json()) as {
      runs: Array<{ runKey?: string; status: string }>;
    }
  ).runs;

describe('dev server trigger events', () => {
  it('starts one run per SQS message, delivered twice, and runs it', async () => {
    const batch = {
      Records: [
        { messageId: 'm-1', body: '{"a":1}', eventSource: 'aws:sqs', eventSourceARN: 'arn:aws:sqs:local:0:orders-in' },
      ],
    };
    expect(await post('orders', batch)).toEqual({ status: 200, body: { batchItemFailures: [] } });
    expect(await post('orders', batch)).toEqual({ status: 200, body: { batchItemFailures: [] } });
    const done = await until(async () =>
      (await runs()).find((r) => r.runKey === 'sqs:orders:m-1' && r.status === 'SUCCEEDED'),
    );
    expect(done).toBeDefined();
    expect((await runs()).filter((r) => r.runKey === 'sqs:orders:m-1')).toHaveLength(1);
    expect(executed).toBe(1);
  });

  it('starts the run of an EventBridge event and of a schedule firing, once each', async () => {
    const event = { id: 'ev-1', 'detail-type': 'OrderPlaced', source: 'shop', detail: {} };
    const first = await post('orders', event);
    expect(first).toMatchObject({ status: 200, body: { created: true } });
    expect(await post('orders', event)).toMatchObject({
      status: 200,
      body: { runId: first.body.runId, created: false },
    });
    const firing = {
      durableLambda: {
        action: 'schedule',
        name: 'nightly',
        scheduledTime: '2026-01-01T03:00:00Z',
        overlap: 'allowAll',
      },
    };
    expect(await post('orders', firing)).toMatchObject({ status: 200, body: { schedule: 'nightly', created: true } });
    expect(await post('orders', firing)).toMatchObject({ status: 200, body: { created: false } });
  });

  it('takes an EventBridge pipe batch (a JSON array of Kinesis records): one run per record, delivered twice', async () => {
    const record = (sequence: string) => ({
      kinesisSchemaVersion: '1.0',
      partitionKey: '1',
      sequenceNumber: sequence,
      data: Buffer.from(`{"n":${sequence}}`).toString('base64'),
      eventSource: 'aws:kinesis',
      eventID: `shardId-000000000000:${sequence}`,
      eventName: 'aws:kinesis:record',
      eventSourceARN: 'arn:aws:kinesis:local:0:stream/orders',
    });
    const batch = [record('1'), record('2')];
    expect(await post('orders', batch)).toEqual({ status: 200, body: { batchItemFailures: [] } });
    expect(await post('orders', [record('2')])).toEqual({ status: 200, body: { batchItemFailures: [] } });
    const keys = ['kinesis:orders:shardId-000000000000:1', 'kinesis:orders:shardId-000000000000:2'];
    await until(
      async () => (await runs()).filter((r) => keys.includes(r.runKey ?? '') && r.status === 'SUCCEEDED').length === 2,
    );
    expect((await runs()).filter((r) => keys.includes(r.runKey ?? ''))).toHaveLength(2);
  });

  it('refuses a body that is no trigger event, and an unknown function', async () => {
    expect(await post('orders', { hello: 'world' })).toMatchObject({
      status: 400,
      body: { code: 'not_a_trigger_event' },
    });
    expect(await post('orders', [{ hello: 'world' }])).toMatchObject({
      status: 400,
      body: { code: 'not_a_trigger_event' },
    });
    expect(await post('nobody', { id: 'x', 'detail-type': 'x', source: 'x', detail: {} })).toMatchObject({
      status: 404,
    });
  });
});

describe('dev server schedules', () => {
  it('fires a declared schedule with its timer: a run keyed by the schedule and its fire time', async () => {
    const tick = withDurableExecution(async (event: { n: number }, ctx) => ctx.step('tick', async () => event.n));
    const scheduled = await startDevServer({
      functions: { tick },
      schedules: { tick: [{ name: 'every-second', rateMs: 1_000, overlap: 'allowAll', input: { n: 1 } }] },
      port: 0,
      db: join(dir, 'scheduled.sqlite'),
      log: () => {},
    });
    try {
      const done = await until(async () => {
        const list = (await (await fetch(`${scheduled.url}/v1/runs?limit=100`)).json()) as {
          runs: Array<{ runKey?: string; status: string }>;
        };
        return list.runs.find((r) => r.runKey?.startsWith('schedule:tick:every-second:') && r.status === 'SUCCEEDED');
      });
      expect(done.runKey).toMatch(/^schedule:tick:every-second:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
    } finally {
      await scheduled.stop();
    }
  });

  it('refuses a schedule of a function it does not serve', async () => {
    const tick = withDurableExecution(async () => 1);
    await expect(
      startDevServer({
        functions: { tick },
        schedules: { nobody: [{ name: 'x', rateMs: 1_000 }] },
        port: 0,
        db: join(dir, 'refused.sqlite'),
        log: () => {},
      }),
    ).rejects.toThrow(/no function "nobody"/);
  });

  it('refuses a cron schedule that does not parse, naming it', async () => {
    const tick = withDurableExecution(async () => 1);
    await expect(
      startDevServer({
        functions: { tick },
        schedules: { tick: [{ name: 'nightly', cron: '0 3 * * MON *' }] },
        port: 0,
        db: join(dir, 'bad-cron.sqlite'),
        log: () => {},
      }),
    ).rejects.toThrow(/schedule "nightly": cron dayOfMonth: exactly one of day-of-month and day-of-week must be \?/);
  });
});
