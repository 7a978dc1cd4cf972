/**
 * The dashboard in a real headless Chromium (`CHROMIUM_PATH`, else Debian's /usr/bin/chromium,
 * driven by playwright-core; no browser is downloaded), against the dev server. Screenshots are
 * kept in .artifacts/browser/.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startDevServer } from '@durable-lambda/local';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedChromium } from './chromium';
import { approval, doomed, flaky } from './fixtures';

const ARTIFACTS = resolve(import.meta.dirname, '../../.artifacts/browser');
const STEP_MS = 10_000;

let browser: Browser;
let page: Page;
let server: { url: string; stop(): Promise<void> };
let dir: string;
const pageErrors: string[] = [];
const serverLog: string[] = [];

/** The API's base URL, without a trailing slash. */
const base = () => server.url.replace(/\/$/, '');

async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${base()}${path}`, {
    method,
    headers: method === 'POST' ? { 'content-type': 'application/json', 'idempotency-key': randomUUID() } : {},
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
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

/** The runs shown in the list, as `[runId, status]`. */
async function shownRuns(): Promise<Array<[string, string]>> {
  return page
    .locator('[data-testid="run-row"]')
    .evaluateAll((rows: any[]) => rows.map((r) => [r.dataset.runId, r.dataset.status]));
}

/** Waits until the list shows these runs, in this order. */
async function expectRuns(expected: Array<[string, string]>): Promise<void> {
  await expect.poll(shownRuns, { timeout: STEP_MS, interval: 50 }).toEqual(expected);
}

const op = (type: string, name: string) => `[data-testid="op"][data-op-type="${type}"][data-op-name="${name}"]`;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  dir = mkdtempSync(join(tmpdir(), 'durable-dashboard-'));
  server = await startDevServer({
    functions: { approval, flaky, doomed },
    port: 0,
    host: '127.0.0.1',
    db: join(dir, 'dev.sqlite'),
    log: (line) => void serverLog.push(line),
  });
  browser = await sharedChromium();
  page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  page.setDefaultTimeout(STEP_MS);
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    // The browser logs every error answer (the 404 of a missing run is expected); scripts' errors count.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
      pageErrors.push(message.text());
    }
  });
}, 30_000);

afterAll(async () => {
  await page?.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('dashboard', () => {
  let approvalRunId: string;

  it('starts a run from the page, completes its callback with the button and shows the result', async () => {
    await page.goto(server.url);
    await page.getByTestId('start-function').locator('option[value="approval"]').waitFor({ state: 'attached' });
    await page.getByTestId('start-function').selectOption('approval');
    await page.getByTestId('start-input').fill('{"order": "A-42"}');
    await page.getByTestId('start-submit').click();
    await page.waitForURL(/#\/runs\/[^/]+$/);
    approvalRunId = decodeURIComponent(page.url().split('#/runs/')[1]!);
    expect(await page.getByTestId('run-id').textContent()).toBe(approvalRunId);
    expect(JSON.parse((await page.getByTestId('run-input').textContent())!)).toEqual({ order: 'A-42' });

    // The timeline reaches the callback, nested in the child context.
    const callback = page.locator(
      `${op('CONTEXT', 'review')} [data-testid="op-children"] ${op('CALLBACK', 'approval')}`,
    );
    await callback.and(page.locator('[data-op-status="STARTED"]')).waitFor();
    await page.locator(`${op('CONTEXT', 'review')} ${op('STEP', 'notify')}[data-op-status="SUCCEEDED"]`).waitFor();
    expect(await page.locator(`${op('STEP', 'prepare')} [data-testid="op-result"]`).textContent()).toContain('A-42');
    expect(await page.locator('.run-title [data-testid="run-status"]').textContent()).toBe('RUNNING');
    await page.screenshot({ path: join(ARTIFACTS, 'run-waiting-for-callback.png'), fullPage: true });

    // Complete it with a JSON result, markup included: it must come back as text.
    const by = '<img src=x onerror="window.__xss=1"><b>Ann</b>';
    await callback.getByTestId('callback-result').fill(JSON.stringify({ approved: true, by }));
    await callback.getByTestId('callback-complete').click();
    await page.locator('.run-title [data-testid="run-status"]', { hasText: 'SUCCEEDED' }).waitFor();
    await page.locator(`${op('CALLBACK', 'approval')}[data-op-status="SUCCEEDED"]`).waitFor();
    await page.getByTestId('run-result').waitFor();
    expect(JSON.parse((await page.getByTestId('run-result').textContent())!)).toEqual({
      order: 'A-42',
      approved: true,
      by,
    });
    expect(await page.locator('main img, main b').count()).toBe(0);
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    expect(await page.locator('[data-testid="callback-actions"]').count()).toBe(0);
    expect((await call('GET', `/v1/runs/${approvalRunId}`)).status).toBe('SUCCEEDED');
    await page.screenshot({ path: join(ARTIFACTS, 'run-completed.png'), fullPage: true });
  });

  it('shows what the run consumed: its invocations and billed time, the AWS figures as not measured', async () => {
    await page.goto(`${server.url}#/runs/${encodeURIComponent(approvalRunId)}`);
    const { meter } = await call('GET', `/v1/runs/${approvalRunId}`);
    // Two invocations: one up to the callback, one after it; each billed its real duration.
    expect(meter.invocations).toBe(2);
    expect(meter.billedMs).toBeGreaterThanOrEqual(2);
    const facts = page.getByTestId('run-facts');
    expect(await facts.getByTestId('meter-invocations').textContent()).toBe('2 invocations');
    expect(await facts.getByTestId('meter-billed').textContent()).toBe(
      `${meter.billedMs.toLocaleString('en-US')} ms billed`,
    );
    // The dev server has no DynamoDB, Scheduler or SQS: said so, not shown as zeros.
    expect(await facts.getByTestId('meter-not-measured').textContent()).toBe(
      'DynamoDB, Scheduler and SQS not measured here',
    );
    expect(await facts.getByTestId('meter-wru').count()).toBe(0);
    await page.screenshot({ path: join(ARTIFACTS, 'run-meter.png'), fullPage: true });
  });

  it('lists runs live, with working status and function filters', async () => {
    await page.goto(`${server.url}#/`);
    await page.locator(`[data-testid="run-row"][data-run-id="${approvalRunId}"]`).waitFor();

    // Runs started elsewhere show up without a reload.
    const waiting = await call('POST', '/v1/runs', { function: 'approval', input: { order: 'B-7' } });
    const failing = await call('POST', '/v1/runs', { function: 'doomed', input: {} });
    await waitForStatus(failing.runId, 'FAILED');
    await page.locator(`[data-testid="run-row"][data-run-id="${failing.runId}"][data-status="FAILED"]`).waitFor();
    await page.locator(`[data-testid="run-row"][data-run-id="${waiting.runId}"]`).waitFor();

    const all: Array<[string, string]> = [
      [failing.runId, 'FAILED'],
      [waiting.runId, 'RUNNING'],
      [approvalRunId, 'SUCCEEDED'],
    ];
    await expectRuns(all);

    await page.getByTestId('filter-status').selectOption('RUNNING');
    await expectRuns([[waiting.runId, 'RUNNING']]);
    expect(page.url()).toContain('status=RUNNING');

    await page.getByTestId('filter-status').selectOption('SUCCEEDED');
    await expectRuns([[approvalRunId, 'SUCCEEDED']]);

    await page.getByTestId('filter-status').selectOption('TIMED_OUT');
    await page.getByTestId('runs-empty').waitFor();
    expect(await page.getByTestId('runs-empty').textContent()).toContain('No runs match');

    await page.getByTestId('filter-status').selectOption('');
    await page.getByTestId('filter-function').selectOption('doomed');
    await expectRuns([[failing.runId, 'FAILED']]);

    await page.getByTestId('filter-function').selectOption('');
    await expectRuns(all);
    await page.screenshot({ path: join(ARTIFACTS, 'runs-list.png'), fullPage: true });

    // Pages follow nextCursor.
    await page.goto(`${server.url}#/?limit=2`);
    await expectRuns(all.slice(0, 2));
    await page.getByTestId('page-next').click();
    await expectRuns(all.slice(2));
    expect(await page.getByTestId('page-label').textContent()).toBe('Page 2');
    expect(await page.getByTestId('page-next').isDisabled()).toBe(true);
    await page.getByTestId('page-prev').click();
    await expectRuns(all.slice(0, 2));

    // The failed run: its error, each attempt's error, and a retry button.
    await page.locator(`[data-testid="run-link"]`, { hasText: failing.runId }).click();
    await page.getByTestId('run-error-box').waitFor();
    expect(await page.getByTestId('run-error-box').textContent()).toContain('boom: the warehouse is on fire');
    expect(await page.locator(`${op('STEP', 'explode')} [data-testid="attempt"]`).count()).toBe(2);
    expect(await page.getByTestId('retry-run').isVisible()).toBe(true);
    expect(await page.getByTestId('cancel-run').count()).toBe(0);
    await page.screenshot({ path: join(ARTIFACTS, 'run-failed.png'), fullPage: true });
    await page.getByTestId('retry-run').click();
    await page.getByTestId('run-action-message').filter({ hasText: 'Run retried.' }).waitFor();

    // The waiting run can be cancelled (after a confirmation).
    await page.goto(`${server.url}#/runs/${encodeURIComponent(waiting.runId)}`);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByTestId('cancel-run').click();
    await page.locator('.run-title [data-testid="run-status"]', { hasText: 'CANCELLED' }).waitFor();
    expect((await call('GET', `/v1/runs/${waiting.runId}`)).status).toBe('CANCELLED');
  });

  it("shows a step's failed attempts with their errors, and a wait's due time", async () => {
    const run = await call('POST', '/v1/runs', { function: 'flaky', input: { card: '4242' } });
    await page.goto(`${server.url}#/runs/${encodeURIComponent(run.runId)}`);
    await page.locator(`${op('WAIT', 'settle')}`).waitFor();
    expect(await page.locator(`${op('WAIT', 'settle')} [data-testid="op-wait-until"]`).textContent()).toMatch(
      /(Ends|Until) \d{4}-\d\d-\d\d \d\d:\d\d:\d\d/,
    );
    await waitForStatus(run.runId, 'SUCCEEDED');
    await page.locator('.run-title [data-testid="run-status"]', { hasText: 'SUCCEEDED' }).waitFor();

    const attempts = page.locator(`${op('STEP', 'charge')} [data-testid="attempt"]`);
    const rows: string[][] = await attempts.evaluateAll((els: any[]) =>
      els.map((el) => [el.dataset.attempt, el.dataset.outcome, el.textContent]),
    );
    expect(rows.map(([n, outcome]) => [n, outcome])).toEqual([
      ['1', 'failed'],
      ['2', 'failed'],
      ['3', 'succeeded'],
    ]);
    expect(rows[0]![2]).toContain('card declined (attempt 1)');
    expect(rows[0]![2]).toContain('step_failed');
    expect(rows[1]![2]).toContain('card declined (attempt 2)');
    expect(JSON.parse((await page.getByTestId('run-result').textContent())!)).toEqual({ charged: true, attempt: 3 });
    await page.screenshot({ path: join(ARTIFACTS, 'step-attempts.png'), fullPage: true });
  });

  it('fails a callback with the Fail button', async () => {
    const run = await call('POST', '/v1/runs', { function: 'approval', input: { order: 'C-3' } });
    await page.goto(`${server.url}#/runs/${encodeURIComponent(run.runId)}`);
    const callback = page.locator(`${op('CALLBACK', 'approval')}[data-op-status="STARTED"]`);
    await callback.waitFor();

    // A result that is not JSON is refused in the page, with the field named.
    await callback.getByTestId('callback-result').fill('{oops');
    await callback.getByTestId('callback-complete').click();
    await page.getByTestId('callback-message-error').waitFor();
    expect(await page.getByTestId('callback-message-error').textContent()).toContain('result: not valid JSON');

    await callback.getByTestId('callback-fail-message').fill('Rejected by <i>Bob</i>');
    await callback.getByTestId('callback-fail-code').fill('rejected');
    await callback.getByTestId('callback-fail').click();
    await page.locator('.run-title [data-testid="run-status"]', { hasText: 'FAILED' }).waitFor();
    const failed = page.locator(`${op('CALLBACK', 'approval')}[data-op-status="FAILED"]`);
    await failed.waitFor();
    expect(await failed.getByTestId('op-error').textContent()).toContain('Rejected by <i>Bob</i>');
    expect(await page.getByTestId('run-error-box').textContent()).toContain('Rejected by <i>Bob</i>');
    expect(await page.locator('main i').count()).toBe(0);
  });

  it('shows API errors with their code, and pauses live refresh', async () => {
    await page.goto(`${server.url}#/runs/r-does-not-exist`);
    await page.getByTestId('run-error-message').waitFor();
    expect(await page.getByTestId('run-error-message').textContent()).toContain('run_not_found');

    await page.goto(`${server.url}#/`);
    await page.getByTestId('start-input').fill('{not json');
    await page.getByTestId('start-submit').click();
    expect(await page.getByTestId('start-error-message').textContent()).toContain('invalid_json');

    const pause = page.getByTestId('pause');
    await pause.click();
    expect(await pause.getAttribute('aria-pressed')).toBe('true');
    expect(await page.getByTestId('live-status').textContent()).toContain('Paused');
    await pause.click();
    expect(await pause.getAttribute('aria-pressed')).toBe('false');
    expect(pageErrors).toEqual([]);
    expect(serverLog.filter((line) => line.startsWith('error'))).toEqual([]);
  });
});
