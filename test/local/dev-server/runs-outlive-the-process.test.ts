/**
 * The dev server in a real process: a run outlives the process (killed with SIGKILL, or stopped
 * with SIGTERM) during its durable wait, and completes once the server is started again on the
 * same SQLite file; killed during a step, the run resumes at once after the restart (the dead
 * process's lease is reclaimed) with that attempt counted as lost. (`npm start`'s script booting
 * with every example is checked by npm-start.test.ts, on the process it stops.)
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OperationListWire, OperationWire, RunWire } from '@durable-lambda/api';
import { afterAll, describe, expect, it } from 'vitest';
import { getJson, killAll, postJson, SERVER_URL, sleep, spawnNode, until } from './process';

const dir = mkdtempSync(join(tmpdir(), 'durable-dev-restart-'));
afterAll(killAll);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CHILD = 'test/local/fixtures/dev-server-child.mts';

function startChild(port: number | string, db: string, marker: string) {
  const child = spawnNode(['--import', 'tsx', CHILD, String(port), db, marker]);
  return child;
}

async function urlOf(child: ReturnType<typeof spawnNode>): Promise<{ url: string; port: number }> {
  const match = await child.waitFor(SERVER_URL, 60_000);
  return { url: match[1] as string, port: Number(match[2]) };
}

/** Starts a `sleeper` run and resolves once its invocation has ended inside the 3-second wait. */
async function runIntoTheWait(url: string, label: string): Promise<string> {
  const { status, body } = await postJson<RunWire>(`${url}/v1/runs`, { function: 'sleeper', input: { label } });
  expect(status).toBe(201);
  await until(async () => {
    const { body: ops } = await getJson<OperationListWire>(`${url}/v1/runs/${body.runId}/operations`);
    const nap = ops.operations.find((op) => op.name === 'nap');
    return nap?.status === 'STARTED';
  }, 60_000);
  // The invocation closes right after the wait's checkpoint; give it that moment.
  await sleep(300);
  const { body: run } = await getJson<RunWire>(`${url}/v1/runs/${body.runId}`);
  expect(run).toMatchObject({ status: 'RUNNING', invocations: 1 });
  return body.runId;
}

async function completed(url: string, runId: string, timeoutMs = 60_000): Promise<RunWire> {
  return until(async () => {
    const { body } = await getJson<RunWire>(`${url}/v1/runs/${runId}`);
    return body.status !== 'RUNNING' && body;
  }, timeoutMs);
}

async function operation(url: string, runId: string, name: string): Promise<OperationWire | undefined> {
  const { body } = await getJson<OperationListWire>(`${url}/v1/runs/${runId}/operations`);
  return body.operations.find((op) => op.name === name);
}

/** Each test runs tsx processes, several at once: slow on a loaded machine, so the limit is generous. */
const SLOW = 120_000;

