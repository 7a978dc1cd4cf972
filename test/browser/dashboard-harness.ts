/**
 * What the dashboard's browser tests share: a dev server on a fresh SQLite file serving the
 * given functions, a page of the worker's one headless Chromium, calls to its API, screenshots
 * in .artifacts/browser/, and a screen-reader check of the page's controls.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type DevServerOptions, startDevServer } from '@durable-lambda/local';
import type { Page } from 'playwright-core';
import { sharedChromium } from './chromium';

export const ARTIFACTS = resolve(import.meta.dirname, '../../.artifacts/browser');
export const STEP_MS = 15_000;

/** A dev server and a page on it; {@link DashboardHarness.close} ends both. */
export interface DashboardHarness {
  page: Page;
  url: string;
  /** Errors the page's scripts raised or logged (a failed resource load is not one). */
  pageErrors: string[];
  call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<any>;
  waitForStatus(runId: string, status: string): Promise<any>;
  /** A full-page screenshot, `.artifacts/browser/<name>`. */
  shot(name: string): Promise<void>;
  close(): Promise<void>;
}

export async function openDashboard(
  functions: DevServerOptions['functions'],
  extra: Partial<DevServerOptions> = {},
): Promise<DashboardHarness> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), 'durable-dashboard-'));
  const server = await startDevServer({
    functions,
    port: 0,
    host: '127.0.0.1',
    db: join(dir, 'dev.sqlite'),
    log: () => {},
    ...extra,
  });
  const browser = await sharedChromium();
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(STEP_MS);
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
      pageErrors.push(message.text());
    }
  });
  const base = server.url.replace(/\/$/, '');
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<any> => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: method === 'POST' ? { 'content-type': 'application/json', 'idempotency-key': randomUUID() } : {},
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json = await response.json();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  return {
    page,
    url: server.url,
    pageErrors,
    call,
    async waitForStatus(runId, status) {
      const end = Date.now() + STEP_MS;
      for (;;) {
        const run = await call('GET', `/v1/runs/${encodeURIComponent(runId)}`);
        if (run.status === status) return run;
        if (Date.now() > end) throw new Error(`run ${runId} is ${run.status}, not ${status}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async shot(name) {
      await page.screenshot({ path: join(ARTIFACTS, name), fullPage: true });
    },
    async close() {
      await page.close();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The controls (inputs, selects, text areas, buttons) of the page a screen reader would announce
 * without a name: the accessible name Chromium computes (aria-label, aria-labelledby, a label
 * element, the text of a button, a title) is read through `ariaSnapshot`, one control at a time.
 * Answers a description of each unnamed control (empty when every one has a name).
 */
export async function unnamedControls(page: Page): Promise<string[]> {
  const controls = page.locator('main input:visible, main select:visible, main textarea:visible, main button:visible');
  const found: string[] = [];
  for (const control of await controls.all()) {
    const snapshot = await control.ariaSnapshot();
    // `- combobox "Status"`, `- button "Start"`; an unnamed one is `- combobox` (or `- textbox`) alone.
    if (!/^- [a-z]+ "[^"]*\S[^"]*"/.test(snapshot.trim())) {
      const html = await control.evaluate((el) => el.outerHTML.slice(0, 160));
      found.push(`${snapshot.trim().split('\n')[0]} <- ${html}`);
    }
  }
  return found;
}
