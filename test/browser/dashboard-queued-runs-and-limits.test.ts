/**
 * Flow control per key, seen in the dashboard (headless Chromium against a dev server whose
 * function has `concurrency: { key, limit: 1 }`, three runs of one key started): the runs list
 * shows the two QUEUED runs with their key and positions 1 and 2 and filters by status QUEUED and
 * by key (the key's queue in order); a QUEUED run's page shows its key, since when it waits and
 * its position; the Functions page shows the function's limit, its schedule and events route, and
 * its RUNNING and QUEUED runs, linked to the runs list filtered so.
 */
import { withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** Waits until the page's URL (its hash) holds every part. */
const hashHas = (...parts: string[]) =>
  expect.poll(() => d.page.url(), { timeout: 15_000 }).toSatisfy((url: string) => parts.every((p) => url.includes(p)));

import { type DashboardHarness, openDashboard, unnamedControls } from './dashboard-harness';

let d: DashboardHarness;
const ids: string[] = [];

beforeAll(async () => {
  const jobs = withDurableExecution(
    async (_event: unknown, ctx) => {
      await ctx.wait({ hours: 1 });
      return 'done';
    },
    { concurrency: { key: (e) => (e as { tenant: string }).tenant, limit: 1 } },
  );
  const plain = withDurableExecution(async () => 'ok');
  d = await openDashboard(
    { jobs, plain },
    { schedules: { jobs: [{ name: 'nightly', rateMs: 86_400_000, overlap: 'skip' }] } },
  );
  for (let i = 0; i < 3; i++) {
    const run = await d.call('POST', '/v1/runs', { function: 'jobs', input: { tenant: 'acme' } });
    ids.push(run.runId);
    await d.waitForStatus(run.runId, i === 0 ? 'RUNNING' : 'QUEUED');
  }
  // The first holds the key's one slot (it waits an hour), so the second and third stay queued.
  await d.waitForStatus(ids[0] as string, 'RUNNING');
}, 60_000);

afterAll(() => d?.close());

const queuedCells = () =>
  d.page.locator('[data-testid="run-row"]').evaluateAll((rows: any[]) =>
    rows.map((row) => {
      const cell = row.querySelector('[data-testid="run-queued"]');
      return [row.dataset.runId, row.dataset.status, cell?.dataset.key ?? null, cell?.dataset.position ?? null];
    }),
  );

describe('dashboard: queued runs and function limits', { timeout: 60_000 }, () => {
  it('lists the QUEUED runs with their key and positions 1 and 2, filtered by status', async () => {
    await d.page.goto(`${d.url}#/?status=QUEUED`);
    await d.page.locator('[data-testid="run-queued"]').nth(1).waitFor();
    expect((await queuedCells()).sort()).toEqual(
      [
        [ids[1], 'QUEUED', 'acme', '1'],
        [ids[2], 'QUEUED', 'acme', '2'],
      ].sort(),
    );
    expect(await d.page.locator('[data-testid="filter-status"]').inputValue()).toBe('QUEUED');
    expect(await d.page.locator('[data-testid="run-queue-position"]').allTextContents()).toContain('#1 in queue');
    await d.shot('queued-runs-list.png');
  });

  it('filters by key: the key’s queue in order, and nothing for another key', async () => {
    await d.page.goto(`${d.url}#/`);
    await d.page.locator('[data-testid="run-row"]').nth(2).waitFor();
    await d.page.locator('[data-testid="filter-status"]').selectOption('QUEUED');
    await d.page.locator('[data-testid="filter-function"]').selectOption('jobs');
    await d.page.locator('[data-testid="filter-key"]').fill('acme');
    await hashHas('key=acme');
    await d.page.locator('[data-testid="page-label"]', { hasText: 'The queue of acme' }).waitFor();
    await d.page.locator('[data-testid="run-queued"]').nth(1).waitFor();
    // Queue order: next to start first.
    expect(await queuedCells()).toEqual([
      [ids[1], 'QUEUED', 'acme', '1'],
      [ids[2], 'QUEUED', 'acme', '2'],
    ]);
    expect(await unnamedControls(d.page)).toEqual([]);
    await d.page.locator('[data-testid="filter-key"]').fill('globex');
    await d.page.locator('[data-testid="runs-empty"]').waitFor();
    // The key filter on every status: the running holder of the key too.
    await d.page.goto(`${d.url}#/?key=acme`);
    await d.page.locator('[data-testid="run-row"]').nth(2).waitFor();
    expect((await queuedCells()).map(([id, status]) => [id, status]).sort()).toEqual(
      [
        [ids[0], 'RUNNING'],
        [ids[1], 'QUEUED'],
        [ids[2], 'QUEUED'],
      ].sort(),
    );
  });

  it('shows a QUEUED run’s key, since when it waits and its position on its page', async () => {
    await d.page.goto(`${d.url}#/runs/${encodeURIComponent(ids[2] as string)}`);
    await d.page.locator('[data-testid="run-queue-position"]').waitFor();
    expect(await d.page.locator('[data-testid="run-status"]').first().textContent()).toBe('QUEUED');
    expect(await d.page.locator('[data-testid="run-concurrency-key"]').textContent()).toBe('acme');
    expect(await d.page.locator('[data-testid="run-queue-position"]').textContent()).toBe('2');
    const queuedAt = await d.page.locator('[data-testid="run-queued-at"] time').getAttribute('datetime');
    expect(Number.isNaN(Date.parse(queuedAt ?? ''))).toBe(false);
    await d.shot('queued-run-page.png');
    // The key links to its queue.
    await d.page.locator('[data-testid="run-concurrency-key"]').click();
    await hashHas('#/?', 'key=acme');
    await d.page.locator('[data-testid="run-queued"]').nth(1).waitFor();
    expect((await queuedCells()).map((row) => row[0])).toEqual([ids[1], ids[2]]);
  });

  it('shows each function’s limits, schedules and triggers, and its RUNNING and QUEUED runs linked to the list', async () => {
    await d.page.goto(`${d.url}#/functions`);
    const jobs = d.page.locator('[data-testid="function"][data-name="jobs"]');
    await jobs.locator('[data-testid="function-queued"]').waitFor();
    expect(await jobs.locator('[data-testid="function-limit"][data-kind="concurrency"]').textContent()).toBe(
      'at most 1 running per key',
    );
    expect(await jobs.locator('[data-testid="function-running"]').getAttribute('data-count')).toBe('1');
    expect(await jobs.locator('[data-testid="function-queued"]').getAttribute('data-count')).toBe('2');
    expect(await jobs.locator('[data-testid="function-schedule"]').textContent()).toBe(
      'nightly every 1 d · overlap skip',
    );
    expect(await jobs.locator('[data-testid="function-events"] code').textContent()).toBe(
      'POST /v1/functions/jobs/events',
    );
    const plain = d.page.locator('[data-testid="function"][data-name="plain"]');
    expect(await plain.locator('[data-testid="function-no-limits"]').textContent()).toBe(
      'None: its runs start as they come.',
    );
    expect(await plain.locator('[data-testid="function-queued"]').getAttribute('data-count')).toBe('0');
    await d.shot('functions-limits.png');
    await jobs.locator('[data-testid="function-queued"]').click();
    await hashHas('status=QUEUED', 'function=jobs');
    await d.page.locator('[data-testid="run-queued"]').nth(1).waitFor();
    expect((await queuedCells()).map((row) => row[0]).sort()).toEqual([ids[1], ids[2]].sort());
    expect(d.pageErrors).toEqual([]);
  });
});
