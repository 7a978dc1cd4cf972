/**
 * The cloud test runner reads a run's search tags (`ctx.tag`, issue 27) from the control API, as
 * the local runner reads them from its store: the same answer from both, `{}` for a run without.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalDurableTestRunner } from '@durable-lambda/local';
import { withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudDurableTestRunner } from '../../../packages/local/src/cloud/cloud-durable-test-runner';
import { type DevServer, startDevServer } from '../../../packages/local/src/dev-server/dev-server';

const dir = mkdtempSync(join(tmpdir(), 'durable-cloud-tags-'));
const quiet = { logSink: () => {}, inProcessWaitMs: 0 };

const tagged = withDurableExecution(async (_event: unknown, ctx) => {
  await ctx.tag({ customer: 'c-1', stage: 'counting' });
  const n = await ctx.step('count', async () => 3);
  await ctx.wait('nap', { seconds: 1 });
  await ctx.tag({ stage: 'counted' });
  return n;
}, quiet);
const plain = withDurableExecution(async () => 'ok', quiet);

let server: DevServer;
beforeAll(async () => {
  server = await startDevServer({ functions: { tagged, plain }, port: 0, db: join(dir, 'dev.sqlite'), log: () => {} });
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('CloudDurableTestRunner: tags', { timeout: 30_000 }, () => {
  it('answers the run tags, as the local runner does, and none for a run without', async () => {
    const config = { pollInterval: 20 };
    const cloud = await new CloudDurableTestRunner({
      functionName: 'tagged',
      api: { baseUrl: server.url },
      config,
    }).run({ payload: {} });
    const local = await new LocalDurableTestRunner({ handlerFunction: tagged }).run();
    expect(cloud.getTags()).toEqual({ customer: 'c-1', stage: 'counted' });
    expect(local.getTags()).toEqual(cloud.getTags());
    const none = await new CloudDurableTestRunner({ functionName: 'plain', api: { baseUrl: server.url }, config }).run({
      payload: {},
    });
    expect(none.getTags()).toEqual({});
  });
});
