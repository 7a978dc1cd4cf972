/**
 * `durable dev <entry.ts> --port N --db FILE` from the repository (DURABLE_CLI_SOURCE=1: the CLI
 * runs its TypeScript sources through tsx, which also loads the .ts entry): the control API
 * answers with the entry's handlers and runs them; it prints its URL once and says how to stop
 * it; a second one on the same file refuses to start, and one on a busy port says so in one
 * line naming PORT; a Ctrl-C relayed twice still stops it gracefully (it says so), waiting for
 * the invocation under way; `--watch` restarts it with the new handlers when the entry changes,
 * and the runs go on.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunWire } from '@durable-lambda/api';
import { afterAll, describe, expect, it } from 'vitest';
import { getJson, killAll, postJson, root, spawnNode, until } from '../local/dev-server/process';

const dir = mkdtempSync(join(tmpdir(), 'durable-cli-dev-'));
// Entries written by the tests live in the repository (ignored by git), where tsx finds the sources.
mkdirSync(join(root, '.artifacts'), { recursive: true });
const entries = mkdtempSync(join(root, '.artifacts', 'cli-dev-'));
afterAll(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
  rmSync(entries, { recursive: true, force: true });
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

function durableDev(args: string[], env: Record<string, string> = {}) {
  return spawnNode(['packages/cli/bin/durable.mjs', 'dev', ...args], { DURABLE_CLI_SOURCE: '1', ...env });
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A handler module exporting durable handlers by these names (each returns `<name>:<input.n>`). */
function writeEntry(file: string, names: string[], stepMs = 0): void {
  const handlers = names.map(
    (name) => `export const ${name} = withDurableExecution(async (event: { n?: number } | undefined, ctx) => {
  const n = await ctx.step('work', async () => {
    await new Promise((resolve) => setTimeout(resolve, ${stepMs}));
    return event?.n ?? 0;
  });
  await ctx.wait('pause', { seconds: 1 });
  return '${name}:' + n;
}, quiet);`,
  );
  writeFileSync(
    file,
    `import { withDurableExecution } from '@durable-lambda/sdk';\nconst quiet = { logSink: () => {}, inProcessWaitMs: 0 };\n${handlers.join('\n')}\n`,
  );
}

async function functionsAt(url: string): Promise<string[]> {
  const { body } = await getJson<{ functions: Array<{ name: string }> }>(`${url}/v1/functions`);
  return body.functions.map((f) => f.name).sort();
}

async function finished(url: string, runId: string, timeoutMs = 15_000): Promise<RunWire> {
  return until(async () => {
    const { body } = await getJson<RunWire>(`${url}/v1/runs/${runId}`);
    return body.status !== 'RUNNING' && body;
  }, timeoutMs);
}

// Each test starts tsx processes: slow on a loaded machine, so the timeouts are generous.
const SLOW = 120_000;

