/**
 * The dev server answers its own clients only: a request for another host name (a DNS-rebinding
 * page), a request to the API from another origin (a browser's `Origin`, `Sec-Fetch-Site`), and
 * a state-changing request of a body type any web page may send (`text/plain`, a form, none) are
 * refused before anything runs, with a stable code naming what was refused. Its legitimate clients
 * (the typed client, AWS's SDK on the Lambda-shaped routes, curl with a JSON body) go on working.
 * The requests are raw `node:http` ones, so every header is what the test says.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  InvokeCommand,
  LambdaClient,
  SendDurableExecutionCallbackHeartbeatCommand,
  SendDurableExecutionCallbackSuccessCommand,
} from '@aws-sdk/client-lambda';
import { DurableClient, type RunListWire } from '@durable-lambda/api';
import { type DevServer, startDevServer } from '@durable-lambda/local';
import { withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../../packages/cli/src/args';
import { devOptions } from '../../../packages/cli/src/dev';

const dir = mkdtempSync(join(tmpdir(), 'durable-dev-foreign-'));
let server: DevServer;
let port: number;
let invocations = 0;

/** Counts every time its handler runs: a refused request must never get that far. */
const charge = withDurableExecution(
  async (event: { amount?: number } | undefined, ctx) => {
    invocations++;
    const [callback, callbackId] = await ctx.createCallback<string>('confirm', { timeout: { hours: 1 } });
    await ctx.step('announce', async () => callbackId);
    return { amount: event?.amount ?? 0, confirmed: await callback };
  },
  { logSink: () => {} },
);

beforeAll(async () => {
  server = await startDevServer({
    functions: { charge },
    port: 0,
    db: join(dir, 'dev.sqlite'),
    log: () => {},
    allowedHosts: ['dev.example.test', '.team.test'],
  });
  port = server.port;
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  code?: string;
}

/** One request with exactly these headers (Host included), to the server's socket. */
function send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, setHost: false }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
      });
      res.on('end', () => {
        let code: string | undefined;
        try {
          code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
        } catch {
          code = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, ...(code ? { code } : {}) });
      });
    });
    req.on('error', reject);
    if (!headers.host) req.removeHeader('host');
    req.end(body);
  });
}

const own = () => `127.0.0.1:${port}`;
const start = JSON.stringify({ function: 'charge', input: { amount: 999 } });

async function runCount(): Promise<number> {
  const { body } = await send('GET', '/v1/runs', { host: own() });
  return (JSON.parse(body) as RunListWire).runs.length;
}

describe('the dev server refuses requests meant for another host (DNS rebinding)', () => {
  it('answers 403 forbidden_host for the API, the Lambda-shaped routes and the dashboard under a foreign Host', async () => {
    for (const path of ['/v1/runs', '/2025-12-01/durable-executions/x/state', '/', '/dashboard/app.js']) {
      const answer = await send('GET', path, { host: `attacker.example:${port}` });
      expect(answer, path).toMatchObject({ status: 403, code: 'forbidden_host' });
      expect(JSON.parse(answer.body).error.message).toContain('attacker.example');
      expect(answer.body).not.toContain('"runs"');
    }
    // A name that only looks like this machine's is still a name an attacker controls.
    for (const host of [
      `127.0.0.1.nip.io:${port}`,
      `localhost.attacker.example:${port}`,
      'a b',
      `evil@127.0.0.1:${port}`,
    ]) {
      const answer = await send('GET', '/v1/runs', { host });
      expect(answer.code, host).toBe('forbidden_host');
    }
    // No Host at all, or an empty one: Node's HTTP server refuses it before any listener (HTTP/1.1).
    const hostless: Array<Record<string, string>> = [{}, { host: '' }];
    for (const headers of hostless) expect((await send('GET', '/v1/runs', headers)).status).toBe(400);
  });

  it('answers names no one can rebind, the port aside: localhost, *.localhost, IP addresses, and the allowed names', async () => {
    const hosts = [
      own(),
      `localhost:${port}`,
      'localhost',
      `LOCALHOST:${port}`,
      `app.localhost:${port}`,
      `[::1]:${port}`,
      `192.168.1.20:${port}`,
      'localhost:8080', // a forwarded port (ssh -L, docker -p)
      `dev.example.test:${port}`,
      `api.team.test:${port}`,
      'team.test',
    ];
    for (const host of hosts) expect((await send('GET', '/v1/runs', { host })).status, host).toBe(200);
    expect((await send('GET', '/v1/runs', { host: `other.example.test:${port}` })).code).toBe('forbidden_host');
  });

  it('takes allowed names from durable dev --allowed-hosts, else $DURABLE_ALLOWED_HOSTS', () => {
    const line = (...args: string[]) => parseCommandLine(['dev', 'app.ts', ...args]);
    expect(devOptions(line('--allowed-hosts', 'box.test, .team.test'))).toMatchObject({
      allowedHosts: ['box.test', '.team.test'],
    });
    expect(devOptions(line(), { DURABLE_ALLOWED_HOSTS: 'host.docker.internal' })).toMatchObject({
      allowedHosts: ['host.docker.internal'],
    });
    expect(devOptions(line('--allowed-hosts', 'a.test'), { DURABLE_ALLOWED_HOSTS: 'b.test' }).allowedHosts).toEqual([
      'a.test',
    ]);
    expect(devOptions(line()).allowedHosts).toBeUndefined();
  });

  it('refuses allowed names that are not host names, naming the option', async () => {
    await expect(
      startDevServer({ port: 0, db: ':memory:', log: () => {}, allowedHosts: ['ok.test', 'not a host'] }),
    ).rejects.toThrow('allowedHosts[1]: not a host name: "not a host"');
  });
});

