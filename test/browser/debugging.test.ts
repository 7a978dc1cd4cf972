/**
 * Debugging a workflow in the dashboard, in a real headless Chromium (see chromium.ts) against
 * the dev server: the examples' checkout started from its sample input, its rate limit's backoff
 * and its 30-minute window skipped with "wake now"; each step attempt's logs and the errors'
 * stack traces; the waterfall with invocation boundaries and idle time folded; a map of 100
 * items folded behind counts by status; operations abandoned by a race or a cancel; the search
 * and the "waiting for" column of the runs list. Screenshots go to .artifacts/browser/.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startDevServer } from '@durable-lambda/local';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedChromium } from './chromium';
import { chatty, checkout, checkoutSamples, fanout, patient, racer } from './debug-fixtures';

const ARTIFACTS = resolve(import.meta.dirname, '../../.artifacts/browser');
/** Generous: the machine is shared and loaded; nothing here measures time. */
const STEP_MS = 20_000;
const TEST_MS = 90_000;

let browser: Browser;
let page: Page;
let server: { url: string; stop(): Promise<void> };
let dir: string;
const pageErrors: string[] = [];
const serverLog: string[] = [];

async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${server.url}${path}`, {
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

const op = (type: string, name: string) => `[data-testid="op"][data-op-type="${type}"][data-op-name="${name}"]`;
const runStatus = (status: string) => page.locator('.run-title [data-testid="run-status"]', { hasText: status });
const openRun = (runId: string) => page.goto(`${server.url}#/runs/${encodeURIComponent(runId)}`);
const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, name), fullPage: true });

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  dir = mkdtempSync(join(tmpdir(), 'durable-debugging-'));
  server = await startDevServer({
    functions: { checkout: checkout(), chatty, fanout, racer, patient },
    samples: { checkout: checkoutSamples },
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
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
      pageErrors.push(message.text());
    }
  });
}, 60_000);