describe.concurrent('dev server restarts', () => {
  it(
    'a run whose server was killed with SIGKILL during its wait completes after a restart on the same db and port',
    async () => {
      const db = join(dir, 'killed.sqlite');
      const marker = join(dir, 'killed.txt');
      const first = startChild(0, db, marker);
      const { url, port } = await urlOf(first);
      const runId = await runIntoTheWait(url, 'killed');
      const startedWait = Date.now();

      first.process.kill('SIGKILL');
      expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
      await expect(fetch(`${url}/v1/functions`)).rejects.toThrow();

      const second = startChild(port, db, marker);
      expect((await urlOf(second)).url).toBe(url);
      const run = await completed(url, runId);
      expect(run).toMatchObject({
        status: 'SUCCEEDED',
        result: { label: 'killed' },
        invocations: 2,
        lostInvocations: 0,
      });
      expect(Date.now() - startedWait).toBeGreaterThanOrEqual(2_500);
      // The step before the wait ran once: the restart replayed it from the file.
      expect(readFileSync(marker, 'utf8')).toBe('before killed\n');
      const { body: ops } = await getJson<OperationListWire>(`${url}/v1/runs/${runId}/operations`);
      expect(ops.operations.map((op) => [op.name ?? op.type, op.status])).toEqual([
        ['EXECUTION', 'SUCCEEDED'],
        ['before', 'SUCCEEDED'],
        ['nap', 'SUCCEEDED'],
        ['after', 'SUCCEEDED'],
      ]);
      second.process.kill('SIGTERM');
      expect((await second.exited).code).toBe(0);
    },
    SLOW,
  );

  it(
    'a run whose server was killed with SIGKILL during a step resumes at once after a restart, that attempt lost',
    async () => {
      const db = join(dir, 'mid-step.sqlite');
      const marker = join(dir, 'mid-step.txt');
      const first = startChild(0, db, marker);
      const { url, port } = await urlOf(first);
      const { status, body } = await postJson<RunWire>(`${url}/v1/runs`, { function: 'worker', input: {} });
      expect(status).toBe(201);
      // The attempt's start is stored: from here on, a crash is a lost attempt of the step.
      await until(async () => (await operation(url, body.runId, 'long'))?.status === 'STARTED', 30_000);

      first.process.kill('SIGKILL');
      expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });

      // The dead invocation's lease runs for 15 minutes; the restart must not wait for it.
      const second = startChild(port, db, marker);
      await urlOf(second);
      const run = await completed(url, body.runId, 60_000);
      expect(run).toMatchObject({ status: 'SUCCEEDED', result: { attempt: 2 }, lostInvocations: 1 });
      expect(await operation(url, body.runId, 'long')).toMatchObject({
        status: 'SUCCEEDED',
        attempt: 2,
        failedAttempts: [{ attempt: 1, error: { code: 'invocation_lost' } }],
      });
      expect(readFileSync(marker, 'utf8')).toBe('long attempt 1\nlong attempt 2\n');
      second.process.kill('SIGTERM');
      expect((await second.exited).code).toBe(0);
    },
    SLOW,
  );

  it(
    'a second dev server on the same file refuses to start with one line, and the first goes on',
    async () => {
      const db = join(dir, 'shared.sqlite');
      const marker = join(dir, 'shared.txt');
      const first = startChild(0, db, marker);
      const { url } = await urlOf(first);

      const second = startChild(0, db, marker);
      expect(await second.exited).toEqual({ code: 1, signal: null });
      expect(second.output().trim().split('\n')).toEqual([
        `dev server failed to start: the database ${db} is in use by another dev server or LocalRuntime (stop it first, or give another file)`,
      ]);

      expect((await getJson(`${url}/v1/functions`)).status).toBe(200);
      first.process.kill('SIGTERM');
      expect((await first.exited).code).toBe(0);
      // Once the first has stopped, the file is free again.
      const third = startChild(0, db, marker);
      await urlOf(third);
      third.process.kill('SIGTERM');
      expect((await third.exited).code).toBe(0);
    },
    SLOW,
  );

  it(
    'a run whose server was stopped with SIGTERM during its wait completes after a restart',
    async () => {
      const db = join(dir, 'stopped.sqlite');
      const marker = join(dir, 'stopped.txt');
      const first = startChild(0, db, marker);
      const { url, port } = await urlOf(first);
      const runId = await runIntoTheWait(url, 'stopped');

      first.process.kill('SIGTERM');
      expect(await first.exited).toEqual({ code: 0, signal: null });
      expect(first.output()).toContain('dev server stopped');

      const second = startChild(port, db, marker);
      await urlOf(second);
      const run = await completed(url, runId);
      expect(run).toMatchObject({ status: 'SUCCEEDED', result: { label: 'stopped' }, invocations: 2 });
      expect(readFileSync(marker, 'utf8')).toBe('before stopped\n');
      second.process.kill('SIGTERM');
      expect((await second.exited).code).toBe(0);
    },
    SLOW,
  );
});
