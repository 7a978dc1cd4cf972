/**
 * What the dashboard asks of the control API besides the plain list: `GET /v1/runs?contains=`
 * (runs whose input, result or error holds a text, paged by cursor, with the time-range filters),
 * `GET /v1/runs/{runId}/export` (the file `durable export` prints, for the download button) and
 * each function's execution timeout in `GET /v1/functions` (the functions page).
 */
import { parseRecordedRun } from '@durable-lambda/local';
import { describe, expect, it } from 'vitest';
import { ApiFixture, durable } from './support';

const ids = (answer: { json: { runs: Array<{ runId: string }> } }) => answer.json.runs.map((r) => r.runId);

describe('GET /v1/runs?contains=', () => {
  it('finds runs by text in their input, result or error, case-insensitive, newest first, paged', async () => {
    const f = new ApiFixture();
    const ok = durable(async (event: { sku?: string }) => ({ shipped: event.sku }));
    const bad = durable(async () => {
      throw new Error('Warehouse ON FIRE');
    });
    const a = await f.start('fn', { sku: 'blue-widget' });
    f.clock.advanceBy(1000);
    const b = await f.start('fn', { sku: 'red-gadget' });
    f.clock.advanceBy(1000);
    const c = await f.start('fn', { note: 'nothing here' });
    f.clock.advanceBy(1000);
    const d = await f.start('fn', { sku: 'BLUE-sprocket' });
    await f.drive(a, ok);
    await f.drive(b, ok);
    await f.drive(c, bad);
    await f.drive(d, ok);

    const blue = await f.call('GET', '/v1/runs', { query: { contains: 'blue' } });
    expect(blue.status).toBe(200);
    expect(ids(blue)).toEqual([d, a]);
    // In a result only: the input names `red-gadget` too, so ask for the result's key.
    expect(ids(await f.call('GET', '/v1/runs', { query: { contains: '"shipped":"red' } }))).toEqual([b]);
    // In an error's message.
    expect(ids(await f.call('GET', '/v1/runs', { query: { contains: 'on fire' } }))).toEqual([c]);
    // Within the other filters: status and time range.
    expect(ids(await f.call('GET', '/v1/runs', { query: { contains: 'blue', status: 'FAILED' } }))).toEqual([]);
    const after = new Date(Date.UTC(2026, 0, 1, 0, 0, 2)).toISOString();
    expect(ids(await f.call('GET', '/v1/runs', { query: { contains: 'blue', createdAfter: after } }))).toEqual([d]);
    expect(ids(await f.call('GET', '/v1/runs', { query: { contains: 'blue', createdBefore: after } }))).toEqual([a]);

    // One a page: the cursor continues after the last run found.
    const first = await f.call('GET', '/v1/runs', { query: { contains: 'blue', limit: '1' } });
    expect(ids(first)).toEqual([d]);
    expect(first.json.nextCursor).toEqual(expect.any(String));
    const second = await f.call('GET', '/v1/runs', {
      query: { contains: 'blue', limit: '1', cursor: first.json.nextCursor },
    });
    expect(ids(second)).toEqual([a]);
  });

  it('refuses contains with search, and a text over 256 characters', async () => {
    const f = new ApiFixture();
    const both = await f.call('GET', '/v1/runs', { query: { contains: 'x', search: 'y' } });
    expect(both.status).toBe(400);
    expect(both.json.error.code).toBe('invalid_argument');
    expect(both.json.error.message).toContain('contains');
    const long = await f.call('GET', '/v1/runs', { query: { contains: 'x'.repeat(257) } });
    expect(long.status).toBe(400);
  });
});

describe('GET /v1/functions', () => {
  it("lists a function's execution timeout when the API is given it, by name or by a function", async () => {
    const byName = new ApiFixture({ executionTimeouts: { fn: 900 } });
    expect((await byName.call('GET', '/v1/functions')).json).toEqual({
      functions: [{ name: 'fn', executionTimeoutSeconds: 900 }, { name: 'other' }],
    });
    const computed = new ApiFixture({ executionTimeouts: (name) => (name === 'other' ? 60 : undefined) });
    expect((await computed.call('GET', '/v1/functions')).json).toEqual({
      functions: [{ name: 'fn' }, { name: 'other', executionTimeoutSeconds: 60 }],
    });
  });
});

describe('GET /v1/runs/{runId}/export', () => {
  it('answers the exported-run file of the run, as a download named for the run', async () => {
    const f = new ApiFixture();
    const handler = durable(async (event: { n: number }, ctx) => {
      const doubled = await ctx.step('double', async () => event.n * 2);
      return { doubled };
    });
    const runId = await f.start('fn', { n: 21 });
    await f.drive(runId, handler);
    const answer = await f.call('GET', `/v1/runs/${runId}/export`);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-disposition']).toBe(`attachment; filename="${runId}.json"`);
    const file = answer.json;
    expect(file).toMatchObject({
      format: 'durable-lambda/recorded-run',
      version: 1,
      source: 'api',
      run: { runId, functionName: 'fn', status: 'SUCCEEDED', input: '{"n":21}', result: '{"doubled":42}' },
    });
    expect(file.operations.map((op: { Name?: string; Type: string }) => [op.Type, op.Name])).toEqual([
      ['EXECUTION', undefined],
      ['STEP', 'double'],
    ]);
    // The file the local package reads for a replay.
    expect(parseRecordedRun(file).run.runId).toBe(runId);
  });

  it('answers 404 run_not_found for a run that does not exist', async () => {
    const f = new ApiFixture();
    const answer = await f.call('GET', '/v1/runs/r-missing/export');
    expect(answer.status).toBe(404);
    expect(answer.json.error.code).toBe('run_not_found');
  });
});
