/**
 * The dashboard's functions page, search by content and start time, and bulk actions, in
 * headless Chromium against the dev server: each served function with its samples (a click starts
 * a run with one) and its recent runs by status; the runs list finds runs by text in their input,
 * result or error and within a time range; selected runs are cancelled or retried together.
 * Screenshots go to .artifacts/browser/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalWithReminder, refuse, samples, ship } from './dashboard-fixtures';
import { type DashboardHarness, openDashboard, unnamedControls } from './dashboard-harness';

let d: DashboardHarness;

beforeAll(async () => {
  d = await openDashboard({ ship, refuse, approvalWithReminder }, { samples });
}, 60_000);

afterAll(async () => {
  await d?.close();
});

/** The run ids the list shows, top to bottom. */
const shownIds = () =>
  d.page.locator('[data-testid="run-row"]').evaluateAll((rows: any[]) => rows.map((r) => r.dataset.runId));

/** A `datetime-local` value (local time, to the second) of an ISO time. */
function localValue(iso: string): string {
  const t = new Date(iso);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${t.getFullYear()}-${p(t.getMonth() + 1)}-${p(t.getDate())}T${p(t.getHours())}:${p(t.getMinutes())}:${p(t.getSeconds())}`;
}

describe('functions page', () => {
  it('lists each function with its samples and recent runs, and starts a run from a sample', async () => {
    const { page } = d;
    const failed = await d.call('POST', '/v1/runs', { function: 'refuse', input: { why: 'first' } });
    await d.waitForStatus(failed.runId, 'FAILED');
    await page.goto(`${d.url}#/functions`);
    const shipCard = page.locator('[data-testid="function"][data-name="ship"]');
    await shipCard.waitFor();
    expect(
      await page.locator('[data-testid="function"]').evaluateAll((els: any[]) => els.map((e) => e.dataset.name)),
    ).toEqual(['ship', 'refuse', 'approvalWithReminder']);
    expect(await page.locator('.topbar nav a[aria-current="page"]').textContent()).toBe('Functions');
    expect(await shipCard.getByTestId('function-sample').allTextContents()).toEqual([
      'Start small order {"order":"S-1"}',
      'Start rush order {"order":"R-9","rush":true}',
    ]);
    const refuseCard = page.locator('[data-testid="function"][data-name="refuse"]');
    await refuseCard.locator('[data-testid="function-count"][data-status="FAILED"]').waitFor();
    expect(await refuseCard.getByTestId('function-counts').textContent()).toBe('Of its 1 run: 1 FAILED.');
    expect(await refuseCard.getByTestId('function-no-samples').count()).toBe(1);
    expect(await unnamedControls(page)).toEqual([]);
    await d.shot('functions-page.png');

    // A sample's button starts a run with that input and opens it.
    await shipCard.getByRole('button', { name: 'Start ship with the sample rush order' }).click();
    await page.waitForURL(/#\/runs\/[^/]+$/);
    expect(JSON.parse((await page.getByTestId('run-input').textContent()) ?? '')).toEqual({ order: 'R-9', rush: true });
  });
});

