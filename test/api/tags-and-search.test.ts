/**
 * Finding runs (issue 27): tags given at start (`POST /v1/runs` `tags`, the client, `durable start
 * --tag`) and set by the handler (`ctx.tag`) are shown on the run and found with
 * `GET /v1/runs?tag=key:value` (repeatable, all must match) combined with status, function and
 * `errorCode`, paged by cursor; the client and `durable list --tag --error-code` ask the same.
 * Bad tags are refused with the field named.
 */
import { createControlApi, type DurableApiError, DurableClient, toNodeListener } from '@durable-lambda/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDurableCli } from '../support/durable-cli';
import { LiveBackend, listen } from './support';

const backend = new LiveBackend();
backend.register('orders', async (event: { customer: string; fail?: string }, ctx) => {
  await ctx.tag({ customer: event.customer, stage: 'charging' });
  await ctx.step('charge', async () => 'ok');
  if (event.fail) throw Object.assign(new Error('declined'), { code: event.fail });
  await ctx.tag({ stage: 'done' });
  return 'ok';
});

let url = '';
let close: () => Promise<void> = async () => {};
beforeAll(async () => {
  const api = createControlApi({ engine: backend.engine, functions: [...backend.handlers.keys()] });
  const server = await listen(toNodeListener(api));
  url = server.url;
  close = server.close;
});
afterAll(() => close());

const durable = (...args: string[]) => runDurableCli([...args, '--url', url]);

describe('tags and search through the API, the client and the CLI', { timeout: 60_000 }, () => {
  it('finds runs by tags (start and ctx.tag), status and error code, paged, and shows their tags', async () => {
    const client = new DurableClient({ baseUrl: url, backoffMs: 1 });
    const started: Array<{ runId: string; customer: string; fail?: string }> = [];
    const plan = [
      { customer: 'c-1' },
      { customer: 'c-1', fail: 'card_declined' },
      { customer: 'c-2', fail: 'card_declined' },
      { customer: 'c-1' },
      { customer: 'c-1', fail: 'out_of_stock' },
    ];
    for (const input of plan) {
      const { run } = await client.startRun({ function: 'orders', input, tags: { region: 'eu' } });
      started.push({ runId: run.runId, ...input });
      await backend.waitForStatus(run.runId, input.fail ? 'FAILED' : 'SUCCEEDED');
      // Distinct creation times: the order below is by them.
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    const newest = [...started].reverse();
    const idsOf = (runs: Array<{ runId: string }>) => runs.map((r) => r.runId);

    const c1 = await client.listRuns({ tags: { customer: 'c-1', region: 'eu' } });
    expect(idsOf(c1.runs)).toEqual(idsOf(newest.filter((r) => r.customer === 'c-1')));
    expect(c1.runs[0]?.tags).toEqual({ region: 'eu', customer: 'c-1', stage: 'charging' });
    const done = await client.listRuns({ tags: { stage: 'done' } });
    expect(idsOf(done.runs)).toEqual(idsOf(newest.filter((r) => !r.fail)));
    const declined = await client.listRuns({ errorCode: 'card_declined', tags: { customer: 'c-1' } });
    expect(idsOf(declined.runs)).toEqual(
      idsOf(newest.filter((r) => r.customer === 'c-1' && r.fail === 'card_declined')),
    );
    const failed = await client.listRuns({ status: 'FAILED', function: 'orders', tags: { region: 'eu' } });
    expect(idsOf(failed.runs)).toEqual(idsOf(newest.filter((r) => r.fail)));

    // Paged: two at a time, every c-1 run once, newest first.
    const paged: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listRuns({ tags: { customer: 'c-1' }, limit: 2, ...(cursor ? { cursor } : {}) });
      paged.push(...idsOf(page.runs));
      cursor = page.nextCursor;
    } while (cursor);
    expect(paged).toEqual(idsOf(newest.filter((r) => r.customer === 'c-1')));

    // The raw query: `tag` repeated, all must match.
    const raw = await fetch(`${url}/v1/runs?tag=customer:c-2&tag=region:eu`);
    expect(idsOf(((await raw.json()) as { runs: Array<{ runId: string }> }).runs)).toEqual([started[2]?.runId]);

    // The CLI: list by tag and error code, the TAGS column; show prints the tags.
    const listed = await durable('list', '--tag', 'customer=c-1', '--error-code', 'card_declined');
    expect(listed.stderr).toBe('');
    const [header, ...rows] = listed.stdout.trimEnd().split('\n');
    expect(header).toMatch(/\bTAGS\b/);
    expect(rows.map((row) => row.split(/\s+/)[0])).toEqual([started[1]?.runId]);
    expect(rows[0]).toContain('customer=c-1 region=eu stage=charging');
    const shown = await durable('show', started[0]?.runId as string);
    expect(shown.stdout).toMatch(/^tags\s+customer=c-1 region=eu stage=done$/m);
    const json = JSON.parse((await durable('list', '--tag', 'customer=c-2', '--json')).stdout);
    expect(json.runs.map((r: { runId: string }) => r.runId)).toEqual([started[2]?.runId]);
  });

  it('starts a run with tags from the CLI, and refuses bad tags naming the field', async () => {
    const out = await durable('start', 'orders', '--input', '{"customer":"c-9"}', '--tag', 'batch=b-7', '--json');
    expect(out.stderr).toBe('');
    const runId = JSON.parse(out.stdout).runId as string;
    await backend.waitForStatus(runId, 'SUCCEEDED');
    const client = new DurableClient({ baseUrl: url, backoffMs: 1 });
    expect((await client.getRun(runId)).tags).toEqual({ batch: 'b-7', customer: 'c-9', stage: 'done' });

    const refusal = (error: unknown) => ({
      status: (error as DurableApiError).status,
      code: (error as DurableApiError).code,
      message: (error as Error).message,
    });
    const bad = await client
      .startRun({ function: 'orders', input: { customer: 'x' }, tags: { 'no spaces': 'x' } })
      .catch(refusal);
    expect(bad).toMatchObject({
      status: 400,
      code: 'invalid_argument',
      message: expect.stringContaining('tags.no spaces'),
    });
    const notString = await client
      .startRun({ function: 'orders', tags: { n: 7 } as unknown as Record<string, string> })
      .catch(refusal);
    expect(notString).toMatchObject({ status: 400, message: expect.stringContaining('tags.n') });
    const query = await fetch(`${url}/v1/runs?tag=customer`);
    expect(query.status).toBe(400);
    expect(await query.json()).toMatchObject({
      error: { code: 'invalid_argument', message: expect.stringMatching(/^tag: /) },
    });
    const cli = await durable('list', '--tag', 'customer');
    expect(cli.code).not.toBe(0);
    expect(cli.stderr).toContain('--tag');
  });
});
