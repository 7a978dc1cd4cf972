/**
 * A run's published state (`ctx.publish`, issue 27, queries) on the dashboard's run page
 * (headless Chromium against a dev server on SQLite): a run that published its stage and then
 * waits an hour shows the state, pretty-printed, with when it was published; a run that published
 * nothing shows no such panel.
 */
import { withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DashboardHarness, openDashboard } from './dashboard-harness';

let d: DashboardHarness;

beforeAll(async () => {
  const orders = withDurableExecution(async (_event: unknown, ctx) => {
    await ctx.publish({ stage: 'reserving' });
    await ctx.step('reserve', async () => 'reserved');
    await ctx.publish({ stage: 'awaiting payment', items: 3 });
    await ctx.wait({ hours: 1 });
    return 'done';
  });
  const plain = withDurableExecution(async () => 'ok');
  d = await openDashboard({ orders, plain });
}, 60_000);

afterAll(() => d?.close());

describe('dashboard: published state', { timeout: 60_000 }, () => {
  it("shows the run's latest published state and when, and no panel for a run that published none", async () => {
    const { runId } = await d.call('POST', '/v1/runs', { function: 'orders', input: {} });
    await expect
      .poll(async () => (await d.call('GET', `/v1/runs/${runId}`)).published?.seq, { timeout: 15_000 })
      .toBe(2);
    await d.page.goto(`${d.url}#/runs/${runId}`);
    const state = d.page.locator('[data-testid="run-published-state"]');
    await state.waitFor();
    expect(JSON.parse((await state.textContent()) ?? 'null')).toEqual({ stage: 'awaiting payment', items: 3 });
    expect(await d.page.locator('[data-testid="run-published"] h2').textContent()).toBe('Published state');
    expect(await d.page.locator('[data-testid="run-published-at"]').textContent()).toMatch(/^Published .+ · state #2$/);
    await d.shot('run-published-state.png');

    const quiet = await d.call('POST', '/v1/runs', { function: 'plain' });
    await d.waitForStatus(quiet.runId, 'SUCCEEDED');
    await d.page.goto(`${d.url}#/runs/${quiet.runId}`);
    await d.page.locator('[data-testid="run-facts"]').waitFor();
    expect(await d.page.locator('[data-testid="run-published"]').count()).toBe(0);
    expect(d.pageErrors).toEqual([]);
  });
});
