/**
 * The CLI shows flow control per key: `durable list --status QUEUED` with KEY and POSITION
 * columns, `durable show` of a QUEUED run with its key, queue time and position, and
 * `durable functions` with each function's limits and its RUNNING and QUEUED runs.
 */
import { createControlApi, toNodeListener } from '@durable-lambda/api';
import { noteFunctionLimits } from '@durable-lambda/engine';
import { withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveBackend, listen } from '../api/support';
import { runDurableCli } from '../support/durable-cli';

const backend = new LiveBackend();
backend.handlers.set(
  'jobs',
  withDurableExecution(
    async (_event, ctx) => {
      await ctx.wait({ hours: 1 });
      return 'done';
    },
    {
      logSink: () => {},
      backend: backend.engine,
      concurrency: { key: (e) => (e as { tenant: string }).tenant, limit: 1 },
    },
  ),
);
backend.register('plain', async () => 'ok');

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

describe('durable CLI: queued runs and functions with their limits', { timeout: 60_000 }, () => {
  it('lists QUEUED runs with their key and position, shows one, and lists the functions with their counts', async () => {
    await noteFunctionLimits(backend.store, 'jobs', { concurrency: { limit: 1 } }, { now: () => Date.now() });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const started = JSON.parse((await durable('start', 'jobs', '--input', '{"tenant":"acme"}', '--json')).stdout);
      ids.push(started.runId);
      await backend.waitForStatus(started.runId, i === 0 ? 'RUNNING' : 'QUEUED');
    }
    await backend.waitForStatus(ids[1] as string, 'QUEUED');

    const listed = await durable('list', '--status', 'QUEUED');
    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
    const [header, ...rows] = listed.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^RUN ID\s+FUNCTION\s+STATUS\s+KEY\s+POSITION\s+CREATED\s+ENDED\s+WAITING FOR$/);
    const positions = rows.map((row) => row.split(/\s+/)).map((cells) => [cells[0], cells[2], cells[3], cells[4]]);
    expect(positions.sort()).toEqual(
      [
        [ids[1], 'QUEUED', 'acme', '1'],
        [ids[2], 'QUEUED', 'acme', '2'],
      ].sort(),
    );

    const inOrder = await durable('list', '--function', 'jobs', '--status', 'QUEUED', '--concurrency-key', 'acme');
    expect(
      inOrder.stdout
        .trimEnd()
        .split('\n')
        .slice(1)
        .map((row) => row.split(/\s+/)[0]),
    ).toEqual([ids[1], ids[2]]);

    const shown = await durable('show', ids[2] as string);
    expect(shown.stdout).toMatch(/^status\s+QUEUED$/m);
    expect(shown.stdout).toMatch(/^concurrency key\s+acme$/m);
    expect(shown.stdout).toMatch(/^queued since\s+\d{4}-\d\d-\d\dT/m);
    expect(shown.stdout).toMatch(/^queue position\s+2 \(1: next to start\)$/m);

    const functions = await durable('functions');
    expect(functions.code).toBe(0);
    const lines = functions.stdout.split('\n');
    expect(lines[0]).toMatch(/^FUNCTION\s+LIMITS\s+RUNNING\s+QUEUED\s+SCHEDULES$/);
    expect(lines.find((line) => line.startsWith('jobs'))).toMatch(/^jobs\s+concurrency 1 per key\s+1\s+2\s+-$/);
    expect(lines.find((line) => line.startsWith('plain'))).toMatch(/^plain\s+none recorded\s+0\s+0\s+-$/);
  });

  it('refuses an unknown status with a usage error naming --status', async () => {
    const refused = await durable('list', '--status', 'WAITING');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--status: must be one of RUNNING, QUEUED,/);
  });
});