describe('the dev server refuses cross-origin requests to its API', () => {
  it('refuses a start from another origin, whatever its body type, and runs nothing', async () => {
    const before = invocations;
    for (const origin of [
      'https://evil.example',
      'null',
      `http://localhost:${port + 1}`,
      `http://127.0.0.1:${port + 1}`,
    ]) {
      for (const type of ['text/plain', 'application/json']) {
        const answer = await send('POST', '/v1/runs', { host: own(), origin, 'content-type': type }, start);
        expect(answer, `${origin} ${type}`).toMatchObject({ status: 403, code: 'cross_origin' });
      }
    }
    // No Origin, but the browser says the request is not the page's own.
    for (const site of ['cross-site', 'same-site']) {
      const answer = await send(
        'POST',
        '/v1/runs',
        { host: own(), 'sec-fetch-site': site, 'content-type': 'application/json' },
        start,
      );
      expect(answer, site).toMatchObject({ status: 403, code: 'cross_origin' });
    }
    // Reading is refused too (a page of another origin never gets the runs' inputs and results).
    expect((await send('GET', '/v1/runs', { host: own(), 'sec-fetch-site': 'cross-site' })).code).toBe('cross_origin');
    expect(await runCount()).toBe(0);
    expect(invocations).toBe(before);
  });

  it("answers the page's own requests: the same origin, or a navigation typed by the user", async () => {
    const mine = await send('GET', '/v1/runs', {
      host: `localhost:${port}`,
      origin: `http://localhost:${port}`,
      'sec-fetch-site': 'same-origin',
    });
    expect(mine.status).toBe(200);
    expect((await send('GET', '/v1/runs', { host: own(), 'sec-fetch-site': 'none' })).status).toBe(200);
    // The dashboard's page may be opened from a link on any site, but never framed.
    const page = await send('GET', '/', { host: own(), 'sec-fetch-site': 'cross-site' });
    expect(page.status).toBe(200);
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['content-security-policy']).toBe("frame-ancestors 'none'");
  });
});

