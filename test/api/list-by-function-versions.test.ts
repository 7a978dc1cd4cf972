/**
 * Listing by function once runs record the version they started on: `durable list --function
 * orders` (the CLI, through the control API over a SQLite store, as the dev server
 * keeps runs) shows the runs of `orders:1`, `orders:2`, the alias and `$LATEST` along with old
 * unqualified ones; `--function orders:2` only those pinned to version 2; cursors page across
 * them; and `durable start --latest` asks for a run on `$LATEST`.
 */
import { createControlApi, DurableClient, toNodeListener } from '@durable-lambda/api';
import { Engine, type Invoker } from '@durable-lambda/engine';
import { SqliteStore } from '@durable-lambda/local';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliExit, runDurableCli } from '../support/durable-cli';
import { listen } from './support';

/** `durable <args>` in this process (runCli, what the binary calls). */
function durable(args: string[]): Promise<CliExit> {
  return runDurableCli(args);
}

/** The runs there are, by the name each is recorded under (pinned, on the alias, opted out, old). */
const NAMES = [
  'orders',
  'orders:1',
  'orders:1',
  'orders:2',
  'orders:live',
  'orders:2',
  'orders:$LATEST',
  'orders-eu:1',
];

/** A clock a second apart per run created, so the newest-first order is the creation order. */
let now = Date.UTC(2026, 0, 1);
const clock = { now: () => now };
const store = new SqliteStore({ path: ':memory:', clock });
const invoked: string[] = [];
const invoker: Invoker = { invoke: async (functionName) => void invoked.push(functionName) };
const engine = new Engine({ store, clock, waker: { wakeAt: async () => {} }, invoker });
/** Run ids by recorded name, and all of them in creation order. */
const byName = new Map<string, string[]>();
const created: string[] = [];
let url = '';
let close: () => Promise<void> = async () => {};

beforeAll(async () => {
  for (const [i, functionName] of NAMES.entries()) {
    // Recorded as the production backend records them.
    now += 1_000;
    const { run } = await engine.startRun({ functionName, input: JSON.stringify({ i }) });
    byName.set(functionName, [...(byName.get(functionName) ?? []), run.runId]);
    created.push(run.runId);
  }
  const server = await listen(toNodeListener(createControlApi({ engine, functions: ['orders', 'orders-eu'] })));
  url = server.url;
  close = server.close;
});

afterAll(async () => {
  await close();
  store.close();
});

const idsOf = (...names: string[]) => names.flatMap((name) => byName.get(name) ?? []);

describe('listing the runs of a function across its versions', { timeout: 120_000 }, () => {
  it('durable list --function orders shows every version; --function orders:2 only version 2', async () => {
    const [all, human, two] = await Promise.all([
      durable(['list', '--function', 'orders', '--json', '--url', url]),
      durable(['list', '--function', 'orders', '--url', url]),
      durable(['list', '--function', 'orders:2', '--json', '--url', url]),
    ]);
    for (const exit of [all, human, two]) {
      expect(exit.stderr).toBe('');
      expect(exit.code).toBe(0);
    }
    const listed = (stdout: string) =>
      (JSON.parse(stdout).runs as Array<{ runId: string; function: string }>).map((r) => [r.runId, r.function]);
    const ofOrders = NAMES.filter((name) => name !== 'orders-eu:1');
    expect(listed(all.stdout).map(([id]) => id)).toEqual(idsOf(...new Set(ofOrders)).sort(newestFirst));
    expect(new Set(listed(all.stdout).map(([, fn]) => fn))).toEqual(new Set(ofOrders));
    expect(human.stdout).toContain('orders:1');
    expect(human.stdout).toContain('orders:2');
    expect(human.stdout).not.toContain('orders-eu');
    expect(listed(two.stdout)).toEqual(
      idsOf('orders:2')
        .sort(newestFirst)
        .map((id) => [id, 'orders:2']),
    );
  });

  it('cursors page GET /v1/runs?function=orders across versions: each run once', async () => {
    const client = new DurableClient({ baseUrl: url });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listRuns({ function: 'orders', limit: 2, ...(cursor ? { cursor } : {}) });
      expect(page.runs.length).toBeLessThanOrEqual(2);
      seen.push(...page.runs.map((run) => run.runId));
      cursor = page.nextCursor;
    } while (cursor !== undefined && seen.length < 50);
    expect(seen).toEqual(idsOf('orders', 'orders:1', 'orders:2', 'orders:live', 'orders:$LATEST').sort(newestFirst));
  });

  it('durable start --latest starts a run on $LATEST, listed under orders and orders:$LATEST', async () => {
    const started = await durable(['start', 'orders', '--latest', '--json', '--url', url]);
    expect(started.stderr).toBe('');
    expect(started.code).toBe(0);
    const run = JSON.parse(started.stdout) as { runId: string; function: string };
    expect(run.function).toBe('orders:$LATEST');
    const client = new DurableClient({ baseUrl: url });
    expect((await client.listRuns({ function: 'orders:$LATEST' })).runs.map((r) => r.runId)).toContain(run.runId);
    expect((await client.listRuns({ function: 'orders' })).runs.map((r) => r.runId)).toContain(run.runId);
    expect((await client.listRuns({ function: 'orders:2' })).runs.map((r) => r.runId)).not.toContain(run.runId);
  });
});

/** Newest first: each run was created a second after the one before. */
function newestFirst(a: string, b: string): number {
  return created.indexOf(b) - created.indexOf(a);
}
