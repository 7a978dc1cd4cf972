import { MemoryStore } from '@durable-lambda/engine';
import { withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';
import { Harness, stoppedAsStale, until } from '../support/harness';
import { RepairWorld } from '../support/repair-world';

/** A handler whose `charge` step fails (no retries) and which then holds an invocation open. */
function heldAfterFailure() {
  const state = { chargeCalls: 0, release: undefined as (() => void) | undefined };
  const handler = withDurableExecution(async (_e, ctx) => {
    let charge: string;
    try {
      charge = await ctx.step(
        'charge',
        async () => {
          state.chargeCalls += 1;
          throw new Error('gateway down');
        },
        { retry: { maxAttempts: 1 } },
      );
    } catch {
      await ctx.step('hold', () => new Promise<void>((r) => (state.release = r)));
      return 'gave up';
    }
    return `charged:${charge}`;
  });
  return { state, handler };
}

describe('operator actions', () => {
  it('skips a failed step of a FAILED run with a given result: the run resumes past it, once per action id', async () => {
    let chargeCalls = 0;
    const handler = withDurableExecution(async (_e, ctx) => {
      const id = await ctx.step(
        'charge',
        async () => {
          chargeCalls += 1;
          throw new Error('gateway down');
        },
        { retry: { maxAttempts: 1 } },
      );
      return ctx.step('ship', async () => `shipped with ${id}`);
    });
    const h = new Harness(handler);
    await h.start();
    await h.runToEnd();
    expect((await h.run())?.status).toBe('FAILED');

    const skipped = await h.engine.skipStep(h.runId, '1', {
      result: JSON.stringify('manual-42'),
      actor: 'alice@example.com',
      actionId: 'req-1',
    });
    expect(skipped.status).toBe('RUNNING');
    // The same action again finds its own effect and changes nothing.
    const again = await h.engine.skipStep(h.runId, '1', { result: '"other"', actionId: 'req-1' });
    expect(again.fence).toBe(skipped.fence);
    await h.runToEnd();
    const run = await h.run();
    expect(run).toMatchObject({ status: 'SUCCEEDED', result: JSON.stringify('shipped with manual-42') });
    expect(chargeCalls).toBe(1);
    expect(await h.op('1')).toMatchObject({ Status: 'SUCCEEDED', StepDetails: { Result: '"manual-42"' } });
    expect(run?.actions).toEqual([
      {
        id: 'req-1',
        action: 'skip_step',
        actor: 'alice@example.com',
        at: skipped.updatedAt,
        operationId: '1',
        fromStatus: 'FAILED',
      },
    ]);
  });

  it('skips a failed step while an invocation is running: the invocation is fenced and the skip stands', async () => {
    const { state, handler } = heldAfterFailure();
    const h = new Harness(handler);
    await h.start();
    const running = h.invoke();
    await until(() => state.release !== undefined, 30_000);
    expect((await h.run())?.status).toBe('RUNNING');
    await h.engine.skipStep(h.runId, '1', { result: '"by-hand"', actor: 'bob' });
    state.release?.();
    expect(stoppedAsStale(await running, h.lastClose)).toBe(true);
    // The fenced invocation's step outcome never landed.
    expect((await h.op('2'))?.Status).toBe('STARTED');
    await h.runToEnd();
    expect(await h.run()).toMatchObject({ status: 'SUCCEEDED', result: '"charged:by-hand"' });
    expect(state.chargeCalls).toBe(1);
    expect((await h.run())?.actions?.map((a) => [a.action, a.actor, a.fromStatus])).toEqual([
      ['skip_step', 'bob', 'RUNNING'],
    ]);
  });

  it('retries a FAILED run from a chosen operation: work before it replays, it and what follows run again', async () => {
    const calls = { a: 0, b: 0, c: 0 };
    const keys: string[] = [];
    let healthy = false;
    const handler = withDurableExecution(async (_e, ctx) => {
      await ctx.step('a', async () => ++calls.a);
      const b = await ctx.step('b', async ({ idempotencyKey }) => {
        keys.push(idempotencyKey);
        return ++calls.b;
      });
      return ctx.step(
        'c',
        async () => {
          calls.c += 1;
          if (!healthy) throw new Error('downstream broken');
          return `b was ${b}`;
        },
        { retry: { maxAttempts: 1 } },
      );
    });
    const h = new Harness(handler);
    await h.start();
    await h.runToEnd();
    expect((await h.run())?.status).toBe('FAILED');
    healthy = true;
    await h.engine.retryRun(h.runId, { fromOperationId: '2', actor: 'carol' });
    await h.runToEnd();
    expect(await h.run()).toMatchObject({ status: 'SUCCEEDED', result: '"b was 2"' });
    expect(calls).toEqual({ a: 1, b: 2, c: 2 });
    // The rerun of b is a new attempt: a new idempotency key, never one issued before.
    expect(keys).toEqual([`${h.runId}:2:1`, `${h.runId}:2:2`]);
    expect((await h.run())?.actions?.[0]).toMatchObject({ action: 'retry', actor: 'carol', operationId: '2' });
  });

  it('retries from an operation while an invocation is running: the invocation is fenced, the rerun starts there', async () => {
    const calls = { a: 0, b: 0 };
    let release: (() => void) | undefined;
    let holds = 0;
    const handler = withDurableExecution(async (_e, ctx) => {
      await ctx.step('a', async () => ++calls.a);
      await ctx.step('b', async () => ++calls.b);
      await ctx.step('hold', () => (++holds === 1 ? new Promise<void>((r) => (release = r)) : Promise.resolve()));
      return calls.b;
    });
    const h = new Harness(handler);
    await h.start();
    const running = h.invoke();
    await until(() => release !== undefined, 30_000);
    await h.engine.retryRun(h.runId, { fromOperationId: '2', actor: 'dave' });
    release?.();
    expect(stoppedAsStale(await running, h.lastClose)).toBe(true);
    await h.runToEnd();
    expect(await h.run()).toMatchObject({ status: 'SUCCEEDED', result: '2' });
    expect(calls).toEqual({ a: 1, b: 2 });
    expect((await h.run())?.actions?.[0]).toMatchObject({ action: 'retry', fromStatus: 'RUNNING', operationId: '2' });
  });

  it('cancels a whole tree while the child runs: each run ends CANCELLED and records it, the child invocation is fenced', async () => {
    let release: (() => void) | undefined;
    let afterChild = 0;
    const world = new RepairWorld((clock) => new MemoryStore(clock));
    world.register(
      'grandchild',
      withDurableExecution(async (_e, ctx) => {
        const [never] = await ctx.createCallback('never');
        return never;
      }),
    );
    world.register(
      'child',
      withDurableExecution(async (_e, ctx) => {
        await ctx.step('slow', () => new Promise<void>((r) => (release = r)));
        return ctx.invoke('g', 'grandchild');
      }),
    );
    world.register(
      'parent',
      withDurableExecution(async (_e, ctx) => {
        const kid = await ctx.invoke('kid', 'child');
        afterChild += 1;
        return kid;
      }),
    );
    const parentId = await world.start('parent');
    await world.invoke(parentId);
    const [child] = await world.children(parentId);
    const running = world.invoke(child?.runId ?? '');
    await until(() => release !== undefined, 30_000);

    const outcome = await world.engine.cancelRun(parentId, { tree: true, actor: 'erin', actionId: 'cancel-1' });
    expect(outcome.status).toBe('CANCELLED');
    release?.();
    expect(await running).toBe('fenced');
    const [cancelledChild] = await world.children(parentId);
    expect(cancelledChild).toMatchObject({ status: 'CANCELLED', parentNotified: true });
    expect(cancelledChild?.error?.ErrorCode).toBe('parent_cancelled');
    expect(cancelledChild?.actions).toEqual([
      expect.objectContaining({ id: 'cancel-1', action: 'cancel_tree', actor: 'erin', viaRunId: parentId }),
    ]);
    // The fenced child never started its own invoke: no grandchild.
    expect(await world.children(cancelledChild?.runId ?? '')).toEqual([]);
    const parent = await world.engine.getRun(parentId);
    expect(parent?.actions).toEqual([
      expect.objectContaining({ id: 'cancel-1', action: 'cancel_tree', actor: 'erin', fromStatus: 'RUNNING' }),
    ]);
    expect(parent?.childrenOpen).toBeUndefined();
    expect(parent?.dueAt).toBeUndefined();
    // A repeat finds its own effect.
    const repeat = await world.engine.cancelRun(parentId, { tree: true, actionId: 'cancel-1' });
    expect(repeat.fence).toBe(parent?.fence);
    await world.settle(parentId);
    expect(afterChild).toBe(0);
  });

  it('cancels a tree three deep: the grandchild waiting on a callback is cancelled and its callback told', async () => {
    const callbacks: string[] = [];
    const world = new RepairWorld((clock) => new MemoryStore(clock));
    world.register(
      'grandchild',
      withDurableExecution(async (_e, ctx) => {
        const [never, id] = await ctx.createCallback('never');
        await ctx.step('note', async () => void callbacks.push(id));
        return never;
      }),
    );
    world.register(
      'child',
      withDurableExecution(async (_e, ctx) => ctx.invoke('g', 'grandchild')),
    );
    world.register(
      'parent',
      withDurableExecution(async (_e, ctx) => ctx.invoke('kid', 'child')),
    );
    const parentId = await world.start('parent');
    await world.settle(parentId);
    expect(callbacks).toHaveLength(1);
    await world.engine.cancelRun(parentId, { tree: true, actor: 'frank' });
    const [child] = await world.children(parentId);
    const [grandchild] = await world.children(child?.runId ?? '');
    expect([child?.status, grandchild?.status]).toEqual(['CANCELLED', 'CANCELLED']);
    await expect(world.engine.sendCallbackSuccess(callbacks[0] as string, '1')).rejects.toMatchObject({
      code: 'callback_already_completed',
    });
  });

  it('refuses what it cannot do, with stable codes', async () => {
    const handler = withDurableExecution(async (_e, ctx) => {
      await ctx.step('ok', async () => 1);
      await ctx.wait('pause', { seconds: 5 });
      throw new Error('boom');
    });
    const h = new Harness(handler);
    await h.start();
    await h.runToEnd();
    expect((await h.run())?.status).toBe('FAILED');
    await expect(h.engine.skipStep(h.runId, '1')).rejects.toMatchObject({ code: 'operation_state_conflict' });
    await expect(h.engine.skipStep(h.runId, '9')).rejects.toMatchObject({ code: 'operation_not_found' });
    await expect(h.engine.retryRun(h.runId, { fromOperationId: '2' })).rejects.toMatchObject({
      code: 'operation_state_conflict',
    });
    await expect(h.engine.retryRun(h.runId, { actor: '' })).rejects.toMatchObject({
      code: 'invalid_argument',
      field: 'actor',
    });
    await expect(h.engine.cancelRun(h.runId)).rejects.toMatchObject({ code: 'run_state_conflict' });
    // Nothing was recorded for a refused action.
    expect((await h.run())?.actions).toBeUndefined();
  });
});
