/**
 * `durable show` with a run's meter, and `durable cost`, against a real control API over a memory
 * store seeded with runs whose meters are known (as invocations on AWS and on the dev server would
 * have written them), so every figure can be checked against the list prices.
 */
import { createControlApi, toNodeListener } from '@durable-lambda/api';
import { Engine, MemoryStore, type RunMeterIncrement, type RunRecord } from '@durable-lambda/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIST_PRICES } from '../../packages/api/src/cost/list-prices';
import { MONTH_MS } from '../../packages/api/src/cost/run-cost';
import { listen } from '../api/support';
import { runDurableCli } from '../support/durable-cli';

const HOUR = 3_600_000;
const store = new MemoryStore();
const engine = new Engine({ store, waker: { wakeAt: async () => {} } });

/** A run of `functionName` created `hoursAgo`, ended (or still running) with `meter` written by its closes. */
async function seed(runId: string, functionName: string, hoursAgo: number, meter?: RunMeterIncrement, running = false) {
  const createdAt = Date.now() - hoursAgo * HOUR;
  const run: RunRecord = {
    runId,
    functionName,
    status: 'RUNNING',
    createdAt,
    updatedAt: createdAt,
    fence: 0,
    nextWakeAt: createdAt,
    invocations: 0,
    lostInvocations: 0,
    eventSeq: 0,
    handledEventSeq: 0,
  };
  await store.createRun(run, { Id: '0', Type: 'EXECUTION', Status: 'STARTED', StartTimestamp: createdAt });
  const grant = await store.acquireLease(runId, Date.now(), Date.now() + 60_000, `token-${runId}`);
  const end = running ? {} : { status: 'SUCCEEDED' as const, endedAt: Date.now() };
  await store.commit(runId, grant?.run.fence ?? 0, {
    operations: [],
    run: { ...end, leaseExpiresAt: null, ...(meter ? { meter } : {}) },
  });
}

/** Two ended runs on AWS, one still running (its meter is not complete: left out of the averages). */
const A = { invocations: 2, billedMs: 1_000, mbMs: 1_000 * 1024, wru: 20, rru: 2, sqsRequests: 3 };
const B = {
  invocations: 4,
  billedMs: 3_000,
  mbMs: 3_000 * 1024,
  wru: 30,
  rru: 4,
  sqsRequests: 3,
  schedulerRequests: 1,
  schedulerInvocations: 1,
};

let url = '';
let close: () => Promise<void> = async () => {};
beforeAll(async () => {
  await seed('orders-1', 'orders', 4, A);
  await seed('orders-2', 'orders:7', 2, B);
  await seed('orders-3', 'orders', 1, { invocations: 1, billedMs: 500, wru: 9 }, true);
  // On the dev server: invocations and duration only.
  await seed('local-1', 'local', 3, { invocations: 3, billedMs: 600 });
  await seed('busy-1', 'busy', 1, undefined, true);
  const server = await listen(toNodeListener(createControlApi({ engine, functions: ['orders', 'local', 'busy'] })));
  url = server.url;
  close = server.close;
});
afterAll(() => close());

const durable = (...args: string[]) => runDurableCli([...args, '--url', url]);

describe('durable show: what a run consumed', () => {
  it('prints the meter of a run metered on AWS, and the API answers it in the run JSON', async () => {
    const shown = await durable('show', 'orders-2');
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(
      /^consumed\s+4 invocations, 3,000 ms billed \(3 GB-s\), 30 WRU, 4 RRU, 3 SQS requests, 1 Scheduler invocations, 1 Scheduler API calls$/m,
    );
    expect(JSON.parse((await durable('show', 'orders-2', '--json')).stdout).meter).toEqual(B);
  });

  it('says what the dev server does not measure instead of showing zeros', async () => {
    const shown = await durable('show', 'local-1');
    expect(shown.stdout).toMatch(
      /^consumed\s+3 invocations, 600 ms billed; DynamoDB, Scheduler and SQS not measured here$/m,
    );
    // A run no invocation has closed yet has no meter.
    expect((await durable('show', 'busy-1')).stdout).not.toMatch(/^consumed/m);
  });
});