describe('state-changing requests must say JSON', () => {
  it('answers 415 unsupported_media_type to a body type any page may send, or none, and runs nothing', async () => {
    const before = invocations;
    const refused: Array<[string | undefined, string | undefined]> = [
      ['text/plain', start],
      ['text/plain;charset=UTF-8', start],
      ['application/x-www-form-urlencoded', 'function=charge'],
      ['multipart/form-data; boundary=x', `--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n`],
      [undefined, start],
      ['text/plain, application/json', start],
      ['json', start],
    ];
    for (const [type, body] of refused) {
      const headers: Record<string, string> = { host: own(), 'idempotency-key': `k-${type}` };
      if (type !== undefined) headers['content-type'] = type;
      const answer = await send('POST', '/v1/runs', headers, body);
      expect(answer, String(type)).toMatchObject({ status: 415, code: 'unsupported_media_type' });
      expect(JSON.parse(answer.body).error.message).toMatch(/^content-type: .*POST \/v1\/runs takes application\/json/);
    }
    expect(await runCount()).toBe(0);
    expect(invocations).toBe(before);
    // A refused request claimed no Idempotency-Key: the same key with JSON starts the run.
    const started = await send(
      'POST',
      '/v1/runs',
      { host: own(), 'idempotency-key': 'k-text/plain', 'content-type': 'Application/JSON; charset=utf-8' },
      start,
    );
    expect(started.status).toBe(201);
    const runId = JSON.parse(started.body).runId as string;
    // A bodyless state change needs the type too (curl -X POST without -H sends none).
    const cancel = await send('POST', `/v1/runs/${runId}/cancel`, { host: own() });
    expect(cancel).toMatchObject({ status: 415, code: 'unsupported_media_type' });
    const cancelled = await send('POST', `/v1/runs/${runId}/cancel`, {
      host: own(),
      'content-type': 'application/json',
    });
    expect(cancelled.status).toBe(200);
    expect(JSON.parse(cancelled.body).status).toBe('CANCELLED');
  });
});

describe('the legitimate clients go on working', () => {
  it('the typed client starts a run, heartbeats and completes its callback (bodyless POSTs say JSON too)', async () => {
    const client = new DurableClient({ baseUrl: server.url });
    const { run } = await client.startRun({ function: 'charge', input: { amount: 5 } });
    const callbackId = await waitForCallback(client, run.runId);
    await client.heartbeatCallback(callbackId);
    await client.succeedCallback(callbackId, 'yes');
    await expect.poll(async () => (await client.getRun(run.runId)).status, { timeout: 30_000 }).toBe('SUCCEEDED');
  });

  it("AWS's SDK on the Lambda-shaped routes: Invoke and a callback's result as octet-stream, a heartbeat with no type", async () => {
    const lambda = new LambdaClient({
      endpoint: server.url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
    });
    try {
      const before = await runCount();
      const invoked = await lambda.send(
        new InvokeCommand({ FunctionName: 'charge', InvocationType: 'Event', Payload: Buffer.from('{"amount":7}') }),
      );
      expect(invoked.StatusCode).toBe(202);
      await expect.poll(runCount, { timeout: 30_000 }).toBe(before + 1);
      const client = new DurableClient({ baseUrl: server.url });
      const { runs } = await client.listRuns({ limit: 1 });
      const callbackId = await waitForCallback(client, runs[0]!.runId);
      await lambda.send(new SendDurableExecutionCallbackHeartbeatCommand({ CallbackId: callbackId }));
      await lambda.send(
        new SendDurableExecutionCallbackSuccessCommand({ CallbackId: callbackId, Result: Buffer.from('"ok"') }),
      );
      await expect
        .poll(async () => (await client.getRun(runs[0]!.runId)).status, { timeout: 30_000 })
        .toBe('SUCCEEDED');
    } finally {
      lambda.destroy();
    }
    // A page's body type is refused there too, in Lambda's words.
    const text = await send(
      'POST',
      '/2015-03-31/functions/charge/invocations',
      { host: own(), 'content-type': 'text/plain' },
      '{}',
    );
    expect(text.status).toBe(415);
    expect(text.headers['x-amzn-errortype']).toBe('UnsupportedMediaTypeException');
  });
});

/** The callback id of a run waiting on `confirm` (its `announce` step returns it). */
async function waitForCallback(client: DurableClient, runId: string): Promise<string> {
  let found: string | undefined;
  await expect
    .poll(
      async () => {
        const { operations } = await client.getOperations(runId);
        found = operations.find((op) => op.type === 'CALLBACK' && op.status === 'STARTED')?.callbackId;
        return found;
      },
      { timeout: 30_000 },
    )
    .toBeDefined();
  return found as string;
}
