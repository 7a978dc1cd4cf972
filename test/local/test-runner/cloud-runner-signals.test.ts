/**
 * The cloud test runner sends a signal to the run it started (issue 27), through the control
 * API, as the local runner's `sendSignal` does: the run waiting for it goes on with its payload.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudDurableTestRunner } from '../../../packages/local/src/cloud/cloud-durable-test-runner';
import { type DevServer, startDevServer } from '../../../packages/local/src/dev-server/dev-server';

const dir = mkdtempSync(join(tmpdir(), 'durable-cloud-signals-'));

const approve = withDurableExecution(
  async (_event: unknown, ctx) => {
    const approval = await ctx.waitForSignal<{ by: string }>('approved');
    return `approved by ${approval.by}`;
  },
  { logSink: () => {}, inProcessWaitMs: 0 },
);

let server: DevServer;
beforeAll(async () => {
  server = await startDevServer({ functions: { approve }, port: 0, db: join(dir, 'dev.sqlite'), log: () => {} });
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('CloudDurableTestRunner.sendSignal', { timeout: 30_000 }, () => {
  it('sends a signal the waiting run takes, once per idempotency key', async () => {
    const runner = new CloudDurableTestRunner({
      functionName: 'approve',
      api: { baseUrl: server.url },
      config: { pollInterval: 20 },
    });
    await expect(runner.sendSignal('approved')).rejects.toThrow('call run() first');
    const execution = runner.run({ payload: {} });
    await runner.getOperation('approved').waitForData();
    const sent = await runner.sendSignal('approved', { by: 'ana' }, { idempotencyKey: 'k-1' });
    expect(sent).toMatchObject({ name: 'approved', seq: 1 });
    expect(await runner.sendSignal('approved', { by: 'ana' }, { idempotencyKey: 'k-1' })).toEqual(sent);
    expect((await execution).getResult()).toBe('approved by ana');
  });
});
