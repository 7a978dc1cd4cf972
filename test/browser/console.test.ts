/**
 * `durable console` in a real headless Chromium against a "deployed" control API: the API on
 * DynamoDB Local behind a front that verifies SigV4 as the IAM-auth Function URL does. The
 * console (the CLI command, credentials from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY) lists the
 * runs, shows a run's operations and completes a callback, every request signed; a console that
 * does not sign gets the front's 403 and says so. Screenshots: .artifacts/browser/console-*.png.
 */
import { mkdirSync } from 'node:fs';
import { request } from 'node:http';
import { resolve } from 'node:path';
import { DurableClient } from '@durable-lambda/api';
import { createSignedFetch } from '@durable-lambda/aws';
import { noteFunctionLimits } from '@durable-lambda/engine';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../packages/cli/src/args';
import { runConsole } from '../../packages/cli/src/console';
import { type SignedApiWorld, startSignedApiWorld, WORLD_REGION } from '../support/signed-api-world';
import { TEST_CREDENTIALS } from '../support/sigv4-verifier';
import { sharedChromium } from './chromium';

const ARTIFACTS = resolve(import.meta.dirname, '../../.artifacts/browser');
const STEP_MS = 15_000;

let world: SignedApiWorld;
let browser: Browser;
let page: Page;
let api: DurableClient;
const pageErrors: string[] = [];
const consoles: Array<{ url: string; lines: string[]; stop(): Promise<number> }> = [];

const op = (type: string, name: string) => `[data-testid="op"][data-op-type="${type}"][data-op-name="${name}"]`;

/** Runs `durable console <args>` in this process until `stop()`; resolves once it listens. */
async function startConsole(args: string[], env: Record<string, string>) {
  const lines: string[] = [];
  let stopNow: (signal: NodeJS.Signals) => void = () => {};
  const requested = new Promise<NodeJS.Signals>((done) => {
    stopNow = done;
  });
  const exit = runConsole(
    parseCommandLine(['console', '--port', '0', ...args]),
    { out: (t) => void lines.push(t), err: (t) => void lines.push(t), env },
    args[args.indexOf('--url') + 1]!,
    { stopSignals: () => ({ requested, dispose: () => {} }) },
  );
  const found = await new Promise<string>((done, fail) => {
    const poll = setInterval(() => {
      const url = lines.map((l) => /console at (http:\/\/127\.0\.0\.1:\d+)\//.exec(l)?.[1]).find(Boolean);
      if (url) {
        clearInterval(poll);
        done(url);
      }
    }, 20);
    exit.then((code) => {
      clearInterval(poll);
      fail(new Error(`durable console exited ${code}: ${lines.join('\n')}`));
    }, fail);
  });
  const started = {
    url: found,
    lines,
    stop: async () => {
      stopNow('SIGTERM');
      return exit;
    },
  };
  consoles.push(started);
  return started;
}

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  world = await startSignedApiWorld(
    {
      checkout: async (event: { sku: string }, ctx) => {
        const reserved = await ctx.step('reserve', async () => ({ sku: event.sku, shelf: 'B4' }));
        const charged = await ctx.step('charge', async () => ({ amount: 42, currency: 'EUR' }));
        return { ...reserved, ...charged };
      },
      approval: async (event: { order: string }, ctx) => {
        await ctx.step('prepare', async () => ({ order: event.order }));
        const [promise] = await ctx.createCallback('manager');
        return { order: event.order, decision: JSON.parse((await promise) as string) };
      },
      jobs: async (_event: { tenant: string }, ctx) => {
        await ctx.wait({ hours: 1 });
        return 'done';
      },
    },
    { jobs: { concurrency: { key: (e) => (e as { tenant: string }).tenant, limit: 1 } } },
  );
  // The test's own client signs as a user's script would.
  api = new DurableClient({
    baseUrl: world.front.url,
    fetch: createSignedFetch({ region: WORLD_REGION, credentials: TEST_CREDENTIALS }),
  });
  browser = await sharedChromium();
  page = await browser.newPage({ viewport: { width: 1200, height: 860 } });
  page.setDefaultTimeout(STEP_MS);
  page.on('pageerror', (error) => pageErrors.push(error.message));
}, 90_000);

afterAll(async () => {
  await page?.close();
  for (const started of consoles) await started.stop();
  await world?.close();
});

async function waitForStatus(runId: string, status: string): Promise<void> {
  await expect.poll(async () => (await api.getRun(runId)).status, { timeout: STEP_MS, interval: 100 }).toBe(status);
}

