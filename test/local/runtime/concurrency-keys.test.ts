import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalRuntime, SqliteStore } from '@durable-lambda/local';
import { withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'durable-concurrency-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(probe: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(10);
  }
}

describe('LocalRuntime: flow control per key', () => {
  it('runs one run of a key at a time, queues the rest oldest first, and a busy key holds no other back', async () => {
    // Each invocation replays the handler from the top: a run is active from its first entry to its end.
    const active = new Map<string, Set<string>>();
    let maxActive = 0;
    const jobs = withDurableExecution(
      async (event: { tenant: string; id: string }, ctx) => {
        const ids = active.get(event.tenant) ?? new Set<string>();
        ids.add(event.id);
        active.set(event.tenant, ids);
        maxActive = Math.max(maxActive, ids.size);
        const answer = await ctx.waitForCallback<string>('work', async () => undefined);
        ids.delete(event.id);
        return answer;
      },
      { concurrency: { key: (e) => (e as { tenant: string }).tenant, limit: 1 } },
    );
    const store = new SqliteStore({ path: join(dir, 'runtime.sqlite') });
    const runtime = new LocalRuntime({ store, functions: new Map([['jobs', jobs]]), overrides: { logSink: () => {} } });
    try {
      await runtime.start();
      const a1 = await runtime.startRun('jobs', { tenant: 'a', id: 'a1' });
      const waiting = async (runId: string) => {
        const run = await runtime.engine.getRun(runId);
        const op = (await runtime.engine.getOperations(runId)).find((o) => o.Type === 'CALLBACK');
        return run?.status === 'RUNNING' && run.leaseExpiresAt === undefined && op?.CallbackDetails?.CallbackId;
      };
      await until(() => waiting(a1.runId));
      const a2 = await runtime.startRun('jobs', { tenant: 'a', id: 'a2' });
      await until(async () => (await runtime.engine.getRun(a2.runId))?.status === 'QUEUED');
      const a3 = await runtime.startRun('jobs', { tenant: 'a', id: 'a3' });
      await until(async () => (await runtime.engine.getRun(a3.runId))?.status === 'QUEUED');
      const b1 = await runtime.startRun('jobs', { tenant: 'b', id: 'b1' });
      await until(() => waiting(b1.runId));
      expect(await runtime.engine.getRun(a3.runId)).toMatchObject({ concurrencyKey: 'a', queuePosition: 2 });

      // a1 ends: its slot goes to a2 (the oldest), not a3.
      const first = await until(() => waiting(a1.runId));
      await runtime.engine.sendCallbackSuccess(first, '"done"');
      expect((await runtime.waitForRun(a1.runId, { timeoutMs: 10_000 })).status).toBe('SUCCEEDED');
      const second = await until(() => waiting(a2.runId));
      expect((await runtime.engine.getRun(a3.runId))?.status).toBe('QUEUED');
      await runtime.engine.sendCallbackSuccess(second, '"done"');
      const third = await until(() => waiting(a3.runId));
      await runtime.engine.sendCallbackSuccess(third, '"done"');
      await runtime.engine.sendCallbackSuccess((await until(() => waiting(b1.runId))) as string, '"done"');
      for (const run of [a2, a3, b1]) {
        expect((await runtime.waitForRun(run.runId, { timeoutMs: 10_000 })).status).toBe('SUCCEEDED');
      }
      expect(maxActive).toBe(1);
    } finally {
      await runtime.stop();
      store.close();
    }
  });
});
