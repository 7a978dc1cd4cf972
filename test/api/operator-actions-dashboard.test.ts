/**
 * The dashboard's operator-actions panel in headless Chromium against the dev server: a failed
 * run's step is skipped with a result from the page, and the page shows who did it.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevServer } from '@durable-lambda/local';
import { withDurableExecution } from '@durable-lambda/sdk';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedChromium } from '../browser/chromium';

const STEP_MS = 15_000;
let browser: Browser;
let page: Page;
let server: { url: string; stop(): Promise<void> };
let dir: string;
const pageErrors: string[] = [];

/** Fails at `charge` for good (one attempt); a skip gives it a result and the run ships. */
const broken = withDurableExecution(
  async (_event: unknown, ctx) => {
    const charge = await ctx.step(
      'charge',
      async () => {
        throw new Error('card declined');
      },
      { retry: { maxAttempts: 1 } },
    );
    return ctx.step('ship', async () => ({ shipped: true, charge }));
  },
  { logSink: () => {} },
);

async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${server.url.replace(/\/$/, '')}${path}`, {
    method,
    headers: method === 'POST' ? { 'content-type': 'application/json', 'idempotency-key': randomUUID() } : {},
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return response.json();
}

async function waitForStatus(runId: string, status: string): Promise<any> {
  const end = Date.now() + STEP_MS;
  for (;;) {
    const run = await call('GET', `/v1/runs/${runId}`);
    if (run.status === status) return run;
    if (Date.now() > end) throw new Error(`run ${runId} is ${run.status}, not ${status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'durable-operator-dashboard-'));
  server = await startDevServer({
    functions: { broken },
    port: 0,
    host: '127.0.0.1',
    db: join(dir, 'dev.sqlite'),
    log: () => {},
  });
  browser = await sharedChromium();
  page = await browser.newPage();
  page.setDefaultTimeout(STEP_MS);
  page.on('pageerror', (error) => pageErrors.push(error.message));
}, 60_000);

afterAll(async () => {
  await page?.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('dashboard operator actions', () => {
  it('skips a failed step from the run page, and shows the action with who did it', async () => {
    const { runId } = await call('POST', '/v1/runs', { function: 'broken' });
    await waitForStatus(runId, 'FAILED');
    await page.goto(`${server.url}#/runs/${encodeURIComponent(runId)}`);
    const panel = page.getByTestId('operator-actions');
    await panel.getByTestId('operator-history-empty').waitFor();
    await panel.getByTestId('operator-actor').fill('tester@example.com');
    await panel.getByTestId('operator-actor').dispatchEvent('change');
    await panel.getByTestId('skip-op').selectOption('1');
    await panel.getByTestId('skip-result').fill('{"id":"manual-7"}');
    await panel.getByTestId('skip-step').click();
    const run = await waitForStatus(runId, 'SUCCEEDED');
    expect(run.result).toEqual({ shipped: true, charge: { id: 'manual-7' } });
    const row = panel.getByTestId('operator-action');
    await row.waitFor();
    expect(await row.textContent()).toContain('skip_step');
    expect(await row.textContent()).toContain('tester@example.com');
    expect((await call('GET', `/v1/runs/${runId}/actions`)).actions).toEqual([
      expect.objectContaining({ action: 'skip_step', actor: 'tester@example.com', operationId: '1' }),
    ]);
    expect(pageErrors).toEqual([]);
  });
});