describe('runs list search and bulk actions', () => {
  it('finds runs by text in their input, result or error, and by start time', async () => {
    const { page } = d;
    const blue = await d.call('POST', '/v1/runs', { function: 'ship', input: { order: 'BLUE-77' } });
    await d.waitForStatus(blue.runId, 'SUCCEEDED');
    await new Promise((r) => setTimeout(r, 1100));
    const fire = await d.call('POST', '/v1/runs', { function: 'refuse', input: { why: 'warehouse fire' } });
    await d.waitForStatus(fire.runId, 'FAILED');

    await page.goto(d.url);
    await page.locator(`[data-testid="run-row"][data-run-id="${fire.runId}"]`).waitFor();
    await page.getByTestId('filter-search-in').selectOption('contains');
    await page.getByTestId('filter-search').fill('blue-77');
    await expect.poll(shownIds, { timeout: 10_000 }).toEqual([blue.runId]);
    expect(page.url()).toContain('contains=blue-77');
    // A content search is read again on Refresh (live, at most every 15 s: each reads up to 1,000 runs).
    const blue2 = await d.call('POST', '/v1/runs', { function: 'ship', input: { order: 'blue-77-b' } });
    await d.waitForStatus(blue2.runId, 'SUCCEEDED');
    await page.getByTestId('refresh-now').click();
    await expect.poll(shownIds, { timeout: 10_000 }).toEqual([blue2.runId, blue.runId]);
    // Text of an error's message.
    await page.getByTestId('filter-search').fill('WAREHOUSE FIRE');
    await expect.poll(shownIds, { timeout: 10_000 }).toEqual([fire.runId]);
    await d.shot('runs-search-content.png');

    // A start-time range: from the second run's start, only it (and later ones).
    await page.getByTestId('filter-clear').click();
    await expect.poll(async () => (await shownIds()).length, { timeout: 10_000 }).toBeGreaterThan(2);
    const startedAt = (await d.call('GET', `/v1/runs/${fire.runId}`)).createdAt;
    await page.getByTestId('filter-after').fill(localValue(startedAt));
    await page.getByTestId('filter-function').selectOption('refuse');
    await expect.poll(shownIds, { timeout: 10_000 }).toEqual([fire.runId]);
    await page.getByTestId('filter-after').fill('');
    await page.getByTestId('filter-before').fill(localValue(startedAt));
    await expect.poll(async () => (await shownIds()).includes(fire.runId), { timeout: 10_000 }).toBe(false);
    expect((await shownIds()).length).toBeGreaterThan(0);
    expect(await unnamedControls(page)).toEqual([]);
  });

  it('cancels the selected running runs and retries the selected failed ones', async () => {
    const { page } = d;
    const waiting = await Promise.all(
      [1, 2].map(() => d.call('POST', '/v1/runs', { function: 'approvalWithReminder', input: {} })),
    );
    const failed = await Promise.all(
      ['a', 'b'].map((why) => d.call('POST', '/v1/runs', { function: 'refuse', input: { why } })),
    );
    for (const run of failed) await d.waitForStatus(run.runId, 'FAILED');
    await page.goto(d.url);
    const row = (id: string) => page.locator(`[data-testid="run-row"][data-run-id="${id}"]`);
    for (const run of [...waiting, ...failed]) await row(run.runId).waitFor();
    for (const run of [...waiting, ...failed]) await row(run.runId).getByTestId('run-select').check();
    expect(await page.getByTestId('bulk-count').textContent()).toBe('4 selected');
    expect(await page.getByTestId('bulk-cancel').textContent()).toBe('Cancel 2 running runs');
    expect(await page.getByTestId('bulk-retry').textContent()).toBe('Retry 2 failed runs');
    await d.shot('runs-bulk-selected.png');

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByTestId('bulk-cancel').click();
    await page.getByTestId('bulk-outcome').filter({ hasText: 'Cancelled 2 runs.' }).waitFor();
    for (const run of waiting) expect((await d.call('GET', `/v1/runs/${run.runId}`)).status).toBe('CANCELLED');
    // The cancelled runs leave the selection; the failed ones stay, for the retry.
    expect(await page.getByTestId('bulk-count').textContent()).toBe('2 selected');

    await page.getByTestId('bulk-retry').click();
    await page.getByTestId('bulk-outcome').filter({ hasText: 'Retried 2 runs.' }).waitFor();
    for (const run of failed) {
      const { actions } = await d.call('GET', `/v1/runs/${run.runId}/actions`);
      expect(actions.map((a: { action: string }) => a.action)).toEqual(['retry']);
    }
    expect(await page.getByTestId('bulk-count').textContent()).toBe('Select runs to cancel or retry them together.');
    await d.shot('runs-bulk-done.png');
    // The new parts read in the dark scheme too (their colours are the theme's variables).
    await page.emulateMedia({ colorScheme: 'dark' });
    await row(failed[0].runId).getByTestId('run-select').check();
    await d.shot('runs-bulk-dark.png');
    await page.emulateMedia({ colorScheme: 'light' });
    expect(d.pageErrors).toEqual([]);
  });
});
