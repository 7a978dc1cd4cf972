/**
 * A run's published state (`ctx.publish`, issue 27, queries) is read without touching the run:
 * `GET /v1/runs/{id}` and the listing answer it parsed, with when and how many; the typed client
 * hands it over; `durable show` prints it. The run meanwhile waits on a callback, no invocation up.
 */
import { createControlApi, DurableClient, toNodeListener } from '@durable-lambda/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDurableCli } from '../support/durable-cli';
import { LiveBackend, listen } from './support';

const backend = new LiveBackend();
backend.register('orders', async (_event, ctx) => {
  await ctx.publish({ stage: 'awaiting approval', order: 7 });
  const [approved] = await ctx.createCallback('approval');
  return await approved;
});
backend.register('quiet', async () => 'ok');

let url = '';
let close: () => Promise<void> = async () => {};
beforeAll(async () => {
  const api = createControlApi({ engine: backend.engine, functions: [...backend.handlers.keys()] });
  const server = await listen(toNodeListener(api));
  url = server.url;
  close = server.close;
});
afterAll(() => close());

describe('published state through the API, the client and the CLI', { timeout: 60_000 }, () => {
  it('answers the state a waiting run published, in the run and in listings, and the CLI shows it', async () => {
    const client = new DurableClient({ baseUrl: url, backoffMs: 1 });
    const { runId } = (await client.startRun({ function: 'orders', input: {} })).run;
    await backend.waitForCallback(runId);
    // Read once the invocation has let go of the run: nothing of the run is up to answer.
    await expect.poll(async () => (await backend.engine.getRun(runId))?.leaseExpiresAt).toBeUndefined();

    const run = await client.getRun(runId);
    expect(run.status).toBe('RUNNING');
    expect(run.published).toEqual({ state: { stage: 'awaiting approval', order: 7 }, at: expect.any(String), seq: 1 });
    expect(Number.isNaN(Date.parse(run.published?.at ?? ''))).toBe(false);

    const listed = await client.listRuns({ function: 'orders' });
    expect(listed.runs.find((r) => r.runId === runId)?.published?.state).toEqual({
      stage: 'awaiting approval',
      order: 7,
    });

    const shown = await runDurableCli(['show', runId, '--url', url]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^published\s+\{"stage":"awaiting approval","order":7\} \(at \S+, #1\)$/m);

    // A run that publishes nothing has no `published`, and `durable show` no such line.
    const quiet = await client.startRun({ function: 'quiet' });
    await backend.waitForStatus(quiet.run.runId, 'SUCCEEDED');
    expect((await client.getRun(quiet.run.runId)).published).toBeUndefined();
    expect((await runDurableCli(['show', quiet.run.runId, '--url', url])).stdout).not.toMatch(/^published/m);
  });
});
