/**
 * The dashboard's operator panel and runs list in headless Chromium against the dev server: the
 * panel sits below the run's summary, folded on a run it can do nothing for, with every control
 * labelled (no bare `null` field); the list says what an ended run came to (an error's code and
 * message, a result's preview) and names a callback a run waits on ahead of its timers; every
 * control of the pages has an accessible name. Screenshots go to .artifacts/browser/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalWithReminder, refuse, samples, ship } from './dashboard-fixtures';
import { type DashboardHarness, openDashboard, unnamedControls } from './dashboard-harness';

let d: DashboardHarness;

beforeAll(async () => {
  d = await openDashboard({ approvalWithReminder, ship, refuse }, { samples });
}, 60_000);

afterAll(async () => {
  await d?.close();
});

const row = (runId: string) => d.page.locator(`[data-testid="run-row"][data-run-id="${runId}"]`);

describe('the operator panel on a run page', () => {
  it('comes after the summary, folded on a succeeded run, open on a failed one', async () => {
    const { page } = d;
    const done = await d.call('POST', '/v1/runs', { function: 'ship', input: { order: 'A-1' } });
    await d.waitForStatus(done.runId, 'SUCCEEDED');
    await page.goto(`${d.url}#/runs/${encodeURIComponent(done.runId)}`);
    const panel = page.getByTestId('operator-actions');
    await panel.getByTestId('operator-summary').waitFor();
    // Below the facts and the input/result, above the waterfall.
    const order = await page.locator('main .page > *').evaluateAll((kids: any[]) => {
      const at = (selector: string) => kids.findIndex((el) => el.matches(selector));
      return { summary: at('.run-summary'), panel: at('[data-testid="operator-actions"]') };
    });
    expect(order.panel).toBe(order.summary + 1);
    expect(await panel.locator('details').evaluate((el: any) => el.open)).toBe(false);
    expect(await panel.getByTestId('operator-summary').textContent()).toContain('the run succeeded');
    await d.shot('operator-panel-folded.png');

    const failed = await d.call('POST', '/v1/runs', { function: 'refuse', input: { why: 'sold out' } });
    await d.waitForStatus(failed.runId, 'FAILED');
    await page.goto(`${d.url}#/runs/${encodeURIComponent(failed.runId)}`);
    await panel.getByTestId('skip-op').waitFor();
    expect(await panel.locator('details').evaluate((el: any) => el.open)).toBe(true);
    // The two operation lists say what each is for, in visible text.
    const labelOf = (id: string) => page.locator(`label[for="${id}"]`).textContent();
    expect(await labelOf('retry-from-op')).toBe('Retry the run from operation');
    expect(await labelOf('skip-op')).toBe('Skip the failed step');
    expect(await labelOf('skip-result')).toBe('with the result (JSON)');
    expect(await labelOf('operator-actor')).toBe('Acting as');
    // No field shows a bare `null`.
    const values = await page
      .locator('main input, main textarea')
      .evaluateAll((els: any[]) => els.map((el) => el.value));
    expect(values).not.toContain('null');
    expect(await unnamedControls(page)).toEqual([]);
    await d.shot('operator-panel-failed-run.png');

    // A skip with the result left empty gives the step no result (null) and the run goes on.
    await panel.getByTestId('skip-step').click();
    await panel.getByTestId('operator-action').waitFor();
    expect((await d.call('GET', `/v1/runs/${failed.runId}/actions`)).actions).toEqual([
      expect.objectContaining({ action: 'skip_step', operationId: '1' }),
    ]);
  });
});

describe('the runs list', () => {
  it("shows a failed run's error, a succeeded run's result, and a callback ahead of a timer", async () => {
    const { page } = d;
    const waiting = await d.call('POST', '/v1/runs', { function: 'approvalWithReminder', input: {} });
    const shipped = await d.call('POST', '/v1/runs', { function: 'ship', input: { order: 'L-5' } });
    const refused = await d.call('POST', '/v1/runs', { function: 'refuse', input: { why: 'recalled' } });
    await d.waitForStatus(shipped.runId, 'SUCCEEDED');
    await d.waitForStatus(refused.runId, 'FAILED');
    // The API lists the reminder (due sooner) first.
    const end = Date.now() + 10_000;
    let kinds: string[] = [];
    while (Date.now() < end) {
      const { runs } = await d.call('GET', `/v1/runs?include=waitingFor&search=${waiting.runId}`);
      kinds = (runs[0].waitingFor ?? []).map((w: { kind: string }) => w.kind);
      if (kinds.length === 2) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(kinds).toEqual(['wait', 'callback']);

    await page.goto(d.url);
    const error = row(refused.runId).getByTestId('run-outcome');
    await error.waitFor();
    expect(await error.getAttribute('data-kind')).toBe('error');
    const errorText = (await error.textContent()) ?? '';
    expect(errorText).toMatch(/^step_failed out of stock: recalled; the warehouse/);
    // Cut, with the whole message in its tooltip.
    expect(errorText.length).toBeLessThan(110);
    expect(errorText.endsWith('…')).toBe(true);
    expect(await error.getAttribute('title')).toContain('the warehouse has none left. the warehouse has none left.');

    const result = row(shipped.runId).getByTestId('run-outcome');
    expect(await result.getAttribute('data-kind')).toBe('result');
    expect(await result.textContent()).toMatch(/^\{"order":"L-5","label":"label-L-5","note":"x+…$/);

    const wait = row(waiting.runId).getByTestId('run-waiting');
    await wait.and(page.locator('[data-kinds="callback wait"]')).waitFor();
    expect(await wait.textContent()).toMatch(
      /^callback manager-approval \(times out in \d+ min\) · wait reminder · ends in/,
    );
    expect(await wait.textContent()).not.toContain('more');
    expect(await unnamedControls(page)).toEqual([]);
    await d.shot('runs-list-outcomes.png');

    // The running run's page (callback forms, wake now, cancel, the open operator panel): every
    // control named too.
    await wait.locator('..').locator('..').getByTestId('run-link').click();
    await page.getByTestId('callback-result').waitFor();
    await page.getByTestId('operator-actions').getByTestId('cancel-tree').waitFor();
    expect(await unnamedControls(page)).toEqual([]);
    await d.shot('run-running-controls.png');
    expect(d.pageErrors).toEqual([]);
  });
});
