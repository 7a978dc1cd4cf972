/**
 * The functions page shows a function's execution timeout when the control API reports one (a
 * deployed API is given each function's, `executionTimeouts`), and says none is reported
 * otherwise: headless Chromium against the dashboard's files and a control API over an engine
 * on a MemoryStore, served together as the console serves them.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createControlApi, toNodeListener } from '@durable-lambda/api';
import { Engine, MemoryStore } from '@durable-lambda/engine';
import { VirtualClock } from '@durable-lambda/local';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { locateDashboard, serveDashboard } from '../../packages/local/src/dev-server/dashboard';
import { sharedChromium } from './chromium';
import { ARTIFACTS, STEP_MS } from './dashboard-harness';

let server: Server;
let url: string;
let page: Page;

beforeAll(async () => {
  const clock = new VirtualClock(Date.now());
  const engine = new Engine({ store: new MemoryStore(clock), clock, waker: { wakeAt: async () => {} } });
  const api = createControlApi({
    engine,
    functions: ['orders', 'emails'],
    executionTimeouts: { orders: 5400 },
    onError: () => {},
  });
  const listener = toNodeListener(api);
  const dashboard = locateDashboard();
  server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] as string;
    if (path.startsWith('/v1/')) listener(req, res);
    else void serveDashboard(dashboard, path, req, res);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  page = await (await sharedChromium()).newPage({ viewport: { width: 1280, height: 700 } });
  page.setDefaultTimeout(STEP_MS);
}, 60_000);

afterAll(async () => {
  await page?.close();
  await new Promise((done) => server?.close(done));
});

describe('functions page defaults', () => {
  it("shows a function's execution timeout the API reports, and says when none is", async () => {
    const functions = await (await fetch(`${url}v1/functions`)).json();
    expect(functions).toEqual({ functions: [{ name: 'orders', executionTimeoutSeconds: 5400 }, { name: 'emails' }] });
    await page.goto(`${url}#/functions`);
    const timeout = (name: string) =>
      page.locator(`[data-testid="function"][data-name="${name}"] [data-testid="function-timeout"]`);
    await timeout('orders').waitFor();
    expect(await timeout('orders').textContent()).toBe(
      '1 h 30 min (a run past it ends TIMED_OUT; a start may set its own)',
    );
    expect(await timeout('emails').textContent()).toBe('none reported: runs have no deadline unless they set one');
    await page.screenshot({ path: `${ARTIFACTS}/functions-defaults.png`, fullPage: true });
  });
});
