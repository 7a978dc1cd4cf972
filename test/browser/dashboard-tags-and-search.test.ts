/**
 * Finding runs on the dashboard (issue 27; headless Chromium against a dev server on SQLite): the
 * runs list filters by tags (`key=value`, every one must match) and by error code, each run shows
 * its tags as links to the runs carrying them, the run page lists them, and the start form gives them.
 */
import { withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DashboardHarness, openDashboard, unnamedControls } from './dashboard-harness';

let d: DashboardHarness;

beforeAll(async () => {
  const orders = withDurableExecution(async (event: { customer: string; fail?: string }, ctx) => {
    await ctx.tag({ customer: event.customer });
    await ctx.step('charge', async () => 'charged');
    if (event.fail) throw Object.assign(new Error('declined'), { code: event.fail });
    return 'done';
  });
  d = await openDashboard({ orders });
}, 60_000);

afterAll(() => d?.close());

const shownIds = () =>
  d.page.locator('[data-testid="run-row"]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-run-id')));

describe('dashboard: tags and search', { timeout: 60_000 }, () => {
  it('filters the runs by tags and error code, shows the tags in the list and on the run page', async () => {
    const start = async (customer: string, region: string, fail?: string) => {
      const run = await d.call('POST', '/v1/runs', {
        function: 'orders',
        input: { customer, ...(fail ? { fail } : {}) },
        tags: { region },
      });
      await d.waitForStatus(run.runId, fail ? 'FAILED' : 'SUCCEEDED');
      return run.runId as string;
    };
    const a = await start('c-1', 'eu');
    const b = await start('c-1', 'us', 'card_declined');
    const c = await start('c-2', 'eu', 'card_declined');
    const { page } = d;
    await page.goto(d.url);
    await page.locator(`[data-testid="run-row"][data-run-id="${c}"]`).waitFor();

    await page.getByTestId('filter-tags').fill('customer=c-1');
    await expect.poll(shownIds, { timeout: 10_000 }).toEqual([b, a]);
    expect(page.url()).toContain('tags=customer%3Dc-1');
    await page.getByTestId('filter-tags').fill('customer=c-1 region=eu');
    await expect.poll(shownIds, { timeout: 10_000 }).toEqual([a]);
    const rowTags = page.locator(`[data-testid="run-row"][data-run-id="${a}"] [data-testid="row-tags"] a`);
    expect(await rowTags.allTextContents()).toEqual(['customer=c-1', 'region=eu']);

    await page.getByTestId('filter-tags').fill('');
    await page.getByTestId('filter-code').fill('card_declined');
    await expect.poll(shownIds, { timeout: 10_000 }).toEqual([c, b]);
    await page.getByTestId('filter-tags').fill('region=eu');
    await expect.poll(shownIds, { timeout: 10_000 }).toEqual([c]);
    await d.shot('runs-tags-and-error-code.png');
    expect(await unnamedControls(page)).toEqual([]);

    // A tag on the run page links to the runs carrying it.
    await page.goto(`${d.url}#/runs/${b}`);
    const tags = page.locator('[data-testid="run-tags"] a');
    await tags.first().waitFor();
    expect(await tags.allTextContents()).toEqual(['customer=c-1', 'region=us']);
    await tags.nth(1).click();
    await expect.poll(shownIds, { timeout: 10_000 }).toEqual([b]);
    expect(await page.getByTestId('filter-tags').inputValue()).toBe('region=us');

    // Tags given in the start form: a pair without `=` is refused there, good ones reach the run.
    await page.getByTestId('start-input').fill('{"customer":"c-3"}');
    await page.getByTestId('start-tags').fill('batch');
    await page.getByTestId('start-submit').click();
    expect(await page.getByTestId('start-error-message').textContent()).toContain('tags');
    await page.getByTestId('start-tags').fill('batch=b-7 region=ap');
    await page.getByTestId('start-submit').click();
    const started = page.locator('[data-testid="run-tags"] a');
    await expect
      .poll(async () => started.allTextContents(), { timeout: 10_000 })
      .toEqual(['batch=b-7', 'customer=c-3', 'region=ap']);
    expect(d.pageErrors).toEqual([]);
  });
});
