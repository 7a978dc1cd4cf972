/**
 * A web page the developer visits, in a real headless Chromium, cannot use the dev server on their
 * machine: a page of another site cannot start a run (a `fetch` with `text/plain`, which needs no
 * CORS preflight, or a form POST), cancel one, or frame the dashboard; and a page whose name was made
 * to resolve to 127.0.0.1 (DNS rebinding: the browser then takes the dev server for the page's own
 * origin, so no browser rule stops it) cannot read the runs or start one. The same browser's
 * dashboard goes on working. "Another site" is `evil.test`, which Chromium is told resolves to
 * 127.0.0.1 (`--host-resolver-rules`), served by a small server of the test.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { RunListWire } from '@durable-lambda/api';
import { type DevServer, startDevServer } from '@durable-lambda/local';
import { withDurableExecution } from '@durable-lambda/sdk';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './chromium';

const ARTIFACTS = resolve(import.meta.dirname, '../../.artifacts/browser');
const STEP_MS = 15_000;

let dir: string;
let dev: DevServer;
let attacker: Server;
let attackerPort: number;
let browser: Browser;
let page: Page;
let invocations = 0;
/** The attacker's pages, by path. */
const pages = new Map<string, string>();

/** The developer's real handler: every invocation counts (a refused request never gets here). */
const charge = withDurableExecution(
  async (event: { amount?: number } | undefined, ctx) => {
    invocations++;
    await ctx.wait('settle', { hours: 1 });
    return { charged: event?.amount };
  },
  { logSink: () => {} },
);

const devUrl = () => `http://127.0.0.1:${dev.port}`;
const start = JSON.stringify({ function: 'charge', input: { amount: 666 } });

async function runs(): Promise<RunListWire['runs']> {
  const answer = await fetch(`${devUrl()}/v1/runs`);
  return ((await answer.json()) as RunListWire).runs;
}

/** The status the dev server answered for the next request to `path` the page makes. */
function answered(path: string): Promise<number> {
  return page
    .waitForResponse((response) => new URL(response.url()).pathname === path, { timeout: STEP_MS })
    .then((response) => response.status());
}

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  dir = mkdtempSync(join(tmpdir(), 'durable-cross-site-'));
  dev = await startDevServer({ functions: { charge }, port: 0, db: join(dir, 'dev.sqlite'), log: () => {} });
  attacker = createServer((req, res) => {
    const html = pages.get(new URL(req.url ?? '/', 'http://x').pathname);
    res.writeHead(html ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html ?? 'not found');
  });
  await new Promise<void>((done) => attacker.listen(0, '127.0.0.1', done));
  attackerPort = (attacker.address() as AddressInfo).port;
  // A browser of its own: it must resolve evil.test (the shared one is launched without the rule),
  // and it models the browsers that do not hold a public page's requests to this machine back
  // (Chromium's Local Network Access checks off; Firefox and Safari have none): the dev server must
  // refuse them itself.
  browser = await launchChromium([
    '--host-resolver-rules=MAP evil.test 127.0.0.1',
    '--disable-features=LocalNetworkAccessChecks,BlockInsecurePrivateNetworkRequests',
  ]);
  page = await browser.newPage();
  page.setDefaultTimeout(STEP_MS);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((done) => (attacker ? attacker.close(() => done()) : done()));
  await dev?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a page of another site', () => {
  it('cannot start a run with a text/plain fetch (no preflight), a form-encoded one, or a form POST', async () => {
    pages.set(
      '/fetch',
      `<script>
        const start = ${JSON.stringify(start)};
        window.attack = async () => {
          // Both spellings of the dev server's address; mode no-cors: the page never reads the answer.
          for (const base of ['http://127.0.0.1:${dev.port}', 'http://localhost:${dev.port}']) {
            await fetch(base + '/v1/runs', { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: start });
            await fetch(base + '/v1/runs', { method: 'POST', mode: 'no-cors', body: new URLSearchParams({ function: 'charge' }) });
          }
          return 'sent';
        };
      </script>`,
    );
    await page.goto(`http://evil.test:${attackerPort}/fetch`);
    const statuses: number[] = [];
    const seen = (response: { url(): string; status(): number }) => {
      if (new URL(response.url()).pathname === '/v1/runs') statuses.push(response.status());
    };
    page.on('response', seen);
    expect(await page.evaluate('window.attack()')).toBe('sent');
    await expect.poll(() => statuses.length, { timeout: STEP_MS }).toBe(4);
    page.off('response', seen);
    // Every one reached the dev server, which refused it.
    expect(statuses).toEqual([403, 403, 403, 403]);

    // A form: the body `{"function":"charge","input":{"x":"=1"}}` sent as text/plain by a navigation.
    pages.set(
      '/form',
      `<form method="POST" action="${devUrl()}/v1/runs" enctype="text/plain">
         <input name='{"function":"charge","input":{"x":"' value='1"}}'>
       </form>
       <script>document.forms[0].submit();</script>`,
    );
    const form = answered('/v1/runs');
    await page.goto(`http://evil.test:${attackerPort}/form`);
    expect(await form).toBe(403);
    await page.waitForURL(`${devUrl()}/v1/runs`);
    expect(JSON.parse((await page.textContent('body')) ?? '')).toMatchObject({ error: { code: 'cross_origin' } });
    await page.screenshot({ path: resolve(ARTIFACTS, 'cross-site-form-refused.png') });

    expect(await runs()).toEqual([]);
    expect(invocations).toBe(0);
  });

  it("cannot cancel the developer's run with a bodyless no-cors POST, nor frame the dashboard", async () => {
    const started = await fetch(`${devUrl()}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: start,
    });
    expect(started.status).toBe(201);
    const { runId } = (await started.json()) as { runId: string };
    pages.set(
      '/cancel',
      `<iframe id="framed" src="${devUrl()}/"></iframe>
       <script>
         window.attack = () => fetch('${devUrl()}/v1/runs/${runId}/cancel', { method: 'POST', mode: 'no-cors' }).then(() => 'sent');
       </script>`,
    );
    const framed = page.waitForResponse((response) => response.url() === `${devUrl()}/`);
    await page.goto(`http://evil.test:${attackerPort}/cancel`);
    // The dashboard answered the frame, but the browser does not show it in another site's page.
    expect((await framed).headers()['x-frame-options']).toBe('DENY');
    const frame = page.frames().find((f) => f !== page.mainFrame());
    expect(await frame?.locator('[data-testid="run-row"], .brand').count()).toBe(0);

    const cancel = answered(`/v1/runs/${runId}/cancel`);
    expect(await page.evaluate('window.attack()')).toBe('sent');
    expect(await cancel).toBe(403);
    const run = await (await fetch(`${devUrl()}/v1/runs/${runId}`)).json();
    expect(run).toMatchObject({ status: 'RUNNING' });
  });
});

