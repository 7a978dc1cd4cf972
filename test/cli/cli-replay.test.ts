import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createControlApi, DurableClient, exportRunFromApi, toNodeListener } from '@durable-lambda/api';
import {
  LocalRuntime,
  parseRecordedRun,
  recordRunFromStore,
  replayRecordedRun,
  SqliteStore,
} from '@durable-lambda/local';
import { withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeApprovalServices, sampleRequest } from '../../examples/approval/fakes';
import { createApprovalHandler } from '../../examples/approval/handler';
import { fakeCheckoutServices, sampleOrder } from '../../examples/checkout/fakes';
import { createCheckoutHandler } from '../../examples/checkout/handler';
import { listen } from '../api/support';
import { type CliExit, runDurableCli } from '../support/durable-cli';
import { handlerCopy, removeHandlerCopies } from '../support/replay-handler-copies';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const current = 'examples/checkout/handler.ts#handler';
const fixture = join(root, 'test/local/fixtures/recorded-checkout-v1.json');

/** `durable <args>` in this process (runCli, what the binary calls). */
function durable(args: string[]): Promise<CliExit> {
  return runDurableCli(args);
}

const dir = mkdtempSync(join(tmpdir(), 'durable-cli-replay-'));
const db = join(dir, 'runs.sqlite');
let store: SqliteStore;
let runtime: LocalRuntime;
let url = '';
let close: () => Promise<void> = async () => {};
/** A checkout waiting out its 30-minute cancellation window, and one that failed on a bad order. */
let waiting = '';
let failed = '';
/** An approval waiting for its approver (a callback raced by reminders in a parallel). */
let approving = '';
/** A run of more operations than one history page holds (100 by default). */
let long = '';
const many = withDurableExecution(async (_event: unknown, ctx) => {
  let sum = 0;
  for (let i = 0; i < 130; i++) sum += await ctx.step(`s${i}`, async () => i);
  return sum;
});

beforeAll(async () => {
  // Real runs of the example, in the dev server's kind of store (SQLite), served by the control API.
  store = new SqliteStore({ path: db });
  runtime = new LocalRuntime({
    store,
    functions: new Map([
      ['checkout', createCheckoutHandler(fakeCheckoutServices().services)],
      ['approval', createApprovalHandler(fakeApprovalServices().services)],
      ['many', many],
    ]),
    overrides: { logSink: () => {} },
  });
  await runtime.start();
  failed = (await runtime.startRun('checkout', { ...sampleOrder(), lines: [] })).runId;
  waiting = (await runtime.startRun('checkout', sampleOrder())).runId;
  approving = (await runtime.startRun('approval', sampleRequest())).runId;
  long = (await runtime.startRun('many', {})).runId;
  expect((await runtime.waitForRun(long)).status).toBe('SUCCEEDED');
  expect((await runtime.waitForRun(failed)).status).toBe('FAILED');
  for (let i = 0; ; i++) {
    const ops = await store.loadOperations(waiting);
    const run = await store.getRun(waiting);
    if (ops.some((op) => op.Name === 'cancellation-window') && run?.leaseExpiresAt === undefined) break;
    if (i > 500) throw new Error('the checkout never reached its wait');
    await new Promise((r) => setTimeout(r, 20));
  }
  const api = createControlApi({ engine: runtime.engine, functions: ['checkout', 'approval'] });
  const server = await listen(toNodeListener(api));
  url = server.url;
  close = server.close;
});

