/**
 * Issue 9's runaway and wrong-result cases (7-10) and seed 000's lost-attempt sentence, run the
 * way the deployed system runs them (wake-ups and the reconciler only).
 */
import type { Operation } from '@durable-lambda/protocol';
import { NonRetriableError, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';
import { until } from '../support/harness';
import { WakeWorld } from '../support/wake-world';

const callbackId = (ops: Operation[]) =>
  ops.find((o) => o.Type === 'CALLBACK' && o.Status === 'STARTED')?.CallbackDetails?.CallbackId;

/** Sends the run's waiting callback once it exists; true when it sent one. */
function completesCallback(w: WakeWorld, runId: string, result = '"ok"') {
  let sent = false;
  return async () => {
    const id = callbackId(w.memory.peekOperations(runId));
    if (sent || !id) return false;
    sent = true;
    await w.engine.sendCallbackSuccess(id, result);
    return true;
  };
}

describe('no runaway re-invocation, no wrong results', () => {
  it('case 7: a step still retrying under a finished child context never makes the run due', async () => {
    const w = new WakeWorld();
    w.register(
      'fn',
      withDurableExecution(async (_e, ctx) => {
        const winner = await ctx.runInChildContext('race', (c) =>
          c.promise.race([
            c.step('fast', async () => 'fast'),
            c.step(
              'flaky',
              async () => {
                throw new Error('still failing');
              },
              { retry: { maxAttempts: 50, initialMs: 1000, maxMs: 1000 } },
            ),
          ]),
        );
        const [approval] = await ctx.createCallback('approval');
        return { winner, approval: await approval };
      }),
    );
    const runId = await w.start('fn');
    let waiting: number | undefined;
    const send = completesCallback(w, runId);
    const run = await w.runUntilDone(runId, {
      idle: async () => {
        // Waiting on the callback alone: nothing is due on time.
        waiting = w.memory.peekRun(runId)?.nextWakeAt ?? -1;
        return send();
      },
    });
    expect(run.status).toBe('SUCCEEDED');
    expect(waiting).toBe(-1);
    expect(w.invocations.get(runId)).toBeLessThanOrEqual(3);
  });

  it('case 7b: a map item still retrying after minSuccessful was reached never makes the run due', async () => {
    const w = new WakeWorld();
    w.register(
      'fn',
      withDurableExecution(async (_e, ctx) => {
        const batch = await ctx.map(
          'items',
          [1, 2, 3],
          (c, item) =>
            c.step(
              `item-${item}`,
              async () => {
                if (item === 3) throw new Error('slow to recover');
                return item;
              },
              { retry: { maxAttempts: 50, initialMs: 5000, maxMs: 5000 } },
            ),
          { completionConfig: { minSuccessful: 2 } },
        );
        const [approval] = await ctx.createCallback('approval');
        await approval;
        return batch.successCount;
      }),
    );
    const runId = await w.start('fn');
    const run = await w.runUntilDone(runId, { idle: completesCallback(w, runId) });
    expect(run).toMatchObject({ status: 'SUCCEEDED', result: '2' });
    expect(w.invocations.get(runId)).toBeLessThanOrEqual(4);
  });

  it('case 8: retrying a run whose map item failed re-runs that item (and only it)', async () => {
    const w = new WakeWorld();
    let broken = true;
    const ran: number[] = [];
    w.register(
      'fn',
      withDurableExecution(async (_e, ctx) => {
        const batch = await ctx.map('items', [1, 2, 3], (c, item) =>
          c.step(`item-${item}`, async () => {
            ran.push(item);
            if (item === 2 && broken) throw new NonRetriableError('item 2 is broken');
            return item * 10;
          }),
        );
        batch.throwIfError();
        return batch.getResults();
      }),
    );
    const runId = await w.start('fn');
    expect((await w.runUntilDone(runId)).status).toBe('FAILED');
    broken = false;
    ran.length = 0;
    await w.engine.retryRun(runId);
    const run = await w.runUntilDone(runId);
    expect(run).toMatchObject({ status: 'SUCCEEDED', result: '[10,20,30]' });
    expect(ran).toEqual([2]);
  });

  it('case 8b: retrying a run leaves a failure a finished context handled alone (no reopened step due forever)', async () => {
    const w = new WakeWorld();
    let failLast = true;
    w.register(
      'fn',
      withDurableExecution(async (_e, ctx) => {
        const fallback = await ctx.runInChildContext('guarded', async (c) => {
          try {
            return await c.step('risky', async () => {
              throw new NonRetriableError('always');
            });
          } catch {
            return 'fallback';
          }
        });
        await ctx.step('last', async () => {
          if (failLast) throw new NonRetriableError('last failed');
        });
        return fallback;
      }),
    );
    const runId = await w.start('fn');
    expect((await w.runUntilDone(runId)).status).toBe('FAILED');
    failLast = false;
    await w.engine.retryRun(runId);
    const run = await w.runUntilDone(runId, { maxInvocations: 10 });
    expect(run).toMatchObject({ status: 'SUCCEEDED', result: '"fallback"' });
    const risky = w.memory.peekOperations(runId).find((o) => o.Name === 'risky');
    expect(risky?.Status).toBe('FAILED');
  });

  it('case 9: a waitForCondition retried after it failed resumes from its last stored state', async () => {
    const w = new WakeWorld();
    let broken = true;
    const seen: unknown[] = [];
    w.register(
      'fn',
      withDurableExecution(async (_e, ctx) =>
        ctx.waitForCondition(
          'poll',
          async (state: { n: number }) => {
            seen.push(state);
            if (state.n === 2 && broken) throw new Error('poller broke');
            return { n: state.n + 1 };
          },
          {
            initialState: { n: 0 },
            waitStrategy: (s: { n: number }) =>
              s.n >= 4 ? { shouldContinue: false } : { shouldContinue: true, delay: { seconds: 5 } },
          },
        ),
      ),
    );
    const runId = await w.start('fn');
    expect((await w.runUntilDone(runId)).status).toBe('FAILED');
    broken = false;
    seen.length = 0;
    await w.engine.retryRun(runId);
    const run = await w.runUntilDone(runId);
    expect(run).toMatchObject({ status: 'SUCCEEDED', result: '{"n":4}' });
    expect(seen[0]).toEqual({ n: 2 });
  });

  it('case 9b: a waitForCondition whose first check failed starts again from initialState', async () => {
    const w = new WakeWorld();
    let broken = true;
    const seen: unknown[] = [];
    w.register(
      'fn',
      withDurableExecution(async (_e, ctx) =>
        ctx.waitForCondition(
          'poll',
          async (state: number) => {
            seen.push(state);
            if (broken) throw new Error('broke at once');
            return state + 1;
          },
          { initialState: 7, waitStrategy: () => ({ shouldContinue: false }) },
        ),
      ),
    );
    const runId = await w.start('fn');
    expect((await w.runUntilDone(runId)).status).toBe('FAILED');
    broken = false;
    seen.length = 0;
    await w.engine.retryRun(runId);
    expect((await w.runUntilDone(runId)).result).toBe('8');
    expect(seen).toEqual([7]);
  });

  it('case 10: a cancelled run, and a child ended as unreachable, get the retention like any ended run', async () => {
    const w = new WakeWorld({ retentionMs: 3_600_000 }, { invokerKnowsFunctions: false });
    w.register(
      'fn',
      withDurableExecution(async (_e, ctx) => {
        const [approval] = await ctx.createCallback('approval');
        await approval;
      }),
    );
    w.register(
      'parent',
      withDurableExecution(async (_e, ctx) => ctx.invoke('ghost', 'no-such-function')),
    );
    const runId = await w.start('fn');
    const run = await w.runUntilDone(runId, {
      idle: async () => {
        if (w.memory.peekRun(runId)?.status !== 'RUNNING') return false;
        await w.engine.cancelRun(runId);
        return true;
      },
    });
    expect(run.status).toBe('CANCELLED');
    expect(run.expiresAt).toBe((run.endedAt ?? 0) + 3_600_000);
    expect(run.dueAt).toBeUndefined();

    // A chained invoke of an unknown function fails at once; so does its child, with retention.
    const parentId = await w.start('parent');
    expect((await w.runUntilDone(parentId)).status).toBe('FAILED');
    const child = w.memory
      .runIds()
      .map((id) => w.memory.peekRun(id))
      .find((r) => r?.parent?.runId === parentId);
    expect(child).toMatchObject({ status: 'FAILED', parentNotified: true });
    expect(child?.expiresAt).toBe((child?.endedAt ?? 0) + 3_600_000);
    expect(child?.dueAt).toBeUndefined();
  });

  it('seed 000: an invocation lost inside a short step is a failed attempt (invocation_lost) with a new key', async () => {
    const w = new WakeWorld();
    const keys: string[] = [];
    let hang = true;
    w.register(
      'fn',
      withDurableExecution(async (_e, ctx) =>
        ctx.step('charge', async ({ idempotencyKey }) => {
          keys.push(idempotencyKey);
          // The first attempt's process dies here (the promise never settles, nothing is closed).
          if (hang) {
            hang = false;
            return new Promise<never>(() => {});
          }
          return 'charged';
        }),
      ),
    );
    const runId = await w.start('fn');
    const first = await w.engine.openRun(runId, { remainingTimeMs: () => 60_000 });
    if (!first) throw new Error('no session');
    void (await import('@durable-lambda/sdk'))
      .getDurableEntry(w.functions.get('fn'))
      .execute(first, {}, { logSink: () => {} });
    // The body runs only once its START is durable.
    await until(() => keys.length === 1, 30_000);
    const run = await w.runUntilDone(runId);
    expect(run.status).toBe('SUCCEEDED');
    expect(keys).toEqual([`${runId}:1:1`, `${runId}:1:2`]);
    const step = w.memory.peekOperations(runId).find((o) => o.Name === 'charge');
    expect(step?.StepDetails?.Attempt).toBe(2);
    expect(step?.StepDetails?.FailedAttempts?.map((f) => f.Error.ErrorCode)).toEqual(['invocation_lost']);
  });
});