describe('durable dev', () => {
  it(
    'serves the handlers of a .ts entry, prints its URL once, and a second one on the same file refuses',
    async () => {
      const port = await freePort();
      const db = join(dir, 'cli.sqlite');
      const child = durableDev(['test/local/fixtures/dev-entry.ts', '--port', String(port), '--db', db]);
      const url = `http://127.0.0.1:${port}`;
      await child.waitFor(/Press Ctrl-C to stop/, 60_000);
      const lines = child.output().split('\n');
      expect(lines.filter((line) => line === `durable-lambda dev server at ${url}`)).toHaveLength(1);
      expect(child.output()).not.toMatch(/dev server running at/);

      expect(await functionsAt(url)).toEqual(['dev-entry', 'greet']);
      const started = await postJson<RunWire>(`${url}/v1/runs`, { function: 'greet', input: { name: 'cli' } });
      expect(started.status).toBe(201);
      expect(await finished(url, started.body.runId)).toMatchObject({ status: 'SUCCEEDED', result: 'hello cli' });

      // A second server on the same file refuses at once, in one line; the first goes on.
      const second = durableDev(['test/local/fixtures/dev-entry.ts', '--port', String(await freePort()), '--db', db]);
      expect((await second.exited).code).not.toBe(0);
      expect(second.output().trim().split('\n')).toEqual([
        `error: the database ${db} is in use by another dev server or LocalRuntime (stop it first, or give another file)`,
      ]);
      expect((await getJson(`${url}/v1/functions`)).status).toBe(200);

      child.process.kill('SIGTERM');
      expect(await child.exited).toEqual({ code: 0, signal: null });
      expect(child.output()).toMatch(/SIGTERM: stopping the dev server/);
      expect(child.output()).toContain('dev server stopped');
    },
    SLOW,
  );

  it(
    'says in one line naming PORT that the port is busy, without a stack trace',
    async () => {
      const busy: Server = createServer();
      const port = await new Promise<number>((resolve) =>
        busy.listen(0, '127.0.0.1', () => resolve((busy.address() as { port: number }).port)),
      );
      try {
        const byFlag = durableDev([
          'test/local/fixtures/dev-entry.ts',
          '--port',
          String(port),
          '--db',
          join(dir, 'busy.sqlite'),
        ]);
        expect((await byFlag.exited).code).toBe(1);
        expect(byFlag.output().trim().split('\n')).toEqual([
          `error: port ${port} on 127.0.0.1 is in use (another dev server?): choose another with --port N (or PORT=N)`,
        ]);
        // PORT is read when --port is not given.
        const byEnv = durableDev(['test/local/fixtures/dev-entry.ts', '--db', join(dir, 'busy-env.sqlite')], {
          PORT: String(port),
        });
        expect((await byEnv.exited).code).toBe(1);
        expect(byEnv.output().trim().split('\n')).toEqual([
          `error: port ${port} on 127.0.0.1 is in use (another dev server?): choose another with --port N (or PORT=N)`,
        ]);
      } finally {
        busy.close();
      }
    },
    SLOW,
  );

  it(
    'stops gracefully on a Ctrl-C that arrives twice (relayed), waiting for the step under way',
    async () => {
      const entry = join(entries, 'slow.ts');
      writeEntry(entry, ['slow'], 2_500);
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const child = durableDev([entry, '--port', String(port), '--db', join(dir, 'signals.sqlite')]);
      await child.waitFor(/Press Ctrl-C to stop/, 60_000);
      const started = await postJson<RunWire>(`${url}/v1/runs`, { function: 'slow', input: { n: 1 } });
      // The step is under way (its START is stored) when the two signals come.
      await until(async () => {
        const { body } = await getJson<{ operations: Array<{ name?: string; status: string }> }>(
          `${url}/v1/runs/${started.body.runId}/operations`,
        );
        return body.operations.some((op) => op.name === 'work' && op.status === 'STARTED');
      });
      child.process.kill('SIGINT');
      await child.waitFor(/SIGINT: stopping the dev server/);
      // What tsx does when the terminal's Ctrl-C reached it too: it relays a copy.
      child.process.kill('SIGINT');
      expect(await child.exited).toEqual({ code: 0, signal: null });
      const output = child.output();
      expect(output).toMatch(/SIGINT: stopping the dev server, waiting for the invocations under way/);
      expect(output).toMatch(/SIGINT again: still stopping/);
      expect(output).toContain('dev server stopped');
      expect(output).not.toMatch(/forced/);

      // The step ran to its end before the stop: a restart finds it done, not lost.
      const again = durableDev([entry, '--port', String(port), '--db', join(dir, 'signals.sqlite')]);
      await again.waitFor(/Press Ctrl-C to stop/, 60_000);
      const run = await finished(url, started.body.runId);
      expect(run).toMatchObject({ status: 'SUCCEEDED', result: 'slow:1', lostInvocations: 0 });
      again.process.kill('SIGTERM');
      expect((await again.exited).code).toBe(0);
    },
    SLOW,
  );

  it(
    '--watch restarts the server with the new handlers when the entry changes; runs go on',
    async () => {
      const entry = join(entries, 'watched.ts');
      writeEntry(entry, ['alpha']);
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const child = durableDev([entry, '--watch', '--port', String(port), '--db', join(dir, 'watch.sqlite')]);
      await child.waitFor(/restarting on changes under/, 60_000);
      await child.waitFor(new RegExp(`durable-lambda dev server at ${escapeRegExp(url)}`), 60_000);
      expect(await until(async () => (await functionsAt(url)).join(','))).toBe('alpha');
      const before = await postJson<RunWire>(`${url}/v1/runs`, { function: 'alpha', input: { n: 7 } });
      expect(before.status).toBe(201);

      writeEntry(entry, ['alpha', 'beta']);
      await child.waitFor(/watched\.ts changed; restarting the server/, 30_000);
      expect(await until(async () => (await functionsAt(url)).join(',') === 'alpha,beta' && 'reloaded', 60_000)).toBe(
        'reloaded',
      );
      expect(child.output()).toMatch(/dev server at .* \(restarted; functions: alpha, beta\)/);
      expect(await finished(url, before.body.runId)).toMatchObject({ status: 'SUCCEEDED', result: 'alpha:7' });
      const after = await postJson<RunWire>(`${url}/v1/runs`, { function: 'beta', input: { n: 2 } });
      expect(await finished(url, after.body.runId)).toMatchObject({ status: 'SUCCEEDED', result: 'beta:2' });

      child.process.kill('SIGTERM');
      expect(await child.exited).toEqual({ code: 0, signal: null });
      expect(child.output()).toContain('dev server stopped');
    },
    SLOW,
  );
});
