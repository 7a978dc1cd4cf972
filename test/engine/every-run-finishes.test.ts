/**
 * Issue 9's reproduced cases, each run the way the deployed system runs: invocations happen only
 * when a wake-up fires or an invoke is delivered (with Lambda's two retries), plus the reconciler
 * every minute. A stranded run (nothing will ever wake it) or a loop fails the test.
 */
import type { Operation } from '@durable-lambda/protocol';
import { withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';
import { failFirst, WakeWorld } from '../support/wake-world';

const callbackIdOf = (ops: Operation[], name: string) =>
  ops.find((o) => o.Type === 'CALLBACK' && (o.Name === name || o.ParentId !== undefined))?.CallbackDetails?.CallbackId;

describe('every run finishes after faults AWS documents as normal', () => {
  it('case 1: a throttled lease safety wake-up does not strand the run (the invocation goes on)', async () => {
    const w = new WakeWorld();
    w.register(
      'fn',
      withDurableExecution(async (_e, ctx) => ctx.step('a', async () => 'ok')),
    );
    w.rule = failFirst(1, (p) => p.kind === 'wakeAt' && p.request.reason === 'lease');
    const runId = await w.start('fn');
    const run = await w.runUntilDone(runId);
    expect(run.status).toBe('SUCCEEDED');
    expect(w.invocations.get(runId)).toBe(1);
  });

  it('case 2: a throttled wake-up after the lease is released is left to the reconciler', async () => {
    const w = new WakeWorld();
    w.register(
      'fn',
      withDurableExecution(async (_e, ctx) => {
        await ctx.wait('pause', { minutes: 10 });
        return 'woke';
      }),
    );
    w.rule = failFirst(1, (p) => p.kind === 'wakeAt' && p.request.reason === 'due');
    const runId = await w.start('fn');
    const run = await w.runUntilDone(runId);
    expect(run.status).toBe('SUCCEEDED');
    expect(w.woken()).toContainEqual({ runId, reason: 'due' });
  });

  it('case 3: a throttled child invoke at close: the child is started later and the parent finishes', async () => {
    const w = new WakeWorld();
    w.register(
      'child',
      withDurableExecution(async (e: { n: number }) => e.n * 2),
    );
    w.register(
      'parent',
      withDurableExecution(async (_e, ctx) => ctx.invoke('kid', 'child', { n: 21 })),
    );
    // Every invoke of the child fails for a while: the checkpoint's and the close's.
    w.rule = failFirst(2, (p) => p.kind === 'invoke' && p.functionName === 'child');
    const runId = await w.start('parent');
    const run = await w.runUntilDone(runId);
    expect(run).toMatchObject({ status: 'SUCCEEDED', result: '42' });
  });

  it('case 3b: a child run that could not even be created: the parent comes back and creates it', async () => {
    const w = new WakeWorld();
    w.register(
      'child',
      withDurableExecution(async () => 'kid done'),
    );
    w.register(
      'parent',
      withDurableExecution(async (_e, ctx) => ctx.invoke('kid', 'child')),
    );
    let creates = 0;
    w.rule = (p) =>
      p.kind === 'store' && p.method === 'createRun' && ++creates <= 3 && creates > 1 ? 'throw' : undefined;
    const runId = await w.start('parent');
    const run = await w.runUntilDone(runId);
    expect(run).toMatchObject({ status: 'SUCCEEDED', result: '"kid done"' });
  });

  it('case 4: a callback completed while its wake-up is throttled: the caller hears success, the run resumes once', async () => {
    const w = new WakeWorld();
    let resumed = 0;
    w.register(
      'fn',
      withDurableExecution(async (_e, ctx) => {
        const [promise] = await ctx.createCallback('approval');
        const value = await promise;
        await ctx.step('after', async () => ++resumed);
        return value;
      }),
    );
    const runId = await w.start('fn');
    let sent = false;
    const run = await w.runUntilDone(runId, {
      idle: async () => {
        const id = callbackIdOf(w.memory.peekOperations(runId), 'approval');
        if (sent || !id) return false;
        sent = true;
        w.rule = failFirst(1, (p) => p.kind === 'wakeAt' && p.request.reason === 'event');
        await w.engine.sendCallbackSuccess(id, '"yes"');
        await expect(w.engine.sendCallbackSuccess(id, '"again"')).rejects.toMatchObject({
          code: 'callback_already_completed',
        });
        return true;
      },
    });
    expect(run.status).toBe('SUCCEEDED');
    expect(JSON.parse(run.result ?? 'null')).toBe('"yes"');
    expect(resumed).toBe(1);
    expect(w.woken()).toContainEqual({ runId, reason: 'event' });
  });

  it('case 4b / 11: a child that finished while its notification to the parent failed: the reconciler tells the parent', async () => {
    const w = new WakeWorld();
    w.register(
      'child',
      withDurableExecution(async () => 'kid done'),
    );
    w.register(
      'parent',
      withDurableExecution(async (_e, ctx) => ctx.invoke('kid', 'child')),
    );
    // The child's final write lands; its write into the parent (the notification) fails once.
    w.rule = failFirst(1, (p) => p.kind === 'store' && p.method === 'writeOutsideEvent');
    const runId = await w.start('parent');
    const run = await w.runUntilDone(runId);
    expect(run).toMatchObject({ status: 'SUCCEEDED', result: '"kid done"' });
    expect(w.reports.flatMap((r) => r.parentsNotified)).toHaveLength(1);
    // Once told, the child leaves the due index.
    const child = w.memory
      .runIds()
      .map((id) => w.memory.peekRun(id))
      .find((r) => r?.functionName === 'child');
    expect(child).toMatchObject({ status: 'SUCCEEDED', parentNotified: true });
    expect(child?.dueAt).toBeUndefined();
  });

  it('case 6: a dropped wake-up (Scheduler gave up, no DLQ) is woken by the reconciler', async () => {
    const w = new WakeWorld();
    w.register(
      'fn',
      withDurableExecution(async (_e, ctx) => {
        await ctx.wait('pause', { hours: 2 });
        return 'woke';
      }),
    );
    w.rule = failFirst(1, (p) => p.kind === 'wakeAt' && p.request.reason === 'due', 'drop');
    const runId = await w.start('fn');
    expect((await w.runUntilDone(runId)).status).toBe('SUCCEEDED');
    expect(w.woken()).toContainEqual({ runId, reason: 'due' });
  });

  it('case 6b: a wake-up delivered twice runs no work twice', async () => {
    const w = new WakeWorld();
    const bodies: number[] = [];
    w.register(
      'fn',
      withDurableExecution(async (_e, ctx) => {
        await ctx.step('one', async () => bodies.push(1));
        await ctx.wait('pause', { minutes: 5 });
        await ctx.step('two', async () => bodies.push(2));
      }),
    );
    w.rule = (p) => (p.kind === 'wakeAt' && p.request.reason === 'due' ? 'lost' : undefined);
    const runId = await w.start('fn');
    // Every due wake-up is queued (and reported as failed): duplicates land at the same time.
    expect((await w.runUntilDone(runId)).status).toBe('SUCCEEDED');
    expect(bodies).toEqual([1, 2]);
  });

  it('case 11: a process dead between taking the lease and asking for its safety wake-up: the lease lapses and the run resumes', async () => {
    const w = new WakeWorld();
    let attempts = 0;
    w.register(
      'fn',
      withDurableExecution(async (_e, ctx) => ctx.step('a', async () => ++attempts)),
    );
    const runId = await w.start('fn');
    // The lease is taken, then the process dies before its safety wake-up request is sent: the
    // invocation never runs and never closes.
    w.rule = failFirst(1, (p) => p.kind === 'wakeAt' && p.request.reason === 'lease', 'drop');
    expect(await w.engine.openRun(runId, { remainingTimeMs: () => 15 * 60_000 })).toBeDefined();
    const run = await w.runUntilDone(runId);
    expect(run.status).toBe('SUCCEEDED');
    expect(w.woken()).toContainEqual({ runId, reason: 'lease_lapsed' });
    expect(run.lostInvocations).toBe(1);
  });

  it('the reconciler pages past a run it cannot help (its wake-up keeps failing): the runs behind it are woken', async () => {
    const w = new WakeWorld();
    w.register(
      'fn',
      withDurableExecution(async (_e, ctx) => ctx.wait('pause', { minutes: 1 })),
    );
    // Two runs whose every wake-up is dropped, so only the reconciler can find them.
    w.rule = (p) =>
      p.kind === 'invoke' || (p.kind === 'wakeAt' && p.request.reason !== 'reconcile') ? 'drop' : undefined;
    const stuck = await w.start('fn');
    w.clock.advanceBy(1);
    const behind = await w.start('fn');
    w.clock.advanceBy(10 * 60_000);
    w.rule = (p) => {
      if (p.kind !== 'wakeAt') return undefined;
      return p.request.runId === stuck ? 'throw' : 'drop';
    };
    const first = await w.engine.reconcile({ limit: 1 });
    expect(first).toMatchObject({ examined: 1, failed: [{ runId: stuck }], more: true, cursor: { runId: stuck } });
    const second = await w.engine.reconcile({ limit: 1, ...(first.cursor ? { after: first.cursor } : {}) });
    expect(second.woken).toEqual([{ runId: behind, reason: 'due' }]);
    const third = await w.engine.reconcile({ limit: 1, ...(second.cursor ? { after: second.cursor } : {}) });
    expect(third).toMatchObject({ examined: 0, more: false });
  });
});
