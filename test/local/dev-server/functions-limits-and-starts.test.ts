/**
 * The dev server's `GET /v1/functions` lists each function's limits as its handler declares them
 * (recorded in the SQLite store when the server loads the handler, read back the way a deployed
 * API reads them), the schedules it fires for it, its events route, and its QUEUED runs counted.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DevServer, startDevServer } from '@durable-lambda/local';
import { withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'durable-function-facts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let server: DevServer;
beforeAll(async () => {
  const jobs = withDurableExecution(
    async (_event: unknown, ctx) => {
      await ctx.wait({ hours: 1 });
      return 'done';
    },
    { concurrency: { key: (e) => (e as { tenant: string }).tenant, limit: 1 } },
  );
  const plain = withDurableExecution(async () => 'ok');
  server = await startDevServer({
    functions: { jobs, plain },
    schedules: { plain: [{ name: 'hourly', rateMs: 3_600_000, overlap: 'allowAll' }] },
    port: 0,
    db: join(dir, 'dev.sqlite'),
    log: () => {},
  });
});
afterAll(() => server?.stop());

type Fn = { name: string; limits?: unknown; counts?: unknown; starts?: unknown };
const functions = async (query = '') =>
  ((await (await fetch(`${server.url}/v1/functions${query}`)).json()) as { functions: Fn[] }).functions;

describe('dev server: functions with their limits, schedules and queued runs', () => {
  it('lists the limits each handler declares, and what starts each function', async () => {
    const [jobs, plain] = await functions();
    expect(jobs).toMatchObject({
      name: 'jobs',
      limits: { concurrency: { limit: 1 } },
      starts: { eventsPath: '/v1/functions/jobs/events' },
    });
    expect(plain).toMatchObject({
      name: 'plain',
      limits: {},
      starts: {
        schedules: [{ name: 'hourly', rateMs: 3_600_000, overlap: 'allowAll', catchUp: false }],
        eventsPath: '/v1/functions/plain/events',
      },
    });
  });

  it('counts the runs of a key waiting their turn', async () => {
    for (let i = 0; i < 3; i++) await server.runtime.startRun('jobs', { tenant: 'acme' });
    const deadline = Date.now() + 15_000;
    let counts: unknown;
    while (Date.now() < deadline) {
      counts = (await functions('?include=counts'))[0]?.counts;
      if (JSON.stringify(counts) === JSON.stringify({ running: 1, queued: 2 })) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(counts).toEqual({ running: 1, queued: 2 });
  });
});
