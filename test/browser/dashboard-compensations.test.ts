/**
 * A run's compensations (sagas, issue 27) on the dashboard's run page (headless Chromium against
 * a dev server on SQLite): a run that fails after two steps registered an undo shows the steps
 * that registered one, the round's plan with each compensation's status and attempts (one
 * refused twice), and what the run undid and failed to undo; a run without any shows no panel
 * (and the page does not ask for it).
 * The runs page shows a run's published state under its outcome.
 */
import { withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DashboardHarness, openDashboard } from './dashboard-harness';

let d: DashboardHarness;

beforeAll(async () => {
  const saga = withDurableExecution(async (_event: unknown, ctx) => {
    await ctx.publish({ stage: 'shipping' });
    await ctx.step('reserve', async () => 'r-1', { compensate: async () => {} });
    await ctx.step('charge', async () => 'ch-1', {
      compensate: {
        run: async () => {
          throw new Error('refund refused');
        },
        retryStrategy: (_error, attempt) => ({ shouldRetry: attempt < 2, delay: { seconds: 1 } }),
      },
    });
    await ctx.step(
      'ship',
      async () => {
        throw new Error('courier down');
      },
      { retry: { maxAttempts: 1 } },
    );
  });
  const plain = withDurableExecution(async (_event: unknown, ctx) => ctx.step('only', async () => 'ok'));
  d = await openDashboard({ saga, plain });
}, 60_000);

afterAll(() => d?.close());

describe('dashboard: compensations', { timeout: 60_000 }, () => {
  it("shows each compensation's status and attempts and the run's undone / failed-to-undo summary", async () => {
    const { runId } = await d.call('POST', '/v1/runs', { function: 'saga', input: {} });
    await d.waitForStatus(runId, 'FAILED');
    await d.page.goto(`${d.url}#/runs/${runId}`);
    const panel = d.page.locator('[data-testid="run-compensations"]');
    await panel.locator('[data-testid="compensations-summary"]').waitFor();
    expect(await panel.locator('h2').textContent()).toBe('Compensations');
    expect(await panel.locator('[data-testid="compensations-registered"]').textContent()).toBe(
      'Undo registered by: charge, reserve',
    );
    expect(await panel.locator('[data-testid="compensations-undone"]').textContent()).toBe('Undone: reserve');
    expect(await panel.locator('[data-testid="compensations-failed"]').textContent()).toBe(
      'Failed to undo: charge (refund refused)',
    );
    const items = panel.locator('[data-testid="compensation"]');
    expect(await items.evaluateAll((els) => els.map((e) => [e.dataset.step, e.dataset.status]))).toEqual([
      ['charge', 'failed'],
      ['reserve', 'succeeded'],
    ]);
    expect(await items.locator('[data-testid="compensation-attempts"]').allTextContents()).toEqual([
      ' 2 attempts',
      ' 1 attempt',
    ]);
    expect(await items.first().locator('[data-testid="compensation-error"]').textContent()).toContain('refund refused');
    await d.shot('run-compensations.png');

    // The runs page: the saga's published state under its outcome.
    await d.page.goto(`${d.url}#/`);
    const row = d.page.locator(`[data-testid="run-row"][data-run-id="${runId}"]`);
    expect(await row.locator('[data-testid="run-published-preview"]').textContent()).toBe(
      'published {"stage":"shipping"}',
    );

    // A run without a round: no panel, and the page does not pay for the route's full read.
    const asked: string[] = [];
    d.page.on('request', (request) => {
      if (request.url().includes('/compensations')) asked.push(request.url());
    });
    const quiet = await d.call('POST', '/v1/runs', { function: 'plain' });
    await d.waitForStatus(quiet.runId, 'SUCCEEDED');
    await d.page.goto(`${d.url}#/runs/${quiet.runId}`);
    await d.page.locator('[data-testid="run-facts"]').waitFor();
    // The page has the history (which tells it there is no round) once the step shows.
    await d.page.locator('[data-testid="op"][data-op-name="only"]').waitFor();
    expect(await d.page.locator('[data-testid="run-compensations"]').isHidden()).toBe(true);
    expect(asked).toEqual([]);
    expect(d.pageErrors).toEqual([]);
  });
});
