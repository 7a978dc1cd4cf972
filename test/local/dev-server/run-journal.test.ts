/**
 * What the dev server keeps of each run besides its operations, in the SQLite file (schema
 * version 3): the log lines of its handler by step and attempt (within a size cap per run, the
 * oldest dropped and counted), its invocations and its retries; and what the API makes of them:
 * logs per operation, invocation boundaries, durations that never span a retry of the run, and
 * a search by part of a run id or run key. A file of schema version 2 gets the new tables.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createControlApi, type OperationListWire, type RunWire } from '@durable-lambda/api';
import { Engine } from '@durable-lambda/engine';
import { type DevServer, SqliteStore, startDevServer, VirtualClock } from '@durable-lambda/local';
import {
  type DurableLambdaHandler,
  finishOpened,
  getDurableEntry,
  type LogEntry,
  NonRetriableError,
  withDurableExecution,
} from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawDatabase } from '../sqlite/raw-sqlite';

const dir = mkdtempSync(join(tmpdir(), 'durable-journal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until<T>(probe: () => Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(50);
  }
}

describe('the dev server keeps each run’s log lines, by step and attempt', () => {
  const ownSink: LogEntry[] = [];
  const chatty = withDurableExecution(
    async (event: { order: string }, ctx) => {
      ctx.logger.info('checkout started', { order: event.order });
      const charged = await ctx.step(
        'charge',
        async (step) => {
          step.logger.info(`charging, attempt ${step.attempt}`);
          if (step.attempt === 1) {
            step.logger.warn('card declined');
            throw new Error('card declined');
          }
          return 'ch_1';
        },
        { retry: { maxAttempts: 2, initialMs: 0 } },
      );
      await ctx.wait('settle', { seconds: 1 });
      ctx.logger.info('checkout done');
      return charged;
    },
    { logSink: (entry) => void ownSink.push(entry), inProcessWaitMs: 0 },
  );
  let server: DevServer;

  beforeAll(async () => {
    server = await startDevServer({
      functions: { chatty },
      port: 0,
      db: join(dir, 'logs.sqlite'),
      log: () => {},
    });
  });
  afterAll(() => server?.stop());

  it('shows them under each step attempt and the run, still hands them to the function’s own sink, and records the invocations', async () => {
    const started = await fetch(`${server.url}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ function: 'chatty', input: { order: 'A-1' } }),
    });
    const run = (await started.json()) as RunWire;
    await until(async () => {
      const current = (await (await fetch(`${server.url}/v1/runs/${run.runId}`)).json()) as RunWire;
      return current.status === 'SUCCEEDED';
    });
    const history = (await (await fetch(`${server.url}/v1/runs/${run.runId}/operations`)).json()) as OperationListWire;
    const charge = history.operations.find((op) => op.name === 'charge');
    expect(charge?.logs?.map((log) => [log.attempt, log.level, log.message])).toEqual([
      [1, 'info', 'charging, attempt 1'],
      [1, 'warn', 'card declined'],
      [2, 'info', 'charging, attempt 2'],
    ]);
    // The context logger's lines: once each, not again at every replay.
    expect(history.logs?.map((log) => log.message)).toEqual(['checkout started', 'checkout done']);
    expect(history.logs?.[0]?.data).toEqual({ order: 'A-1' });
    expect(history.logsDropped).toBe(0);
    expect(ownSink.map((entry) => entry.message)).toEqual([
      'checkout started',
      'charging, attempt 1',
      'card declined',
      'charging, attempt 2',
      'checkout done',
    ]);
    // Two invocations: before the wait, and after it; each with its start and end.
    expect(history.invocations?.map((inv) => inv.number)).toEqual([1, 2]);
    for (const inv of history.invocations ?? []) {
      expect(Date.parse(inv.endedAt as string)).toBeGreaterThanOrEqual(Date.parse(inv.startedAt));
    }
    const [first, second] = history.invocations ?? [];
    const settle = history.operations.find((op) => op.name === 'settle');
    expect(Date.parse(settle?.startedAt as string)).toBeLessThanOrEqual(Date.parse(first?.endedAt as string));
    expect(Date.parse(second?.startedAt as string)).toBeGreaterThanOrEqual(Date.parse(settle?.endedAt as string));
  });
});

describe('SqliteStore run journal', () => {
  it('keeps at most the cap of log bytes per run: the oldest lines go, and are counted', () => {
    const store = new SqliteStore({ path: join(dir, 'cap.sqlite'), journal: { logBytesPerRun: 2_000 } });
    try {
      for (let i = 0; i < 100; i++)
        store.appendLog({ runId: 'r1', level: 'info', message: `line ${i} ${'x'.repeat(40)}` });
      store.appendLog({ runId: 'r2', level: 'info', message: 'other run' });
      const journal = store.readRunJournal('r1');
      const bytes = journal.logs.reduce(
        (sum, log) => sum + Buffer.byteLength(JSON.stringify({ message: log.message })),
        0,
      );
      expect(bytes).toBeLessThanOrEqual(2_000);
      expect(journal.logs.length).toBeGreaterThan(10);
      expect(journal.logsDropped).toBe(100 - journal.logs.length);
      expect(journal.logs.at(-1)?.message).toMatch(/^line 99 /);
      expect(journal.logs[0]?.message).toMatch(new RegExp(`^line ${journal.logsDropped} `));
      expect(store.readRunJournal('r2').logs.map((log) => log.message)).toEqual(['other run']);
    } finally {
      store.close();
    }
  });

  it('cuts a very long message and keeps unserializable data as text', () => {
    const store = new SqliteStore({ path: ':memory:', journal: { maxMessageChars: 10 } });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    store.appendLog({ runId: 'r', level: 'error', message: 'a'.repeat(50), data: cyclic });
    const [log] = store.readRunJournal('r').logs;
    expect(log?.message).toBe(`${'a'.repeat(10)}…`);
    expect(typeof log?.data).toBe('string');
    store.close();
  });

  it('gives a file of schema version 2 the journal tables when it is opened', () => {
    const file = join(dir, 'v2.sqlite');
    new SqliteStore({ path: file }).close();
    const db = rawDatabase(file);
    db.exec(`DROP TABLE run_logs; DROP TABLE run_log_totals; DROP TABLE run_invocations; DROP TABLE run_retries;
             DELETE FROM schema_version WHERE version >= 3`);
    db.close();
    const reopened = new SqliteStore({ path: file });
    try {
      reopened.appendLog({ runId: 'r', level: 'info', message: 'after the migration' });
      expect(reopened.readRunJournal('r').logs.map((log) => log.message)).toEqual(['after the migration']);
    } finally {
      reopened.close();
    }
    const check = rawDatabase(file, { readonly: true });
    expect(
      (check.prepare('SELECT MAX(version) AS v FROM schema_version').get() as { v: number }).v,
    ).toBeGreaterThanOrEqual(3);
    check.close();
  });
});

describe('durations after a retry of the run, on the recorded invocations', () => {
  it('shows a step that ran at once after the retry as taking no time, not the minutes since the failure', async () => {
    const clock = new VirtualClock(Date.UTC(2026, 0, 1, 9));
    const store = new SqliteStore({ path: ':memory:', clock });
    const engine = new Engine({ store, clock, waker: { wakeAt: async () => {} } });
    let healthy = false;
    const handler: DurableLambdaHandler = withDurableExecution(
      async (_event, ctx) =>
        ctx.step('fetch', async () => {
          if (!healthy) throw new NonRetriableError('service down');
          return 'ok';
        }),
      { logSink: () => {} },
    );
    const drive = async (runId: string) => {
      const session = await engine.openRun(runId);
      if (!session) throw new Error('nothing to run');
      await finishOpened(session, await getDurableEntry(handler).execute(session, { functionName: 'fn' }));
    };
    const { run } = await engine.startRun({ functionName: 'fn' });
    await drive(run.runId);
    expect((await engine.getRun(run.runId))?.status).toBe('FAILED');

    clock.advanceBy(4 * 60_000);
    healthy = true;
    await engine.retryRun(run.runId);
    await drive(run.runId);
    expect((await engine.getRun(run.runId))?.status).toBe('SUCCEEDED');

    const api = createControlApi({ engine, functions: ['fn'], onError: () => {} });
    const answer = await api.handle({ method: 'GET', path: `/v1/runs/${run.runId}/operations` });
    const history = JSON.parse(answer.body) as OperationListWire;
    const step = history.operations.find((op) => op.name === 'fetch');
    expect(Date.parse(step?.endedAt as string) - Date.parse(step?.startedAt as string)).toBe(4 * 60_000);
    expect(step?.durationMs).toBe(0);
    expect(history.retriedAt).toEqual([new Date(clock.now()).toISOString()]);
    expect(history.invocations?.map((inv) => inv.number)).toEqual([1, 2]);
    store.close();
  });
});

describe('search on the SQLite store', () => {
  it('finds runs by part of their id or run key, case-insensitively, with % and _ taken literally', async () => {
    const store = new SqliteStore({ path: ':memory:' });
    const engine = new Engine({ store, waker: { wakeAt: async () => {} } });
    const a = await engine.startRun({ functionName: 'fn', runKey: 'Order-1001' });
    const b = await engine.startRun({ functionName: 'fn', runKey: 'order-1002' });
    const c = await engine.startRun({ functionName: 'fn', runKey: '100%_done' });
    const api = createControlApi({ engine, functions: ['fn'], onError: () => {} });
    const search = async (text: string) => {
      const answer = await api.handle({ method: 'GET', path: '/v1/runs', query: { search: text } });
      return (JSON.parse(answer.body) as { runs: RunWire[] }).runs.map((run) => run.runId).sort();
    };
    expect(await search('ORDER-100')).toEqual([a.run.runId, b.run.runId].sort());
    expect(await search('1002')).toEqual([b.run.runId]);
    expect(await search('%_')).toEqual([c.run.runId]);
    expect(await search(a.run.runId.slice(3, 12))).toEqual([a.run.runId]);
    expect(await search(randomUUID())).toEqual([]);
    store.close();
  });
});
