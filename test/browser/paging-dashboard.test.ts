/**
 * The dashboard on a run whose history takes more than one page (in real headless Chromium,
 * against the dev server): a map of 520 items is 1,042 operations, past the 1,000 a page may
 * hold, so the API answers it in two pages without the map's item counts; the dashboard follows
 * the cursor and shows every item counted.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevServer } from '@durable-lambda/local';
import { withDurableExecution } from '@durable-lambda/sdk';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedChromium } from './chromium';

const STEP_MS = 30_000;
const ITEMS = 520;

const wide = withDurableExecution(
  async (_event: unknown, ctx) => {
    const batch = await ctx.map(
      'many',
      Array.from({ length: ITEMS }, (_, i) => i),
      async (c, n) => c.step('square', async () => n * n),
      { maxConcurrency: 50 },
    );
    return batch.successCount;
  },
  { logSink: () => {} },
);

let browser: Browser;
let page: Page;
let server: { url: string; stop(): Promise<void> };
let dir: string;
const pageErrors: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'durable-paging-'));
  server = await startDevServer({
    functions: { wide },
    port: 0,
    host: '127.0.0.1',
    db: join(dir, 'dev.sqlite'),
    log: () => {},
  });
  browser = await sharedChromium();
  page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  page.setDefaultTimeout(STEP_MS);
  page.on('pageerror', (error) => pageErrors.push(error.message));
}, 60_000);

afterAll(async () => {
  await page?.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function json(path: string): Promise<any> {
  const response = await fetch(`${server.url}${path}`);
  return response.json();
}

describe('the dashboard on a paged history', () => {
  it('follows the cursor: a map of 520 items (two pages) shows every item counted', async () => {
    const start = await fetch(`${server.url}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ function: 'wide', input: {} }),
    });
    const { runId } = (await start.json()) as { runId: string };
    await expect.poll(async () => (await json(`/v1/runs/${runId}`)).status, { timeout: 120_000 }).toBe('SUCCEEDED');
    // The API pages it, and leaves the counts out of a page that is not the whole run.
    const first = await json(`/v1/runs/${runId}/operations?limit=1000`);
    expect(first.operations).toHaveLength(1000);
    expect(typeof first.nextCursor).toBe('string');
    expect(first.operations.find((op: { name?: string }) => op.name === 'many').items).toBeUndefined();

    await page.goto(`${server.url}#/runs/${encodeURIComponent(runId)}`);
    const map = page.locator('[data-testid="op"][data-op-type="CONTEXT"][data-op-name="many"]');
    await map.getByTestId('batch-counts').waitFor();
    expect(await map.getByTestId('batch-counts').textContent()).toMatch(
      new RegExp(`^${ITEMS} items: ${ITEMS} succeeded$`),
    );
    expect(pageErrors).toEqual([]);
  }, 180_000);
});
