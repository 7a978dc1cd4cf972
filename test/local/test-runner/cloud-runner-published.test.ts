/**
 * The cloud test runner reads a run's published state (`ctx.publish`, issue 27) from the control
 * API, as the local runner reads it from its store: the same shape from both.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalDurableTestRunner } from '@durable-lambda/local';
import { withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudDurableTestRunner } from '../../../packages/local/src/cloud/cloud-durable-test-runner';
import { type DevServer, startDevServer } from '../../../packages/local/src/dev-server/dev-server';

const dir = mkdtempSync(join(tmpdir(), 'durable-cloud-published-'));
const quiet = { logSink: () => {}, inProcessWaitMs: 0 };

const tracked = withDurableExecution(async (_event: unknown, ctx) => {
  await ctx.publish({ stage: 'counting' });
  const n = await ctx.step('count', async () => 3);
  await ctx.wait('nap', { seconds: 1 });
  await ctx.publish({ stage: 'counted', n });
  return n;
}, quiet);
const quietFn = withDurableExecution(async () => 'ok', quiet);

let server: DevServer;
beforeAll(async () => {
  server = await startDevServer({
    functions: { tracked, quietFn },
    port: 0,
    db: join(dir, 'dev.sqlite'),
    log: () => {},
  });
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('CloudDurableTestRunner: published state', { timeout: 30_000 }, () => {
  it('answers the last published state, as the local runner does, and none for a run that published none', async () => {
    const config = { pollInterval: 20 };
    const cloud = await new CloudDurableTestRunner({
      functionName: 'tracked',
      api: { baseUrl: server.url },
      config,
    }).run({ payload: {} });
    const local = await new LocalDurableTestRunner({ handlerFunction: tracked }).run();
    expect(cloud.getPublished()).toEqual({ state: { stage: 'counted', n: 3 }, at: expect.any(Date), seq: 2 });
    expect(local.getPublished()).toEqual({ ...cloud.getPublished(), at: expect.any(Date) });
    const none = await new CloudDurableTestRunner({
      functionName: 'quietFn',
      api: { baseUrl: server.url },
      config,
    }).run({
      payload: {},
    });
    expect(none.getPublished()).toBeUndefined();
  });
});
