import { MemoryStore } from '@durable-lambda/engine';
import { withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';
import { Harness, stoppedAsStale, until } from '../support/harness';
import { RepairWorld } from '../support/repair-world';

const HOUR = 3_600_000;

/** A parent that invokes a child; the child waits for a callback nobody completes. */
function parentAndChild(world: RepairWorld, counts: { childSteps: number; parentSteps: number }) {
  const callbacks: string[] = [];
  world.register(
    'child',
    withDurableExecution(async (_e, ctx) => {
      const [approval, callbackId] = await ctx.createCallback('approval');
      await ctx.step('note', async () => {
        callbacks.push(callbackId);
      });
      await approval;
      await ctx.step('after-approval', async () => {
        counts.childSteps += 1;
      });
      return 'approved';
    }),
  );
  world.register(
    'parent',
    withDurableExecution(async (_e, ctx) => {
      const kid = await ctx.invoke('kid', 'child');
      await ctx.step('after-child', async () => {
        counts.parentSteps += 1;
      });
      return kid;
    }),
  );
  return callbacks;
}

describe('execution timeout', () => {
  it('ends a run TIMED_OUT at its deadline: its child run and the callback it waits on are told, and nothing runs after', async () => {
    // The per-function setting (the run gives none of its own).
    const world = new RepairWorld((clock) => new MemoryStore(clock), {
      executionTimeout: (name) => (name === 'parent' ? 3600 : undefined),
    });
    const counts = { childSteps: 0, parentSteps: 0 };
    const callbacks = parentAndChild(world, counts);
    const runId = await world.start('parent');
    const started = (await world.engine.getRun(runId))?.createdAt ?? 0;
    const run = await world.settle(runId);

    expect(run).toMatchObject({ status: 'TIMED_OUT', deadlineAt: started + HOUR, executionTimeoutMs: HOUR });
    expect(run.error).toMatchObject({ ErrorType: 'ExecutionTimedOut', ErrorCode: 'execution_timed_out' });
    // Ended by the wake-up at the deadline itself.
    expect(run.endedAt).toBe(started + HOUR);
    expect((await world.store.getOperation(runId, '0'))?.Status).toBe('TIMED_OUT');

    const [child] = await world.children(runId);
    expect(child).toMatchObject({ status: 'TIMED_OUT', parentNotified: true });
    expect(child?.error?.ErrorCode).toBe('parent_timed_out');
    expect(child?.deadlineAt).toBeUndefined();
    // The parent's invoke holds the child's end; the child's callback is over.
    expect(await world.store.getOperation(runId, '1')).toMatchObject({ Type: 'CHAINED_INVOKE', Status: 'TIMED_OUT' });
    const [callbackId] = callbacks;
    await expect(world.engine.sendCallbackSuccess(callbackId as string, '"yes"')).rejects.toMatchObject({
      code: 'callback_already_completed',
    });
    expect(counts).toEqual({ childSteps: 0, parentSteps: 0 });
    // Nothing of the tree is left in the due index.
    expect(run.dueAt).toBeUndefined();
    expect(child?.dueAt).toBeUndefined();
  });

  it('with every wake-up lost, the reconciler ends the run at its deadline from the due index', async () => {
    const world = new RepairWorld((clock) => new MemoryStore(clock));
    const counts = { childSteps: 0, parentSteps: 0 };
    parentAndChild(world, counts);
    const runId = await world.start('parent', undefined, 7200);
    await world.settle(runId, { until: world.clock.now() + 10 * 60_000 });
    expect((await world.engine.getRun(runId))?.status).toBe('RUNNING');
    // From here no wake-up reaches anyone: only the due index knows the deadline.
    world.dropWakeUps = true;
    world.loseQueued();
    const deadline = (await world.engine.getRun(runId))?.deadlineAt ?? 0;
    expect((await world.engine.getRun(runId))?.dueAt).toBe(deadline);
    const run = await world.settle(runId, { until: deadline + 3 * 60_000 });
    expect(run.status).toBe('TIMED_OUT');
    expect(world.reports.flatMap((r) => r.timedOut)).toEqual([runId]);
    const [child] = await world.children(runId);
    expect(child).toMatchObject({ status: 'TIMED_OUT', parentNotified: true });
    expect(counts.parentSteps).toBe(0);
  });

  it('fences an invocation still running past the deadline: its next checkpoint is refused and it stops quietly', async () => {
    let release: (() => void) | undefined;
    let afterRan = false;
    const handler = withDurableExecution(async (_e, ctx) => {
      await ctx.step('slow', () => new Promise<void>((r) => (release = r)));
      await ctx.step('after', async () => {
        afterRan = true;
      });
    });
    const h = new Harness(handler);
    const { run } = await h.engine.startRun({ functionName: 'fn', executionTimeoutSeconds: 60 });
    h.runId = run.runId;
    const running = h.invoke();
    await until(() => release !== undefined, 30_000);
    // The lease outlives the deadline: a wake-up was asked for at the deadline too.
    expect(h.wakeUps).toContainEqual(expect.objectContaining({ runId: run.runId, at: run.createdAt + 60_000 }));
    h.clock.advanceBy(61_000);
    release?.();
    expect(stoppedAsStale(await running, h.lastClose)).toBe(true);
    expect(afterRan).toBe(false);
    const ended = await h.run();
    expect(ended).toMatchObject({ status: 'TIMED_OUT' });
    const steps = (await h.operations()).filter((o) => o.Type === 'STEP');
    expect(steps.map((o) => [o.Name, o.Status])).toEqual([['slow', 'STARTED']]);
    // The wake-up at the deadline finds nothing to do.
    expect(await h.engine.openRun(run.runId)).toBeUndefined();
  });

  it('a retried TIMED_OUT run gets a fresh deadline of the same length', async () => {
    const world = new RepairWorld((clock) => new MemoryStore(clock));
    const counts = { childSteps: 0, parentSteps: 0 };
    parentAndChild(world, counts);
    const runId = await world.start('parent', undefined, 600);
    expect((await world.settle(runId)).status).toBe('TIMED_OUT');
    const retried = await world.engine.retryRun(runId, { actor: 'ops' });
    expect(retried.status).toBe('RUNNING');
    expect(retried.deadlineAt).toBe(world.clock.now() + 600_000);
  });

  it('refuses a timeout outside 1 s to 366 days, naming the field', async () => {
    const world = new RepairWorld((clock) => new MemoryStore(clock));
    for (const bad of [0, 1.5, -3, 366 * 86_400 + 1, Number.NaN]) {
      await expect(
        world.engine.startRun({ functionName: 'parent', executionTimeoutSeconds: bad }),
      ).rejects.toMatchObject({ code: 'invalid_argument', field: 'executionTimeoutSeconds' });
    }
    const { run } = await world.engine.startRun({ functionName: 'parent', executionTimeoutSeconds: 366 * 86_400 });
    expect(run.deadlineAt).toBe(run.createdAt + 366 * 86_400_000);
  });

  it('a timeout cut short before its children ended is finished by the reconciler', async () => {
    const world = new RepairWorld((clock) => new MemoryStore(clock));
    const counts = { childSteps: 0, parentSteps: 0 };
    parentAndChild(world, counts);
    const runId = await world.start('parent', undefined, 300);
    await world.settle(runId, { until: world.clock.now() + 60_000 });
    const [child] = await world.children(runId);
    // The process dies between the parent's end and its child's: the child's revision fails.
    const revise = world.store.reviseRun.bind(world.store);
    let failures = 0;
    world.store.reviseRun = async (id, ...rest) => {
      if (id === child?.runId && failures === 0) {
        failures++;
        throw new Error('process died');
      }
      return revise(id, ...rest);
    };
    const run = await world.settle(runId);
    expect(failures).toBe(1);
    expect(world.failures).toHaveLength(1);
    expect(run).toMatchObject({ status: 'TIMED_OUT' });
    expect(run.childrenOpen).toBeUndefined();
    expect(world.reports.flatMap((r) => r.treesEnded)).toContain(runId);
    expect((await world.engine.getRun(child?.runId ?? ''))?.status).toBe('TIMED_OUT');
  });
});
