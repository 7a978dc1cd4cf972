/**
 * Named signals on the dashboard's run page (issue 27; headless Chromium against a dev server on
 * SQLite): the run's signals panel lists what was sent and the waits still open and sends a
 * signal by name; the timeline's `waitForSignal` sends the signal it waits for; a signal sent
 * before its wait shows pending, then delivered once the run takes it.
 */
import { withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DashboardHarness, openDashboard, unnamedControls } from './dashboard-harness';

let d: DashboardHarness;

beforeAll(async () => {
  const approve = withDurableExecution(async (_event: unknown, ctx) => {
    const decision = await ctx.waitForSignal<{ ok: boolean }>('decision');
    const note = await ctx.waitForSignal<string>('note');
    return { decision, note };
  });
  d = await openDashboard({ approve });
}, 60_000);

afterAll(() => d?.close());

describe('dashboard: signals', { timeout: 60_000 }, () => {
  it('lists signals and open waits, sends one by name from the panel and one from the waiting operation', async () => {
    const { runId } = await d.call('POST', '/v1/runs', { function: 'approve', input: {} });
    await expect
      .poll(async () => (await d.call('GET', `/v1/runs/${runId}/signals`)).waiting.length, { timeout: 15_000 })
      .toBe(1);
    await d.page.goto(`${d.url}#/runs/${runId}`);
    await d.page.locator('[data-testid="signals-empty"]').waitFor();
    expect(await d.page.locator('[data-testid="signal-wait"]').getAttribute('data-name')).toBe('decision');

    // A signal the run does not wait for yet: kept, pending.
    await d.page.fill('[data-testid="signal-name"]', 'note');
    await d.page.fill('[data-testid="signal-form"] [data-testid="signal-payload"]', '"hello"');
    await d.page.click('[data-testid="signal-send"]');
    await d.page.locator('[data-testid="signal-row"][data-seq="1"][data-state="pending"]').waitFor();
    expect(await d.page.locator('[data-testid="signal-form-message"]').textContent()).toBe('Signal sent.');
    expect(await unnamedControls(d.page)).toEqual([]);
    await d.shot('run-signals-pending.png');

    // The waiting operation's own form sends the signal it waits for.
    await d.page.locator('[data-testid="signal-wait-name"]').first().waitFor();
    const waitForm = d.page.locator('[data-testid="signal-wait-form"]');
    await waitForm.locator('[data-testid="signal-payload"]').fill('{"ok": true}');
    await waitForm.locator('[data-testid="signal-wait-send"]').click();
    const ended = await d.waitForStatus(runId, 'SUCCEEDED');
    expect(ended.result).toEqual({ decision: { ok: true }, note: 'hello' });
    await d.page.locator('[data-testid="signal-row"][data-seq="2"][data-state="delivered"]').waitFor();
    await d.page.locator('[data-testid="signal-row"][data-seq="1"][data-state="delivered"]').waitFor();
    // Ended: nothing to send any more.
    await expect.poll(() => d.page.locator('[data-testid="signal-form"]').count(), { timeout: 15_000 }).toBe(0);
    await d.shot('run-signals-delivered.png');
    expect(d.pageErrors).toEqual([]);
  });

  it('asks for no signal list for a run that has had no signal (the open waits come from its history)', async () => {
    const { runId } = await d.call('POST', '/v1/runs', { function: 'approve', input: {} });
    const asked: string[] = [];
    const listen = (request: { url(): string }) => {
      if (request.url().includes('/signals')) asked.push(request.url());
    };
    d.page.on('request', listen);
    try {
      await d.page.goto(`${d.url}#/runs/${runId}`);
      await d.page.locator('[data-testid="signal-wait"][data-name="decision"]').waitFor();
      await d.page.locator('[data-testid="signals-empty"]').waitFor();
      // Several refreshes of the live page later, still none.
      await d.page.waitForTimeout(3_500);
      expect(asked).toEqual([]);
    } finally {
      d.page.off('request', listen);
    }
  });

  it('shows a refusal with its code when the payload is not JSON', async () => {
    const { runId } = await d.call('POST', '/v1/runs', { function: 'approve', input: {} });
    await d.page.goto(`${d.url}#/runs/${runId}`);
    await d.page.fill('[data-testid="signal-name"]', 'decision');
    await d.page.fill('[data-testid="signal-form"] [data-testid="signal-payload"]', '{nope');
    await d.page.click('[data-testid="signal-send"]');
    const error = d.page.locator('[data-testid="signal-form-message-error"]');
    await error.waitFor();
    expect(await error.textContent()).toContain('payload: not valid JSON');
  });
});