describe('durable cost', () => {
  it('averages the ended runs of every version of the function and prices a month at list prices', async () => {
    const answer = await durable('cost', 'orders', '--json', '--runs-per-month', '1000000');
    expect(answer.stderr).toBe('');
    expect(answer.code).toBe(0);
    const estimate = JSON.parse(answer.stdout);
    expect(estimate).toMatchObject({
      function: 'orders',
      runsRead: 3,
      runsAveraged: 2,
      runsPerMonth: 1_000_000,
      runsPerMonthSource: 'given',
      memoryMb: 1024,
      memorySource: 'measured',
      awsMeasured: true,
    });
    const perRun = Object.fromEntries(
      estimate.items.map((item: { item: string; perRun: number }) => [item.item, item.perRun]),
    );
    expect(perRun).toEqual({
      'Lambda requests': 3,
      'Lambda duration (Arm)': 2,
      'DynamoDB writes': 25,
      'DynamoDB reads': 3,
      'EventBridge Scheduler': 0.5,
      SQS: 3,
    });
    const expected =
      3 * LIST_PRICES.lambdaRequest.usd +
      2 * LIST_PRICES.lambdaArmGbSecond.usd +
      25 * LIST_PRICES.dynamodbWrite.usd +
      3 * LIST_PRICES.dynamodbRead.usd +
      0.5 * LIST_PRICES.schedulerInvocation.usd +
      3 * LIST_PRICES.sqsRequest.usd;
    expect(estimate.perRunUsd).toBeCloseTo(expected, 12);
    expect(estimate.monthlyUsd).toBeCloseTo(expected * 1e6, 6);
    expect(estimate.per1MRunsUsd).toBeCloseTo(expected * 1e6, 6);
  });

  it('observes the monthly run count from the runs read, and prices another memory with --memory', async () => {
    const estimate = JSON.parse((await durable('cost', 'orders', '--json', '--memory', '2048')).stdout);
    // Three runs from 4 hours ago to now.
    expect(estimate.runsPerMonthSource).toBe('observed');
    expect(estimate.runsPerMonth).toBeCloseTo((3 / (4 * HOUR)) * MONTH_MS, 0);
    expect(estimate).toMatchObject({ memoryMb: 2048, memorySource: 'given' });
    // (1 s + 3 s) / 2 at 2 GB.
    expect(estimate.items[1]).toMatchObject({ item: 'Lambda duration (Arm)', perRun: 4 });
    // --since narrows what is read: only the run of the last 90 minutes, still running.
    const recent = await durable('cost', 'orders', '--since', '90m');
    expect(recent.code).toBe(1);
    expect(recent.stderr).toMatch(/no ended run of "orders" with a meter among the 1 read.*\[no_metered_runs\]/);
  });

  it('prints the estimate for people, with what it leaves out and where the prices come from', async () => {
    const answer = await durable('cost', 'orders', '--runs-per-month', '10000');
    expect(answer.code).toBe(0);
    expect(answer.stdout).toMatch(/^Cost of orders: US East list prices, no free tier, averaged over 2 ended runs$/m);
    expect(answer.stdout).toMatch(/^Runs a month: 10,000 \(given\)$/m);
    expect(answer.stdout).toMatch(/^ITEM\s+PER RUN\s+PRICE\s+A MONTH$/m);
    expect(answer.stdout).toMatch(
      /^DynamoDB writes\s+25 write request units\s+\$0\.63 per 1M write request units\s+\$0\.16$/m,
    );
    expect(answer.stdout).toMatch(/^Total: .* a run, .* a month, .* per 1M runs$/m);
    expect(answer.stdout).toMatch(/^Not counted: DynamoDB storage/m);
    expect(answer.stdout).toContain('https://aws.amazon.com/dynamodb/pricing/on-demand/');
  });

  it('prices only invocations and duration for runs of the dev server, at an assumed memory', async () => {
    const estimate = JSON.parse((await durable('cost', 'local', '--json', '--runs-per-month', '100')).stdout);
    expect(estimate).toMatchObject({ awsMeasured: false, memoryMb: 1024, memorySource: 'assumed' });
    expect(estimate.items.map((item: { perRun: number | null }) => item.perRun)).toEqual([
      3,
      0.6,
      null,
      null,
      null,
      null,
    ]);
    const text = (await durable('cost', 'local', '--runs-per-month', '100')).stdout;
    expect(text).toMatch(/^DynamoDB writes\s+not measured/m);
    expect(text).toMatch(/^Memory: 1024 MB \(assumed/m);
  });

  it('refuses what it cannot estimate from with a stable code: exit 1', async () => {
    const unknown = await durable('cost', 'nobody');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('durable cost: no runs of a function named "nobody" [unknown_function]\n');
    const busy = await durable('cost', 'busy');
    expect(busy.code).toBe(1);
    expect(busy.stderr).toMatch(/\[no_metered_runs\]/);
  });

  it('refuses bad numbers naming the option: exit 2, before reading anything', async () => {
    const cases: Array<[string[], string]> = [
      [['--runs', '0'], 'runs'],
      [['--runs', '1.5'], 'runs'],
      [['--runs', '1001'], 'runs'],
      [['--memory', '64'], 'memory'],
      [['--memory', 'lots'], 'memory'],
      [['--runs-per-month=-1'], 'runs-per-month'],
      [['--since', 'tomorrow'], 'since'],
      [['--since', new Date(Date.now() + HOUR).toISOString()], 'since'],
    ];
    for (const [args, option] of cases) {
      const answer = await durable('cost', 'orders', ...args);
      expect(answer.code, args.join(' ')).toBe(2);
      expect(answer.stderr).toMatch(new RegExp(`^durable cost: --${option}: must be .*\\[invalid_option\\]$`, 'm'));
    }
    // Usage errors of the command line itself.
    expect((await durable('cost')).code).toBe(2);
    expect((await durable('cost', 'orders', '--input', '{}')).code).toBe(2);
  });
});