describe('durable console against a deployed (IAM-auth) API', () => {
  let checkoutId: string;
  let approvalId: string;

  it('lists the runs and shows a run with its operations, every request signed', async () => {
    checkoutId = (await api.startRun({ function: 'checkout', input: { sku: 'lamp' } })).run.runId;
    approvalId = (await api.startRun({ function: 'approval', input: { order: 'A-7' } })).run.runId;
    await waitForStatus(checkoutId, 'SUCCEEDED');
    const consoleServer = await startConsole(['--url', world.front.url, '--sign', '--region', WORLD_REGION], {
      AWS_ACCESS_KEY_ID: TEST_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: TEST_CREDENTIALS.secretAccessKey,
    });
    expect(consoleServer.lines.join('\n')).toContain('Signing requests: yes');
    const before = world.front.seen.length;

    await page.goto(`${consoleServer.url}/`);
    expect(await page.getByTestId('console-api').textContent()).toContain(new URL(world.front.url).host);
    await page.locator(`[data-testid="run-row"][data-run-id="${checkoutId}"][data-status="SUCCEEDED"]`).waitFor();
    await page.locator(`[data-testid="run-row"][data-run-id="${approvalId}"][data-status="RUNNING"]`).waitFor();
    await page.screenshot({ path: resolve(ARTIFACTS, 'console-runs.png'), fullPage: true });

    await page.locator('[data-testid="run-link"]', { hasText: checkoutId }).click();
    await page.locator(`${op('STEP', 'reserve')}[data-op-status="SUCCEEDED"]`).waitFor();
    await page.locator(`${op('STEP', 'charge')}[data-op-status="SUCCEEDED"]`).waitFor();
    expect(await page.locator(`${op('STEP', 'reserve')} [data-testid="op-result"]`).textContent()).toContain('B4');
    expect(JSON.parse((await page.getByTestId('run-result').textContent())!)).toMatchObject({
      sku: 'lamp',
      amount: 42,
    });
    await page.screenshot({ path: resolve(ARTIFACTS, 'console-run.png'), fullPage: true });

    const seen = world.front.seen.slice(before);
    expect(seen.some((s) => s.path === '/v1/runs')).toBe(true);
    expect(seen.some((s) => s.path === `/v1/runs/${checkoutId}/operations`)).toBe(true);
    expect(seen.filter((s) => s.refused)).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it("downloads a deployed run's raw history, finds runs by content, and lists the functions", async () => {
    const url = consoles[0]!.url;
    // The raw history: the file `durable export` prints, read through the signed proxy from DynamoDB.
    await page.goto(`${url}/#/runs/${encodeURIComponent(checkoutId)}`);
    await page.getByTestId('raw-summary').click();
    const json = page.getByTestId('raw-json');
    await json.waitFor();
    const file = JSON.parse((await json.textContent())!);
    expect(file).toMatchObject({
      format: 'durable-lambda/recorded-run',
      run: { runId: checkoutId, status: 'SUCCEEDED' },
    });
    expect(file.operations.map((o: { Name?: string }) => o.Name).filter(Boolean)).toEqual(['reserve', 'charge']);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('raw-download').click()]);
    expect(download.suggestedFilename()).toBe(`${checkoutId}.json`);

    // Search by content: the checkout's input names the lamp.
    await page.goto(`${url}/#/?contains=lamp`);
    await page.locator(`[data-testid="run-row"][data-run-id="${checkoutId}"]`).waitFor();
    expect(await page.locator('[data-testid="run-row"]').count()).toBe(1);

    await page.goto(`${url}/#/functions`);
    await page.locator('[data-testid="function"][data-name="checkout"] [data-testid="function-counts"]').waitFor();
    const seen = world.front.seen.filter((s) => s.path === `/v1/runs/${checkoutId}/export`);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((s) => s.refused)).toEqual([]);
    await page.screenshot({ path: resolve(ARTIFACTS, 'console-functions.png'), fullPage: true });
    expect(pageErrors).toEqual([]);
  });

  it("shows a key's QUEUED runs with their positions and the function's recorded limits, from the deployed table", async () => {
    const url = consoles[0]!.url;
    // What the engine records when the code declaring the limit admits a run (a deployed API
    // never loads the handler's code: it reads the record from the table).
    await noteFunctionLimits(world.engine.store, 'jobs', { concurrency: { limit: 1 } }, { now: () => Date.now() });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { run } = await api.startRun({ function: 'jobs', input: { tenant: 'initech' } });
      ids.push(run.runId);
      await waitForStatus(run.runId, i === 0 ? 'RUNNING' : 'QUEUED');
    }
    await page.goto(`${url}/#/?status=QUEUED&function=jobs&key=initech`);
    await page.locator('[data-testid="run-queued"]').nth(1).waitFor();
    const cells = await page
      .locator('[data-testid="run-queued"]')
      .evaluateAll((els: any[]) => els.map((el) => [el.dataset.key, el.dataset.position]));
    expect(cells).toEqual([
      ['initech', '1'],
      ['initech', '2'],
    ]);
    expect(
      await page.locator('[data-testid="run-row"]').evaluateAll((rows: any[]) => rows.map((r) => r.dataset.runId)),
    ).toEqual([ids[1], ids[2]]);

    await page.goto(`${url}/#/functions`);
    const jobs = page.locator('[data-testid="function"][data-name="jobs"]');
    await jobs.locator('[data-testid="function-queued"]').waitFor();
    expect(await jobs.locator('[data-testid="function-limit"][data-kind="concurrency"]').textContent()).toBe(
      'at most 1 running per key',
    );
    expect(await jobs.locator('[data-testid="function-queued"]').getAttribute('data-count')).toBe('2');
    expect(await jobs.locator('[data-testid="function-running"]').getAttribute('data-count')).toBe('1');
    await page.screenshot({ path: resolve(ARTIFACTS, 'console-queued-functions.png'), fullPage: true });
    expect(pageErrors).toEqual([]);
  });

  it('completes a callback from the page: the signed POST carries its Idempotency-Key', async () => {
    const url = consoles[0]!.url;
    await page.goto(`${url}/#/runs/${encodeURIComponent(approvalId)}`);
    const callback = page.locator(`${op('CALLBACK', 'manager')}[data-op-status="STARTED"]`);
    await callback.waitFor();
    const before = world.front.seen.length;
    await callback.getByTestId('callback-result').fill(JSON.stringify({ approved: true }));
    await callback.getByTestId('callback-complete').click();
    await page.locator('.run-title [data-testid="run-status"]', { hasText: 'SUCCEEDED' }).waitFor();
    expect(JSON.parse((await page.getByTestId('run-result').textContent())!)).toEqual({
      order: 'A-7',
      decision: { approved: true },
    });
    const post = world.front.seen.slice(before).find((s) => s.method === 'POST');
    expect(post?.path).toMatch(/^\/v1\/callbacks\/.+\/succeed$/);
    expect(post?.refused).toBeUndefined();
    expect(post?.signedHeaders).toEqual(expect.arrayContaining(['idempotency-key', 'x-amz-content-sha256']));
    await page.screenshot({ path: resolve(ARTIFACTS, 'console-callback-completed.png'), fullPage: true });
  });

  it('shows what a deployed run consumed, kept current as its meter grows', async () => {
    const url = consoles[0]!.url;
    await page.goto(`${url}/#/runs/${encodeURIComponent(checkoutId)}`);
    const meter = page.getByTestId('run-facts').getByTestId('run-meter');
    await meter.getByTestId('meter-invocations').waitFor();
    expect(await meter.getByTestId('meter-invocations').textContent()).toBe('1 invocation');
    // What a production invocation adds with its close (see test/aws/run-meter.dynamodb.test.ts):
    // DynamoDB units, SQS requests, memory. Written as its close would, the page shows it.
    const run = await world.engine.store.getRun(checkoutId);
    await world.engine.store.commit(checkoutId, run?.fence ?? 0, {
      operations: [],
      run: { meter: { mbMs: 1024 * 1_000, wru: 9, rru: 2.5, sqsRequests: 3, schedulerInvocations: 1 } },
    });
    await meter.getByTestId('meter-wru').waitFor();
    expect(await meter.getByTestId('meter-wru').textContent()).toBe('9 WRU');
    expect(await meter.getByTestId('meter-rru').textContent()).toBe('2.5 RRU');
    expect(await meter.getByTestId('meter-sqs').textContent()).toBe('3 SQS requests');
    expect(await meter.getByTestId('meter-scheduler').textContent()).toBe('1 Scheduler invocation');
    expect(await meter.getByTestId('meter-billed').textContent()).toMatch(/ ms billed \(1 GB-s\)$/);
    expect(await meter.getByTestId('meter-not-measured').count()).toBe(0);
    expect((await api.getRun(checkoutId)).meter).toMatchObject({ invocations: 1, wru: 9, rru: 2.5 });
    await page.screenshot({ path: resolve(ARTIFACTS, 'console-run-meter.png'), fullPage: true });
    expect(pageErrors).toEqual([]);
  });

  it('refuses an unsigned console: the front answers 403 and the page says why', async () => {
    const unsigned = await startConsole(['--url', world.front.url], {});
    expect(unsigned.lines.join('\n')).toContain('Signing requests: no');
    await page.goto(`${unsigned.url}/`);
    const error = page.getByTestId('runs-error');
    await error.filter({ hasText: 'forbidden' }).waitFor();
    expect(await error.textContent()).toContain('lambda:InvokeFunctionUrl');
    expect(await page.locator('[data-testid="run-row"]').count()).toBe(0);
    expect(world.front.seen.at(-1)?.refused).toBe('no Authorization header');
    await page.screenshot({ path: resolve(ARTIFACTS, 'console-unsigned-refused.png'), fullPage: true });
  });

  it('answers only its own page: another origin or host name is refused before anything is signed', async () => {
    await page.goto('about:blank'); // the page polls: keep its requests out of the count
    const url = consoles[0]!.url;
    const before = world.front.seen.length;
    const crossSite = await fetch(`${url}/v1/runs/${approvalId}/cancel`, {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'idempotency-key': 'k' },
    });
    expect(crossSite.status).toBe(403);
    expect(((await crossSite.json()) as { error: { code: string } }).error.code).toBe('cross_origin');
    // A page of another site whose name was made to resolve to 127.0.0.1 (DNS rebinding).
    const rebound = await new Promise<number | undefined>((done, fail) => {
      const req = request(`${url}/v1/runs`, { headers: { host: 'attacker.example' } }, (res) => {
        res.resume();
        done(res.statusCode);
      });
      req.on('error', fail);
      req.end();
    });
    expect(rebound).toBe(403);
    expect(world.front.seen.length).toBe(before);
  });
});