describe('a page whose name was made to resolve to 127.0.0.1 (DNS rebinding)', () => {
  it('cannot read the runs, nor start one, though the browser takes the dev server for its own origin', async () => {
    // The attacker's page as served before the name was rebound; from then on its requests to its
    // own origin reach the dev server's port, as the browser's same-origin requests.
    const origin = `http://evil.test:${dev.port}`;
    await page.route(`${origin}/`, (route) =>
      route.fulfill({ contentType: 'text/html', body: '<title>cute cats</title><p>loading...</p>' }),
    );
    await page.goto(`${origin}/`);
    const outcome = await page.evaluate(async (body) => {
      const read = await fetch('/v1/runs');
      const write = await fetch('/v1/runs', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const dashboard = await fetch('/index.html');
      return {
        read: { status: read.status, body: await read.text() },
        write: { status: write.status, body: await write.text() },
        dashboard: dashboard.status,
      };
    }, start);
    expect(outcome.read.status).toBe(403);
    expect(JSON.parse(outcome.read.body)).toMatchObject({ error: { code: 'forbidden_host' } });
    expect(outcome.read.body).not.toContain('666');
    expect(outcome.write.status).toBe(403);
    expect(JSON.parse(outcome.write.body)).toMatchObject({ error: { code: 'forbidden_host' } });
    expect(outcome.dashboard).toBe(403);
    await page.unroute(`${origin}/`);
    // Only the run the developer started in the test before exists, and no attacker's.
    expect((await runs()).map((run) => run.status)).toEqual(['RUNNING']);
    expect(invocations).toBe(1);
  });
});

describe("the developer's own dashboard, in the same browser", () => {
  it('still starts a run: the refusals are about who asks, not about the browser', async () => {
    await page.goto(`${devUrl()}/`);
    const status = await page.evaluate(
      (body) =>
        fetch('v1/runs', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': 'dashboard-1' },
          body,
        }).then((r) => r.status),
      start,
    );
    expect(status).toBe(201);
    await expect.poll(async () => (await runs()).length, { timeout: STEP_MS }).toBe(2);
  });
});
