/**
 * `npm start`'s script (examples/dev-server.ts) as a developer runs it: a busy port is one line
 * naming PORT, no stack trace; a Ctrl-C relayed a second time (tsx relays the terminal's signal
 * to its child) still stops it gracefully. It boots with every example, their samples served
 * with their functions, and an example runs to its end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FunctionListWire, RunWire } from '@durable-lambda/api';
import { afterAll, describe, expect, it } from 'vitest';
import { getJson, killAll, postJson, SERVER_URL, spawnNode, until } from './process';

const dir = mkdtempSync(join(tmpdir(), 'durable-dev-signals-'));
afterAll(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

const SLOW = 120_000;

function npmStart(env: Record<string, string>) {
  return spawnNode(['--import', 'tsx', 'examples/dev-server.ts'], env);
}

describe('npm start (examples/dev-server.ts)', () => {
  it(
    'says in one line naming PORT that the port is busy',
    async () => {
      const busy: Server = createServer();
      const port = await new Promise<number>((resolve) =>
        busy.listen(0, '127.0.0.1', () => resolve((busy.address() as { port: number }).port)),
      );
      try {
        const child = npmStart({ PORT: String(port), DURABLE_DB: join(dir, 'busy.sqlite') });
        expect((await child.exited).code).toBe(1);
        expect(child.output().trim().split('\n')).toEqual([
          `durable-lambda dev server: port ${port} on 127.0.0.1 is in use (another dev server?): start it with another PORT, e.g. PORT=3001 npm start`,
        ]);
      } finally {
        busy.close();
      }
    },
    SLOW,
  );

  it(
    'serves every example with its samples, runs one, and stops gracefully on a Ctrl-C that arrives twice',
    async () => {
      const child = npmStart({ PORT: '0', DURABLE_DB: join(dir, 'examples.sqlite') });
      const url = (await child.waitFor(SERVER_URL, 60_000))[1] as string;
      await child.waitFor(/Ctrl-C stops the server/);
      const { status, body } = await getJson<FunctionListWire>(`${url}/v1/functions`);
      expect(status).toBe(200);
      expect(body.functions.map((f) => f.name).sort()).toEqual([
        'approval',
        'checkout',
        'fan-out',
        'order-saga',
        'payments',
        'reminder',
        'report-job',
        'trial',
      ]);
      const checkout = body.functions.find((f) => f.name === 'checkout');
      expect(checkout?.samples?.[0]?.input).toMatchObject({ orderId: expect.any(String), lines: expect.any(Array) });
      expect(body.functions.filter((f) => !f.samples?.length).map((f) => f.name)).toEqual([]);

      // An example runs to its end: the suite's one boot of the examples (a process start is ~2 CPU-s).
      const started = await postJson<RunWire>(`${url}/v1/runs`, { function: 'fan-out', input: { period: '2025-04' } });
      expect(started.status).toBe(201);
      const run = await until(async () => {
        const { body: polled } = await getJson<RunWire>(`${url}/v1/runs/${started.body.runId}`);
        return polled.status !== 'RUNNING' && polled;
      }, 60_000);
      expect(run).toMatchObject({ status: 'SUCCEEDED', result: { period: '2025-04', customers: 100, sent: 100 } });

      // A request still being sent holds the stop for up to 2 s (it waits for requests under way),
      // so the second signal surely arrives while the server is stopping.
      const { hostname, port } = new URL(url);
      const pending = connect(Number(port), hostname);
      await new Promise((resolve) => pending.once('connect', resolve));
      pending.write(
        `POST /v1/runs HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`,
      );
      pending.on('error', () => {});
      child.process.kill('SIGINT');
      await child.waitFor(/SIGINT: stopping, waiting for the invocations under way/);
      child.process.kill('SIGINT');
      expect(await child.exited).toEqual({ code: 0, signal: null });
      expect(child.output()).toMatch(/SIGINT again: still stopping/);
      expect(child.output()).toContain('dev server stopped');
    },
    SLOW,
  );
});
