import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OperationListWire, RunWire } from '@durable-lambda/api';
import { type DevServer, startDevServer } from '@durable-lambda/local';
import { withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardAnswer, locateDashboard } from '../../../packages/local/src/dev-server/dashboard';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const dir = mkdtempSync(join(tmpdir(), 'durable-dev-server-'));
const quiet = { logSink: () => {} };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(probe: () => Promise<T | undefined | false>, timeoutMs = 8_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(50);
  }
}

const napper = withDurableExecution(
  async (event: { n: number }, ctx) => {
    const doubled = await ctx.step('double', async () => event.n * 2);
    await ctx.wait('nap', { seconds: 1 });
    return { doubled };
  },
  // The wait suspends the invocation: the timer waker resumes the run from the SQLite file.
  { ...quiet, inProcessWaitMs: 0 },
);

const approver = withDurableExecution(async (event: { item: string }, ctx) => {
  const [answer] = await ctx.createCallback<string>('decision', { timeout: { minutes: 5 } });
  const decision = await answer;
  return { item: event.item, decision: JSON.parse(decision) as unknown };
}, quiet);

let server: DevServer;
const lines: string[] = [];

beforeAll(async () => {
  server = await startDevServer({
    functions: { napper, approver },
    entries: ['test/local/fixtures/dev-entry.ts'],
    port: 0,
    db: join(dir, 'nested', 'dev.sqlite'),
    log: (line) => lines.push(line),
  });
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function api<T>(
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${server.url}${path}`, {
    method: init.method ?? 'GET',
    ...(init.body === undefined
      ? {}
      : { body: JSON.stringify(init.body), headers: { 'content-type': 'application/json' } }),
  });
  return { status: res.status, body: (await res.json()) as T };
}

/** A GET with the path sent exactly as written (fetch would normalize `..` away). */
function rawGet(path: string): Promise<{ status: number; type: string | undefined; body: string }> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, method: 'GET' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          type: res.headers['content-type'],
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

async function finished(runId: string): Promise<RunWire> {
  return until(async () => {
    const { body } = await api<RunWire>(`/v1/runs/${runId}`);
    return body.status !== 'RUNNING' && body;
  });
}

describe('startDevServer', () => {
  it('listens on a free port, prints its URL, and creates the database directory', () => {
    expect(server.port).toBeGreaterThan(0);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    expect(lines[0]).toContain(server.url);
    expect(existsSync(join(dir, 'nested', 'dev.sqlite'))).toBe(true);
    expect(server.runtime.running).toBe(true);
  });

  it('lists the given functions and the handlers of the entries (named exports, default under the file name)', async () => {
    const { status, body } = await api<{ functions: Array<{ name: string }> }>('/v1/functions');
    expect(status).toBe(200);
    expect(body.functions.map((f) => f.name).sort()).toEqual(['approver', 'dev-entry', 'greet', 'napper']);
  });

  it('starts a run through POST /v1/runs that waits 1 s and completes', async () => {
    const started = Date.now();
    const { status, body } = await api<RunWire>('/v1/runs', {
      method: 'POST',
      body: { function: 'napper', input: { n: 21 } },
    });
    expect(status).toBe(201);
    expect(body).toMatchObject({ function: 'napper', status: 'RUNNING' });
    const done = await finished(body.runId);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(done).toMatchObject({ status: 'SUCCEEDED', result: { doubled: 42 }, invocations: 2 });
  });

  it('runs a handler loaded from an entry', async () => {
    const { body } = await api<RunWire>('/v1/runs', { method: 'POST', body: { function: 'dev-entry' } });
    expect(await finished(body.runId)).toMatchObject({ status: 'SUCCEEDED', result: 'pong' });
  });

  it('completes a callback through POST /v1/callbacks/{id}/succeed and the run finishes', async () => {
    const { body: run } = await api<RunWire>('/v1/runs', {
      method: 'POST',
      body: { function: 'approver', input: { item: 'laptop' } },
    });
    const callbackId = await until(async () => {
      const { body } = await api<OperationListWire>(`/v1/runs/${run.runId}/operations`);
      return body.operations.find((op) => op.type === 'CALLBACK' && op.status === 'STARTED')?.callbackId;
    });
    const ack = await api(`/v1/callbacks/${encodeURIComponent(callbackId)}/succeed`, {
      method: 'POST',
      body: { result: { approvedBy: 'bob' } },
    });
    expect(ack).toEqual({ status: 200, body: { callbackId, outcome: 'succeeded' } });
    expect(await finished(run.runId)).toMatchObject({
      status: 'SUCCEEDED',
      result: { item: 'laptop', decision: { approvedBy: 'bob' } },
    });
  });

  it('answers API errors with their codes', async () => {
    const unknown = await api<{ error: { code: string } }>('/v1/runs', { method: 'POST', body: { function: 'nope' } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('function_not_found');
    expect((await api<{ error: { code: string } }>('/v1/runs/r-missing')).status).toBe(404);
  });

  it('serves the dashboard at / (or a 503 saying it is missing)', async () => {
    const folder = locateDashboard();
    expect(folder).toBe(join(root, 'packages', 'local', 'dashboard'));
    const index = await rawGet('/');
    if (existsSync(join(folder as string, 'index.html'))) {
      expect(index.status).toBe(200);
      expect(index.type).toBe('text/html; charset=utf-8');
      expect(index.body.toLowerCase()).toContain('<html');
      for (const [file, type] of [
        ['app.js', 'text/javascript; charset=utf-8'],
        ['styles.css', 'text/css; charset=utf-8'],
      ] as const) {
        if (!existsSync(join(folder as string, file))) continue;
        const served = await rawGet(`/dashboard/${file}`);
        expect(served.status, file).toBe(200);
        expect(served.type, file).toBe(type);
      }
    } else {
      expect(index.status).toBe(503);
      expect(index.body).toContain('dashboard is missing');
    }
  });

  it('answers 404 to traversal attempts and unknown paths', async () => {
    for (const path of [
      '/dashboard/../package.json',
      '/dashboard/..%2fpackage.json',
      '/dashboard/..%2Fpackage.json',
      '/dashboard/%2e%2e/package.json',
      '/dashboard/%2E%2E%2Fpackage.json',
      '/dashboard/%2e%2e%2f%2e%2e%2fpackage.json',
      '/dashboard/..%5cpackage.json',
      '/dashboard/%252e%252e%252fpackage.json',
      '/dashboard//etc/passwd',
      '/dashboard/%2fetc%2fpasswd',
      '/dashboard/index.html%00.js',
      '/dashboard/%',
      '/dashboard/.gitignore',
      '/../package.json',
      '/package.json',
      '/src/index.ts',
      '/nope',
    ]) {
      const answer = await rawGet(path);
      expect(answer.status, path).toBe(404);
      expect(answer.body, path).not.toContain('@durable-lambda');
    }
  });
});

describe('dashboard files', () => {
  const folder = join(dir, 'pkg', 'dashboard');
  beforeAll(() => {
    mkdirSync(join(folder, 'icons'), { recursive: true });
    writeFileSync(join(folder, 'index.html'), '<!doctype html><html></html>');
    writeFileSync(join(folder, 'app.js'), 'export {};');
    writeFileSync(join(folder, 'icons', 'logo.svg'), '<svg/>');
    writeFileSync(join(dir, 'pkg', 'secret.txt'), 'secret');
    symlinkSync(join(dir, 'pkg', 'secret.txt'), join(folder, 'link.txt'));
  });

  it('serves index.html, files and subfolders with their content types', async () => {
    expect(await dashboardAnswer(folder, '/')).toMatchObject({ status: 200, type: 'text/html; charset=utf-8' });
    expect(await dashboardAnswer(folder, '/dashboard/app.js')).toMatchObject({
      status: 200,
      type: 'text/javascript; charset=utf-8',
    });
    expect(await dashboardAnswer(folder, '/dashboard/icons/logo.svg')).toMatchObject({
      status: 200,
      type: 'image/svg+xml',
    });
    expect(await dashboardAnswer(folder, '/dashboard')).toMatchObject({ status: 302, headers: { location: '/' } });
    expect(await dashboardAnswer(folder, '/elsewhere')).toBeUndefined();
  });

  it('refuses paths out of the folder, symlinks out of it, and folders', async () => {
    for (const path of [
      '/dashboard/../secret.txt',
      '/dashboard/..%2Fsecret.txt',
      '/dashboard/icons/..%2F..%2Fsecret.txt',
      '/dashboard/link.txt',
      '/dashboard/icons',
      '/dashboard/missing.js',
    ]) {
      expect((await dashboardAnswer(folder, path))?.status, path).toBe(404);
    }
  });

  it('answers 503 at / without index.html', async () => {
    const answer = await dashboardAnswer(join(dir, 'nowhere'), '/');
    expect(answer?.status).toBe(503);
    expect(String(answer?.body)).toContain('dashboard is missing');
  });
});
