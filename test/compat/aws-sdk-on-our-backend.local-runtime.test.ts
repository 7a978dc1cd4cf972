import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalRuntime, SqliteStore } from '@durable-lambda/local';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AwsDurableSdk, importAwsSdk } from '../support/aws-sdk';

/**
 * AWS's own SDK on our LocalRuntime (what the dev server runs: SQLite, the real clock, timers).
 * AWS's SDK suspends (PENDING) once everything it runs waits, and our runtime wakes it; while
 * other work still runs, it polls through our transport (empty checkpoints) and sees a wait end.
 */

const dir = mkdtempSync(join(tmpdir(), 'aws-sdk-local-runtime-'));
let aws: AwsDurableSdk;

beforeAll(async () => {
  aws = await importAwsSdk();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function eventually<T>(read: () => T | undefined): Promise<T> {
  for (let i = 0; i < 4000; i++) {
    const value = read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('value never came');
}

describe("AWS's SDK on our LocalRuntime", () => {
  for (const [label, invocationMs] of [
    ['in long invocations', 60_000],
    ['in invocations too short to wait in', 1_500],
  ] as const) {
    it(`completes a retried step, a wait and a callback, ${label}`, async () => {
      let attempts = 0;
      let callbackId: string | undefined;
      const handler = aws.withDurableExecution(async (event: { who: string }, ctx) => {
        const hello = await ctx.step(
          'hello',
          async () => {
            attempts += 1;
            if (attempts === 1) throw new Error('first try fails');
            return `hello ${event.who}`;
          },
          { retryStrategy: (_error, attempt) => ({ shouldRetry: attempt < 3, delay: { seconds: 1 } }) },
        );
        await ctx.wait('beat', { seconds: 1 });
        const answer = await ctx.waitForCallback<string>('answer', async (id) => {
          callbackId = id;
        });
        const [a, b] = (
          await ctx.parallel('pair', [async (c) => c.step('a', async () => 1), async (c) => c.step('b', async () => 2)])
        ).getResults();
        return { hello, answer, sum: (a ?? 0) + (b ?? 0) };
      });
      const store = new SqliteStore({ path: join(dir, `${invocationMs}.sqlite`) });
      const errors: unknown[] = [];
      const runtime = new LocalRuntime({
        store,
        functions: new Map([['greeter', handler]]),
        invocationMs,
        onError: (error) => errors.push(error),
      });
      await runtime.start();
      try {
        const run = await runtime.startRun('greeter', { who: 'aws' });
        await runtime.engine.sendCallbackSuccess(await eventually(() => callbackId), 'yes');
        const ended = await runtime.waitForRun(run.runId, { timeoutMs: 30_000 });

        expect(ended.status).toBe('SUCCEEDED');
        expect(JSON.parse(ended.result ?? 'null')).toEqual({ hello: 'hello aws', answer: 'yes', sum: 3 });
        expect(attempts).toBe(2);
        expect(errors).toEqual([]);
        // The retry and the wait each ended an invocation (AWS's SDK suspends when all it runs waits).
        expect(ended.invocations).toBeGreaterThanOrEqual(3);
      } finally {
        await runtime.stop();
        store.close();
      }
    }, 40_000);
  }

  it('lets a wait end within the invocation while other work still runs (polling our transport)', async () => {
    let waitedBranchRan = false;
    const handler = aws.withDurableExecution(async (_event: unknown, ctx) => {
      const results = await ctx.parallel('both', [
        async (c) => {
          await c.wait({ seconds: 1 });
          return c.step('after-wait', async () => {
            waitedBranchRan = true;
            return 'waited';
          });
        },
        async (c) =>
          c.step('busy', async () => {
            // Runs until the other branch has finished its wait and step in this same invocation.
            for (let i = 0; i < 400 && !waitedBranchRan; i++) await new Promise((r) => setTimeout(r, 25));
            if (!waitedBranchRan) throw new Error('the wait never ended while this step ran');
            return 'busy';
          }),
      ]);
      return results.getResults();
    });
    const store = new SqliteStore({ path: join(dir, 'polling.sqlite') });
    const errors: unknown[] = [];
    const runtime = new LocalRuntime({
      store,
      functions: new Map([['both', handler]]),
      onError: (e) => errors.push(e),
    });
    await runtime.start();
    try {
      const run = await runtime.startRun('both', {});
      const ended = await runtime.waitForRun(run.runId, { timeoutMs: 30_000 });
      expect([ended.status, JSON.parse(ended.result ?? 'null')]).toEqual(['SUCCEEDED', ['waited', 'busy']]);
      expect(ended.invocations).toBe(1);
      expect(errors).toEqual([]);
    } finally {
      await runtime.stop();
      store.close();
    }
  }, 40_000);
});
