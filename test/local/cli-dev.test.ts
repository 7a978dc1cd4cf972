/**
 * `durable dev <entry.ts> --port N --db FILE` from the repository (DURABLE_CLI_SOURCE=1: the CLI
 * runs its TypeScript sources through tsx, which also loads the .ts entry): the control API
 * answers with the entry's handlers and runs them; a second one on the same file refuses to start;
 * SIGTERM stops it cleanly.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunWire } from '@durable-lambda/api';
import { afterAll, expect, it } from 'vitest';
import { getJson, killAll, postJson, spawnNode, until } from './dev-server-process';

const dir = mkdtempSync(join(tmpdir(), 'durable-cli-dev-'));
afterAll(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

it('durable dev serves the handlers of a .ts entry through the control API', async () => {
  const port = await freePort();
  const child = spawnNode(
    [
      'packages/api/bin/durable.mjs',
      'dev',
      'test/local/fixtures/dev-entry.ts',
      '--port',
      String(port),
      '--db',
      join(dir, 'cli.sqlite'),
    ],
    { DURABLE_CLI_SOURCE: '1' },
  );
  const url = `http://127.0.0.1:${port}`;
  await child.waitFor(new RegExp(`durable dev server running at ${url.replace(/\./g, '\\.')}`));

  const { status, body } = await getJson<{ functions: Array<{ name: string }> }>(`${url}/v1/functions`);
  expect(status).toBe(200);
  expect(body.functions.map((f) => f.name).sort()).toEqual(['dev-entry', 'greet']);

  const started = await postJson<RunWire>(`${url}/v1/runs`, { function: 'greet', input: { name: 'cli' } });
  expect(started.status).toBe(201);
  const run = await until(async () => {
    const { body: current } = await getJson<RunWire>(`${url}/v1/runs/${started.body.runId}`);
    return current.status !== 'RUNNING' && current;
  });
  expect(run).toMatchObject({ status: 'SUCCEEDED', result: 'hello cli' });

  // A second server on the same file refuses at once, in one line; the first goes on.
  const second = spawnNode(
    [
      'packages/api/bin/durable.mjs',
      'dev',
      'test/local/fixtures/dev-entry.ts',
      '--port',
      String(await freePort()),
      '--db',
      join(dir, 'cli.sqlite'),
    ],
    { DURABLE_CLI_SOURCE: '1' },
  );
  expect((await second.exited).code).not.toBe(0);
  expect(second.output().trim().split('\n')).toEqual([
    `error: the database ${join(dir, 'cli.sqlite')} is in use by another dev server or LocalRuntime (stop it first, or give another file)`,
  ]);
  expect((await getJson(`${url}/v1/functions`)).status).toBe(200);

  child.process.kill('SIGTERM');
  expect(await child.exited).toEqual({ code: 0, signal: null });
  expect(child.output()).toContain('dev server stopped');
});