afterAll(async () => {
  await page?.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('debugging in the dashboard', () => {
  it(
    "starts checkout from its sample input, then skips its rate limit's one-hour backoff and its 30-minute window with wake now",
    async () => {
      await page.goto(server.url);
      await page.getByTestId('start-function').locator('option[value="checkout"]').waitFor({ state: 'attached' });
      await page.getByTestId('start-function').selectOption('checkout');
      await expect
        .poll(async () => JSON.parse(await page.getByTestId('start-input').inputValue()), { timeout: STEP_MS })
        .toEqual(checkoutSamples[0]?.input);
      expect(await page.getByTestId('start-sample').locator('option:checked').textContent()).toBe('two mugs and a tee');
      await page.getByTestId('start-submit').click();
      await page.waitForURL(/#\/runs\/[^/]+$/);
      const runId = decodeURIComponent(page.url().split('#/runs/')[1] as string);

      // The charge was rate-limited: its next attempt is an hour away.
      const charge = page.locator(`${op('STEP', 'charge-card')}[data-op-status="PENDING"]`);
      await charge.waitFor();
      await charge.locator('[data-testid="attempt"][data-outcome="due"]').waitFor();
      expect(await charge.getByTestId('attempt-error').first().textContent()).toContain('HTTP 429, retry after 3600s');
      expect(await page.getByTestId('wake-run').isVisible()).toBe(true);
      await shot('wake-retry-backoff.png');
      await charge.getByTestId('op-wake').click();

      // The next attempt ran at once; now the 30-minute cancellation window waits.
      const window = page.locator(`${op('WAIT', 'cancellation-window')}[data-op-status="STARTED"]`);
      await window.waitFor();
      await page.locator(`${op('STEP', 'charge-card')}[data-op-status="SUCCEEDED"]`).waitFor();
      expect(await window.getByTestId('op-wait-until').textContent()).toMatch(/^Ends .*\(in (29|30) min\)$/);
      await page.locator(`[data-testid="wf-row"][data-op-name="cancellation-window"][data-kind="wait"]`).waitFor();
      await shot('wake-waiting-window.png');
      await page.getByTestId('wake-run').click();

      await runStatus('SUCCEEDED').waitFor();
      await page.getByTestId('run-result').waitFor();
      expect(JSON.parse((await page.getByTestId('run-result').textContent()) as string)).toMatchObject({
        status: 'confirmed',
        orderId: 'order-1001',
      });
      await page.locator(`${op('WAIT', 'cancellation-window')} [data-testid="op-woken"]`).waitFor();
      expect(await page.getByTestId('wake-run').count()).toBe(0);
      const run = await call('GET', `/v1/runs/${runId}`);
      expect(run).toMatchObject({ status: 'SUCCEEDED', invocations: 3 });
      await shot('wake-done.png');
    },
    TEST_MS,
  );

  it(
    "shows each step attempt's log lines, the context logger's, and the waterfall's invocations",
    async () => {
      const started = await call('POST', '/v1/runs', { function: 'chatty', input: { order: 'A-7' } });
      await waitForStatus(started.runId, 'FAILED');
      await openRun(started.runId);
      await runStatus('FAILED').waitFor();

      const charge = page.locator(op('STEP', 'charge'));
      const attempt = (n: number) => charge.locator(`[data-testid="attempt"][data-attempt="${n}"]`);
      await attempt(2).locator('[data-testid="log-line"]').first().waitFor();
      expect(
        await attempt(1)
          .locator('[data-testid="log-line"]')
          .evaluateAll((els: any[]) => els.map((e) => e.textContent)),
      ).toEqual([
        expect.stringMatching(/INFO\s*charging the card, attempt 1$/),
        expect.stringMatching(/WARN\s*the card was declined\{"reason":"insufficient_funds"\}$/),
      ]);
      expect(await attempt(2).locator('[data-testid="log-line"]').count()).toBe(1);
      const runLogs = page.getByTestId('run-logs');
      expect(await runLogs.locator('[data-testid="log-line"] .log-message').allTextContents()).toEqual([
        'checkout started',
        'charged, now shipping',
      ]);

      await shot('logs.png');

      // Two invocations, with the 3-second wait between them folded into a labelled gap.
      const waterfall = page.getByTestId('waterfall');
      expect(await waterfall.locator('.wf-axis [data-testid="wf-invocation"]').count()).toBe(2);
      expect(await waterfall.locator('.wf-axis [data-testid="wf-gap"]').first().textContent()).toMatch(
        /⋯ \d(\.\d)? s ⋯/,
      );
      const rows = await waterfall
        .locator('[data-testid="wf-row"]')
        .evaluateAll((els: any[]) => els.map((e) => [e.dataset.opName, e.dataset.kind]));
      expect(rows).toEqual([
        ['charge', 'ok'],
        ['settle', 'wait'],
        ['ship', 'bad'],
      ]);
      expect(await waterfall.locator('[data-testid="wf-failure"]').count()).toBeGreaterThanOrEqual(1);
      await page.locator('section', { has: waterfall }).screenshot({ path: join(ARTIFACTS, 'waterfall.png') });
    },
    TEST_MS,
  );

  it(
    "shows a stored error's stack trace: open under the run's error, folded under the failed attempt until asked",
    async () => {
      // A run as the store keeps it after a step failed with a recorded stack trace.
      const engine = (server as unknown as { runtime: { engine: any } }).runtime.engine;
      const { run } = await engine.startRun({ functionName: 'archived', input: '{"order":"B-9"}' });
      const at = Date.now();
      const frames = [
        'Error: warehouse unreachable: ECONNREFUSED 10.0.0.7:443',
        '    at ship (/srv/app/src/checkout/handler.ts:142:13)',
        '    at runAttempt (/srv/app/node_modules/@durable-lambda/sdk/dist/index.js:1201:22)',
        '    at async Promise.all (index 0)',
      ];
      const error = {
        ErrorType: 'Error',
        ErrorMessage: 'warehouse unreachable: ECONNREFUSED 10.0.0.7:443',
        ErrorCode: 'non_retriable',
        StackTrace: frames,
      };
      await engine.store.commit(run.runId, run.fence, {
        operations: [
          { Id: '0', Type: 'EXECUTION', Status: 'FAILED', StartTimestamp: at, EndTimestamp: at + 40 },
          {
            Id: '1',
            Type: 'STEP',
            Name: 'ship',
            Status: 'FAILED',
            StartTimestamp: at + 5,
            EndTimestamp: at + 35,
            StepDetails: {
              Attempt: 1,
              Error: error,
              FailedAttempts: [
                {
                  Attempt: 1,
                  Timestamp: at + 35,
                  Error: { ErrorType: 'Error', ErrorMessage: error.ErrorMessage, ErrorCode: 'non_retriable' },
                },
              ],
            },
          },
        ],
        run: { status: 'FAILED', endedAt: at + 40, nextWakeAt: null, dueAt: null, error },
      });
      await openRun(run.runId);
      await runStatus('FAILED').waitFor();
      const stack = page.locator('[data-testid="run-error-box"] [data-testid="stack-trace"]');
      expect(await stack.getAttribute('open')).not.toBeNull();
      expect(await stack.locator('summary').textContent()).toBe('Stack trace (3 frames)');
      expect(await stack.locator('pre').textContent()).toBe(
        frames
          .slice(1)
          .map((f) => f.trim())
          .join('\n'),
      );
      const attemptStack = page.locator(
        `${op('STEP', 'ship')} [data-testid="attempt-error"] [data-testid="stack-trace"]`,
      );
      expect(await attemptStack.getAttribute('open')).toBeNull();
      await attemptStack.locator('summary').click();
      expect(await attemptStack.locator('pre').textContent()).toContain('handler.ts:142:13');
      await shot('stack-traces.png');
    },
    TEST_MS,
  );

  it(
    'shows the stack trace the SDK recorded for a real step failure',
    async () => {
      const started = await call('POST', '/v1/runs', { function: 'chatty', input: { order: 'A-8' } });
      await waitForStatus(started.runId, 'FAILED');
      const history = await call('GET', `/v1/runs/${started.runId}/operations`);
      const ship = history.operations.find((o: { name?: string }) => o.name === 'ship');
      expect(ship.error.message).toBe('warehouse unreachable: ECONNREFUSED 10.0.0.7:443');
      // The SDK must store ErrorObject.StackTrace for the dashboard, the CLI and the API to show it.
      expect(ship.error.stackTrace?.join('\n') ?? '(no stackTrace stored)').toMatch(/debug-fixtures\.ts:\d+/);
      await openRun(started.runId);
      const shipStack = page.locator(`${op('STEP', 'ship')} [data-testid="attempt-error"] [data-testid="stack-trace"]`);
      await shipStack.locator('summary').click();
      expect(await shipStack.locator('pre').textContent()).toMatch(/debug-fixtures\.ts/);
      await shot('stack-trace-real.png');
    },
    TEST_MS,
  );

  it(
    'folds a map of 100 items behind its counts by status, and shows only the failed ones on a click',
    async () => {
      const started = await call('POST', '/v1/runs', { function: 'fanout', input: {} });
      await waitForStatus(started.runId, 'SUCCEEDED');
      await openRun(started.runId);
      const map = page.locator(op('CONTEXT', 'send-invoices'));
      await map.getByTestId('batch-counts').waitFor();
      expect(await map.getByTestId('batch-counts').textContent()).toMatch(/^100 items: 97 succeeded3 failed$/);
      expect(await page.locator('[data-testid="op"][data-op-type="CONTEXT"]').count()).toBe(1);
      expect(await map.getByTestId('batch-toggle').getAttribute('aria-expanded')).toBe('false');
      // Decoded: the map's result lists each item's value, not a string of escaped JSON.
      const result = JSON.parse(
        (await map.locator(':scope > .op-body [data-testid="op-result"]').textContent()) as string,
      );
      expect(result.items[0]).toMatchObject({ index: 0, status: 'SUCCEEDED', result: { customer: 'cus-001' } });
      expect(await page.evaluate('document.documentElement.scrollHeight')).toBeLessThan(2_500);
      await page
        .locator('section', { has: page.getByTestId('timeline') })
        .screenshot({ path: join(ARTIFACTS, 'map-folded.png') });

      await map.locator('[data-testid="batch-count"][data-status="FAILED"]').click();
      const items = map.locator(':scope > [data-testid="op-children"] > [data-testid="op"]');
      await expect.poll(() => items.count(), { timeout: STEP_MS }).toBe(3);
      expect(await items.evaluateAll((els: any[]) => els.map((e) => e.dataset.opStatus))).toEqual([
        'FAILED',
        'FAILED',
        'FAILED',
      ]);
      const first = items.first();
      await first.getByTestId('op-toggle').click();
      await first.locator(`${op('STEP', 'invoice')} [data-testid="attempt-error"]`).waitFor();
      expect(await first.locator(`${op('STEP', 'invoice')} [data-testid="attempt-error"]`).textContent()).toContain(
        'cus-013: no card',
      );
      await page
        .locator('section', { has: page.getByTestId('timeline') })
        .screenshot({ path: join(ARTIFACTS, 'map-failed-items.png') });

      // Every item, one line each.
      await map.locator('[data-testid="batch-count"][data-status="FAILED"]').click();
      await expect.poll(() => items.count(), { timeout: STEP_MS }).toBe(100);
    },
    TEST_MS,
  );

  it(
    "marks a race's losing branch and a cancelled run's wait as abandoned, with nothing to wake",
    async () => {
      const race = await call('POST', '/v1/runs', { function: 'racer', input: {} });
      await waitForStatus(race.runId, 'SUCCEEDED');
      await openRun(race.runId);
      const loser = page.locator(op('WAIT', 'slow-origin'));
      await page.locator(op('CONTEXT', 'first-answer')).getByTestId('batch-counts').waitFor();
      expect(await page.locator(op('CONTEXT', 'first-answer')).getByTestId('batch-counts').textContent()).toBe(
        '2 items: 1 succeeded1 abandoned',
      );
      // Two items only: unfolded by default; the losing branch's wait is marked.
      await loser.getByTestId('op-abandoned').waitFor();
      expect(await loser.getByTestId('op-abandoned').textContent()).toBe('abandoned: its context finished first');
      expect(await loser.getByTestId('op-wake').count()).toBe(0);
      expect(await loser.getByTestId('op-wait-until').textContent()).toMatch(
        /^Would have ended \d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/,
      );
      await shot('abandoned-race.png');

      const waiting = await call('POST', '/v1/runs', { function: 'patient', input: {} });
      await openRun(waiting.runId);
      await page.locator(`${op('WAIT', 'two-days')}[data-op-status="STARTED"]`).waitFor();
      await page.getByTestId('wake-run').waitFor();
      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByTestId('cancel-run').click();
      await runStatus('CANCELLED').waitFor();
      const wait = page.locator(op('WAIT', 'two-days'));
      await wait.getByTestId('op-abandoned').waitFor();
      expect(await wait.getByTestId('op-abandoned').textContent()).toBe('abandoned: the run ended first');
      expect(await wait.getByTestId('op-wait-until').textContent()).toMatch(
        /^Would have ended \d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/,
      );
      expect(await page.getByTestId('wake-run').count()).toBe(0);
      await page.locator('[data-testid="wf-row"][data-op-name="two-days"][data-kind="abandoned"]').waitFor();
      await shot('abandoned.png');
    },
    TEST_MS,
  );

  it(
    'searches runs by run key or id, and says what each running run waits for',
    async () => {
      const key = `order-${randomUUID().slice(0, 8)}`;
      const keyed = await call('POST', '/v1/runs', { function: 'patient', input: { n: 1 }, runKey: key });
      const other = await call('POST', '/v1/runs', { function: 'patient', input: { n: 2 } });
      await page.goto(`${server.url}#/`);
      const row = (runId: string) => page.locator(`[data-testid="run-row"][data-run-id="${runId}"]`);
      await row(keyed.runId).locator('[data-testid="run-waiting"][data-kind="wait"]').waitFor();
      expect(await row(keyed.runId).getByTestId('run-waiting').textContent()).toMatch(
        /^wait two-days · ends in (1|2) d$/,
      );
      await row(other.runId).waitFor();

      await page.getByTestId('filter-search').fill(key.slice(2, 10));
      await expect
        .poll(
          () => page.locator('[data-testid="run-row"]').evaluateAll((els: any[]) => els.map((e) => e.dataset.runId)),
          {
            timeout: STEP_MS,
          },
        )
        .toEqual([keyed.runId]);
      expect(page.url()).toContain(`search=${key.slice(2, 10)}`);
      expect(await page.getByTestId('page-label').textContent()).toBe('Search results');
      await shot('search-and-waiting.png');

      await page.getByTestId('filter-search').fill(other.runId);
      await expect
        .poll(
          () => page.locator('[data-testid="run-row"]').evaluateAll((els: any[]) => els.map((e) => e.dataset.runId)),
          {
            timeout: STEP_MS,
          },
        )
        .toEqual([other.runId]);
      expect(pageErrors).toEqual([]);
      expect(serverLog.filter((line) => line.startsWith('error'))).toEqual([]);
    },
    TEST_MS,
  );
});