afterAll(async () => {
  removeHandlerCopies();
  await close();
  await runtime.stop();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('durable export and durable replay (the CLI)', { timeout: 120_000 }, () => {
  it('exports a run through the API to a file that replays cleanly; a run id replays through the API', async () => {
    const exported = await durable(['export', waiting, '--url', url]);
    expect(exported.stderr).toBe('');
    expect(exported.code).toBe(0);
    const file = parseRecordedRun(exported.stdout);
    expect(file).toMatchObject({ source: 'api', run: { runId: waiting, functionName: 'checkout', status: 'RUNNING' } });
    expect(file.operations.map((op) => op.Name).filter(Boolean)).toContain('charge-card');
    const path = join(dir, 'waiting.json');
    writeFileSync(path, exported.stdout);
    // The "old history" test/local/replay-recorded.test.ts replays: regenerated only on request.
    if (process.env.DURABLE_UPDATE_REPLAY_FIXTURE === '1') writeFileSync(fixture, `${exported.stdout}\n`);

    const renamed = handlerCopy('checkout', 'cli-renamed-api', [["'charge-card',", "'charge-payment',"]]);
    const [replayed, fromApi] = await Promise.all([
      durable(['replay', path, '--handler', current]),
      // A run id instead of a file: read through the API, replayed on a renamed step.
      durable(['replay', waiting, '--url', url, '--handler', `${renamed}#handler`, '--json']),
    ]);
    expect(replayed.stderr).toBe('');
    expect(replayed.code).toBe(0);
    expect(replayed.stdout).toMatch(/1 clean, 0 diverged, 0 failed/);
    expect(fromApi.code).toBe(4);
    const [run] = JSON.parse(fromApi.stdout).runs;
    expect(run.divergence).toMatchObject({
      kind: 'name',
      recorded: { name: 'charge-card', type: 'STEP', position: 3 },
      asked: { name: 'charge-payment', type: 'STEP', position: 3 },
    });
  });

  it('CI mode over the SQLite file: exit 4 naming both operations for a renamed step, 0 for a compatible change', async () => {
    const renamed = handlerCopy('checkout', 'cli-renamed', [["'charge-card',", "'charge-payment',"]]);
    const logged = handlerCopy('checkout', 'cli-compatible', [
      ['const { orderId } = order;', "const { orderId } = order;\n    ctx.logger.info('validated', { orderId });"],
    ]);
    const ci = (handler: string, ...more: string[]) =>
      durable(['replay', '--function', 'checkout', '--db', db, '--handler', `${handler}#handler`, ...more]);
    const [bad, ok] = await Promise.all([ci(renamed), ci(logged, '--json')]);

    expect(bad.stderr).toBe('');
    expect(bad.code).toBe(4);
    // The running run passed the charge; the failed one never got there and still replays.
    expect(bad.stdout).toMatch(/1 clean, 1 diverged, 0 failed/);
    expect(bad.stdout).toMatch(/DIVERGED.*the record has STEP "charge-card", the code asked for STEP "charge-payment"/);

    expect(ok.code).toBe(0);
    const report = JSON.parse(ok.stdout);
    expect(report).toMatchObject({ clean: 2, diverged: 0, failed: 0 });
    expect(report.runs.map((r: { runId: string }) => r.runId).sort()).toEqual([failed, waiting].sort());
  });

  it('an export through the API holds the operations as stored, every page of them, and replays cleanly', async () => {
    for (let i = 0; !(await store.getRun(approving))?.nextWakeAt; i++) {
      if (i > 500) throw new Error('the approval never started waiting');
      await new Promise((r) => setTimeout(r, 20));
    }
    const fromApi = await exportRunFromApi(new DurableClient({ baseUrl: url }), approving);
    const fromStore = await recordRunFromStore(store, approving);
    expect(fromApi.operations.map((op) => op.SubType)).toContain('Parallel');
    // Byte for byte (the README names what the API cannot show: none of it is in this run).
    expect(fromApi.operations).toEqual(fromStore.operations);
    const report = await replayRecordedRun(createApprovalHandler(fakeApprovalServices().services), fromApi);
    expect(report).toMatchObject({ outcome: 'clean', reached: 'frontier' });

    // A history of several pages: the export follows the cursor to the last one.
    const client = new DurableClient({ baseUrl: url });
    expect((await client.getOperations(long)).nextCursor).toBeDefined();
    const longFile = await exportRunFromApi(client, long);
    expect(longFile.operations).toHaveLength(131);
    expect(longFile.operations).toEqual((await recordRunFromStore(store, long)).operations);
    expect(await replayRecordedRun(many, longFile)).toMatchObject({ outcome: 'clean', reached: 'end' });
  });

  it('says what is wrong with a bad file or handler, with exit code 2', async () => {
    const path = join(dir, 'bad.json');
    writeFileSync(
      path,
      JSON.stringify({ format: 'durable-lambda/recorded-run', version: 1, exportedAt: 'x', source: 'api' }),
    );
    const [badFile, badHandler] = await Promise.all([
      durable(['replay', path, '--handler', current]),
      durable(['replay', path, '--handler', 'examples/checkout/handler.ts#nope']),
    ]);
    expect(badFile.code).toBe(2);
    expect(badFile.stderr).toMatch(/run: must be an object \[invalid_recorded_run\]/);
    expect(badHandler.code).toBe(2);
    expect(badHandler.stderr).toMatch(/no function export "nope"/);
  });
});
