/**
 * `durable replay --function F` (CI mode, the CLI in this process) replays the runs of every version of
 * F: runs recorded as `checkout:1` and `checkout:2` (pinned, as the production backend records
 * them) and an old unqualified `checkout` run, each holding a real checkout history
 * (test/local/fixtures/recorded-checkout-v1.json), in a SQLite file as the dev server keeps runs.
 * `--function checkout:2` replays only that version's runs; a neighbour function is left out.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseRecordedRun, SqliteStore } from '@durable-lambda/local';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRecord } from '../store-conformance/fixtures';
import { type CliExit, runDurableCli } from '../support/durable-cli';
import { handlerCopy, removeHandlerCopies } from '../support/replay-handler-copies';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const recorded = parseRecordedRun(readFileSync(join(root, 'test/local/fixtures/recorded-checkout-v1.json'), 'utf8'));

function durable(args: string[]): Promise<CliExit> {
  return runDurableCli(args);
}

const dir = mkdtempSync(join(tmpdir(), 'durable-replay-pinned-'));
const db = join(dir, 'runs.sqlite');
/** Run id by the name it is recorded under. */
const NAMES = { 'checkout:1': 'run-v1', 'checkout:2': 'run-v2', checkout: 'run-old', 'checkout-eu:1': 'run-eu' };

beforeAll(async () => {
  const { run, operations } = recorded;
  // The recording's own time: its 30-minute wait is still pending, as when it was exported.
  const store = new SqliteStore({ path: db, clock: { now: () => run.updatedAt } });
  for (const [functionName, runId] of Object.entries(NAMES)) {
    const [execution, ...rest] = operations;
    if (!execution) throw new Error('the recording has no EXECUTION operation');
    const times = { createdAt: run.createdAt, updatedAt: run.updatedAt, nextWakeAt: run.updatedAt };
    await store.createRun(runRecord(runId, { functionName, input: run.input, ...times }), execution);
    const grant = await store.acquireLease(runId, run.updatedAt, run.updatedAt + 60_000, `lease-${runId}`);
    if (!grant) throw new Error('lease not granted');
    await store.commit(runId, grant.run.fence, { operations: rest, run: { leaseExpiresAt: null } });
  }
  store.close();
});

afterAll(() => {
  removeHandlerCopies();
  rmSync(dir, { recursive: true, force: true });
});

describe('durable replay --function includes runs pinned to a version', { timeout: 120_000 }, () => {
  it('replays every version of checkout (clean), and only checkout:2 for --function checkout:2 (diverged)', async () => {
    const renamed = handlerCopy('checkout', 'pinned-renamed', [["'charge-card',", "'charge-payment',"]]);
    const ci = (fn: string, handler: string) =>
      durable(['replay', '--function', fn, '--db', db, '--handler', handler, '--json']);
    const [every, two] = await Promise.all([
      ci('checkout', 'examples/checkout/handler.ts#handler'),
      ci('checkout:2', `${renamed}#handler`),
    ]);

    expect(every.stderr).toBe('');
    expect(every.code).toBe(0);
    const all = JSON.parse(every.stdout) as { clean: number; diverged: number; runs: Array<{ runId: string }> };
    expect(all).toMatchObject({ clean: 3, diverged: 0, failed: 0 });
    expect(all.runs.map((r) => r.runId).sort()).toEqual(['run-old', 'run-v1', 'run-v2']);

    expect(two.code).toBe(4);
    const pinned = JSON.parse(two.stdout) as { runs: Array<{ runId: string; divergence?: unknown }> };
    expect(pinned).toMatchObject({ clean: 0, diverged: 1, failed: 0 });
    expect(pinned.runs.map((r) => r.runId)).toEqual(['run-v2']);
    expect(pinned.runs[0]?.divergence).toMatchObject({
      kind: 'name',
      recorded: { name: 'charge-card' },
      asked: { name: 'charge-payment' },
    });
  });
});
