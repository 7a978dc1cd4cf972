/**
 * A run's raw history and its run tree on the dashboard, in headless Chromium against the dev
 * server: the fold shows the exported-run file `durable export` prints, the Download button saves
 * that very file, and a parent run's page shows the child run its invoke started (and the child's
 * page its parent). Screenshots go to .artifacts/browser/.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parentOrder, ship } from './dashboard-fixtures';
import { type DashboardHarness, openDashboard, unnamedControls } from './dashboard-harness';

let d: DashboardHarness;

beforeAll(async () => {
  d = await openDashboard({ parentOrder, ship });
}, 60_000);

afterAll(async () => {
  await d?.close();
});

/** The file without the time it was made (two exports differ there only). */
const timeless = ({ exportedAt: _at, ...file }: { exportedAt: string }) => file;

describe('raw history', () => {
  it('shows the exported-run file under a fold and downloads it as <runId>.json', async () => {
    const { page } = d;
    const { runId } = await d.call('POST', '/v1/runs', { function: 'ship', input: { order: 'H-1' } });
    await d.waitForStatus(runId, 'SUCCEEDED');
    await page.goto(`${d.url}#/runs/${encodeURIComponent(runId)}`);
    const panel = page.getByTestId('raw-history');
    await panel.getByTestId('raw-summary').waitFor();
    // Folded, and not read until opened.
    expect(await panel.getByTestId('raw-json').count()).toBe(0);
    await panel.getByTestId('raw-summary').click();
    const json = panel.getByTestId('raw-json');
    await json.waitFor();
    const shown = JSON.parse((await json.textContent()) ?? '');
    const exported = await d.call('GET', `/v1/runs/${runId}/export`);
    expect(timeless(shown)).toEqual(timeless(exported));
    expect(shown.operations.map((op: { Type: string; Name?: string }) => [op.Type, op.Name])).toEqual([
      ['EXECUTION', undefined],
      ['STEP', 'label'],
    ]);
    expect(await panel.getByTestId('raw-status').textContent()).toMatch(/^2 operations, \d+\.\d KB$/);

    const [download] = await Promise.all([page.waitForEvent('download'), panel.getByTestId('raw-download').click()]);
    expect(download.suggestedFilename()).toBe(`${runId}.json`);
    const saved = JSON.parse(readFileSync(await download.path(), 'utf8'));
    expect(timeless(saved)).toEqual(timeless(exported));
    expect(saved.format).toBe('durable-lambda/recorded-run');
    expect(await unnamedControls(page)).toEqual([]);
    await d.shot('run-raw-history.png');
  });
});

describe('run tree', () => {
  it("shows a parent's child run (from its invoke) and the child's parent, each linked", async () => {
    const { page } = d;
    const parent = await d.call('POST', '/v1/runs', { function: 'parentOrder', input: { order: 'T-3' } });
    await d.waitForStatus(parent.runId, 'SUCCEEDED');
    const { operations } = await d.call('GET', `/v1/runs/${parent.runId}/operations`);
    const childRunId = operations.find((op: { type: string }) => op.type === 'CHAINED_INVOKE').childRunId;
    expect(childRunId).toEqual(expect.any(String));

    await page.goto(`${d.url}#/runs/${encodeURIComponent(parent.runId)}`);
    const tree = page.getByTestId('run-tree');
    const child = tree.locator(`[data-testid="tree-run"][data-run-id="${childRunId}"]`);
    await child.waitFor();
    expect(await child.getAttribute('data-depth')).toBe('1');
    expect(await child.textContent()).toContain('ship-it → ship');
    expect(await child.getByTestId('tree-status').textContent()).toBe('SUCCEEDED');
    expect(await tree.locator(`[data-run-id="${parent.runId}"]`).getAttribute('data-depth')).toBe('0');
    await d.shot('run-tree-parent.png');

    // Follow the link: the child's page shows its parent above it.
    await child.locator('a').click();
    await page.waitForURL(new RegExp(`#/runs/${childRunId}$`));
    const up = page.getByTestId('run-tree').locator(`[data-testid="tree-run"][data-run-id="${parent.runId}"]`);
    await up.waitFor();
    expect(await up.getAttribute('data-depth')).toBe('0');
    const self = page.getByTestId('run-tree').locator(`[data-testid="tree-run"][data-run-id="${childRunId}"]`);
    expect(await self.getAttribute('data-depth')).toBe('1');
    expect(await self.textContent()).toContain('(this run)');
    expect(await self.textContent()).toContain('ship-it → ship');
    await d.shot('run-tree-child.png');

    // The runs list names the child's parent, linked, instead of its invoke's run key.
    await page.goto(d.url);
    const parentLine = page.locator(`[data-testid="run-row"][data-run-id="${childRunId}"] [data-testid="run-parent"]`);
    await parentLine.waitFor();
    expect(await parentLine.textContent()).toBe(`↳ child of ${parent.runId}`);
    expect(await parentLine.locator('a').getAttribute('href')).toBe(`#/runs/${parent.runId}`);
    await d.shot('runs-list-child-run.png');

    // A run with neither parent nor children has no tree.
    const { runId } = await d.call('POST', '/v1/runs', { function: 'ship', input: {} });
    await d.waitForStatus(runId, 'SUCCEEDED');
    await page.goto(`${d.url}#/runs/${encodeURIComponent(runId)}`);
    await page.getByTestId('raw-summary').waitFor();
    await page.locator('[data-testid="op"]').first().waitFor();
    expect(await page.getByTestId('run-tree').isVisible()).toBe(false);
    expect(d.pageErrors).toEqual([]);
  });
});
