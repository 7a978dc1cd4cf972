/**
 * `context.patched`: a code change reaches runs in flight without breaking them. Each test
 * records a real history with v1 code on the engine (the run waits in a durable wait), deploys
 * v2 under the same function name, and resumes the stored run on v2.
 */
import type { Operation } from '@durable-lambda/protocol';
import { type DurableContext, PATCH_SUBTYPE, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';
import { Harness } from '../../support/harness';

type Code = (event: unknown, ctx: DurableContext) => Promise<unknown>;

/** One function whose deployed code can change between invocations, as a deploy changes it. */
function deployable(initial: Code) {
  let code = initial;
  const handler = withDurableExecution(async (event: unknown, ctx: DurableContext) => code(event, ctx));
  const harness = new Harness(handler, { inProcessWaitMs: 0, logSink: () => {} });
  return {
    harness,
    deploy(next: Code) {
      code = next;
    },
  };
}

/** Operations as `Id Type Name Status` lines, the execution left out. */
const shape = (ops: readonly Operation[]) =>
  ops.filter((op) => op.Type !== 'EXECUTION').map((op) => `${op.Id} ${op.Type} ${op.Name ?? '-'} ${op.Status}`);

/** How many times each step body ran, by name, across every version. */
function counters() {
  const ran = new Map<string, number>();
  const run = <T>(name: string, value: T) => {
    ran.set(name, (ran.get(name) ?? 0) + 1);
    return value;
  };
  return { ran, run };
}

const { ran, run } = counters();

/** v1: reserve, a 10-second cool-off, charge. */
const v1: Code = async (_e, ctx) => {
  await ctx.step('reserve', async () => run('reserve', 'reserved'));
  await ctx.wait('cool-off', { seconds: 10 });
  const charged = await ctx.step('charge', async () => run('charge', 'charged'));
  return { path: 'old', charged };
};

/** v2: a fraud check between reserve and the cool-off, behind a patch. */
const v2: Code = async (_e, ctx) => {
  await ctx.step('reserve', async () => run('reserve', 'reserved'));
  let path = 'old';
  if (ctx.patched('fraud-check')) {
    await ctx.step('fraud-check', async () => run('fraud-check', 'clean'));
    path = 'new';
  }
  await ctx.wait('cool-off', { seconds: 10 });
  const charged = await ctx.step('charge', async () => run('charge', 'charged'));
  return { path, charged };
};

/** v2 without the patch: the fraud check runs for every run, the change an old run cannot replay. */
const v2Unpatched: Code = async (_e, ctx) => {
  await ctx.step('reserve', async () => run('reserve', 'reserved'));
  await ctx.step('fraud-check', async () => run('fraud-check', 'clean'));
  await ctx.wait('cool-off', { seconds: 10 });
  const charged = await ctx.step('charge', async () => run('charge', 'charged'));
  return { path: 'new', charged };
};

/** Starts a run on v1 and invokes it once: it ends waiting in the cool-off, its history stored. */
async function oldRunWaiting() {
  const app = deployable(v1);
  await app.harness.start({ order: 1 });
  const first = await app.harness.invoke();
  expect(first).toMatchObject({ type: 'completed', output: { Status: 'PENDING' } });
  expect(shape(await app.harness.operations())).toEqual(['1 STEP reserve SUCCEEDED', '2 WAIT cool-off STARTED']);
  return app;
}

const resultOf = async (h: Harness) => {
  const record = await h.run();
  expect(record?.status).toBe('SUCCEEDED');
  return JSON.parse(record?.result ?? 'null') as { path: string; charged: string };
};

describe('context.patched', () => {
  it('keeps a run recorded by v1 on the old path when v2 resumes it, and it finishes', async () => {
    const app = await oldRunWaiting();
    app.deploy(v2);
    const before = ran.get('fraud-check') ?? 0;
    await app.harness.runToEnd();
    expect(await resultOf(app.harness)).toEqual({ path: 'old', charged: 'charged' });
    // No marker, no fraud check: the old run's ids are v1's.
    expect(shape(await app.harness.operations())).toEqual([
      '1 STEP reserve SUCCEEDED',
      '2 WAIT cool-off SUCCEEDED',
      '3 STEP charge SUCCEEDED',
    ]);
    expect(ran.get('fraud-check') ?? 0).toBe(before);
  });

  it('fails the v1 run with non_deterministic when v2 makes the same change without patched()', async () => {
    const app = await oldRunWaiting();
    app.deploy(v2Unpatched);
    await app.harness.runToEnd();
    const record = await app.harness.run();
    expect(record?.status).toBe('FAILED');
    expect(record?.error?.ErrorCode).toBe('non_deterministic');
    expect(record?.error?.ErrorMessage).toContain('Operation type mismatch for step "2"');
  });

  it('takes the new path on a run started on v2, records the marker, and keeps it on replay', async () => {
    const app = deployable(v2);
    await app.harness.start({ order: 2 });
    const before = ran.get('fraud-check') ?? 0;
    await app.harness.invoke();
    const marker = await app.harness.op('2');
    expect(marker).toMatchObject({
      Type: 'STEP',
      SubType: PATCH_SUBTYPE,
      Name: 'fraud-check',
      Status: 'SUCCEEDED',
    });
    expect(marker?.StepDetails?.Result).toBeUndefined();
    // The next invocation replays the marker: v2 again, the same (new) path.
    const invocations = await app.harness.runToEnd();
    expect(invocations).toBeGreaterThanOrEqual(1);
    expect((await app.harness.run())?.invocations).toBeGreaterThanOrEqual(2);
    expect(await resultOf(app.harness)).toEqual({ path: 'new', charged: 'charged' });
    expect(shape(await app.harness.operations())).toEqual([
      '1 STEP reserve SUCCEEDED',
      '2 STEP fraud-check SUCCEEDED',
      '3 STEP fraud-check SUCCEEDED',
      '4 WAIT cool-off SUCCEEDED',
      '5 STEP charge SUCCEEDED',
    ]);
    expect((ran.get('fraud-check') ?? 0) - before).toBe(1);
  });

  it('answers false for a patch placed before work the v1 run already completed', async () => {
    const app = await oldRunWaiting();
    app.deploy(async (_e, ctx) => {
      const validated = ctx.patched('validate-first') ? await ctx.step('validate', async () => 'ok') : 'skipped';
      await ctx.step('reserve', async () => 'reserved');
      await ctx.wait('cool-off', { seconds: 10 });
      await ctx.step('charge', async () => 'charged');
      return { path: validated === 'ok' ? 'new' : 'old', charged: 'charged' };
    });
    await app.harness.runToEnd();
    expect((await resultOf(app.harness)).path).toBe('old');
    expect((await app.harness.operations()).some((op) => op.SubType === PATCH_SUBTYPE)).toBe(false);
  });

  it('answers true for a patch past the point where the v1 run waits: the run has not got there yet', async () => {
    const app = await oldRunWaiting();
    app.deploy(async (_e, ctx) => {
      await ctx.step('reserve', async () => 'reserved');
      await ctx.wait('cool-off', { seconds: 10 });
      const audited = ctx.patched('audit');
      if (audited) await ctx.step('audit', async () => 'audited');
      const charged = await ctx.step('charge', async () => 'charged');
      return { path: audited ? 'new' : 'old', charged };
    });
    await app.harness.runToEnd();
    expect((await resultOf(app.harness)).path).toBe('new');
    expect(shape(await app.harness.operations())).toEqual([
      '1 STEP reserve SUCCEEDED',
      '2 WAIT cool-off SUCCEEDED',
      '3 STEP audit SUCCEEDED',
      '4 STEP audit SUCCEEDED',
      '5 STEP charge SUCCEEDED',
    ]);
  });

  it('gives one answer per patch id in a context: a second ask neither records nor takes an id', async () => {
    const app = await oldRunWaiting();
    const asked: boolean[] = [];
    app.deploy(async (_e, ctx) => {
      await ctx.step('reserve', async () => 'reserved');
      // At the wait's position on the old run: false, and false again after the wait, where
      // the old run has nothing yet.
      asked.push(ctx.patched('two-step'));
      await ctx.wait('cool-off', { seconds: 10 });
      asked.push(ctx.patched('two-step'));
      await ctx.step('charge', async () => 'charged');
      return { path: asked.at(-1) ? 'new' : 'old', charged: 'charged' };
    });
    await app.harness.runToEnd();
    expect((await resultOf(app.harness)).path).toBe('old');
    expect(asked).toEqual([false, false]);
    expect(shape(await app.harness.operations())).toEqual([
      '1 STEP reserve SUCCEEDED',
      '2 WAIT cool-off SUCCEEDED',
      '3 STEP charge SUCCEEDED',
    ]);
  });
});

describe('context.patched where the old run left a gap', () => {
  it('answers false when a later position is stored but the patch position is not (an outcome written behind was lost)', async () => {
    // The history v1 (two concurrent steps, lazy starts) leaves when its invocation dies while
    // "slow" runs: "fast" at 2 was written, "slow" at 1 never was. Written through the engine.
    const app = deployable(async () => 'v1 never runs here');
    await app.harness.start({});
    const session = await app.harness.engine.openRun(app.harness.runId, { remainingTimeMs: () => 60_000 });
    if (!session) throw new Error('the run did not open');
    await session.checkpoint([
      { Id: '2', Type: 'STEP', SubType: 'Step', Name: 'fast', Action: 'SUCCEED', Payload: '"fast"' },
    ]);
    // The invocation dies: its lease lapses, and the next one takes the run over.
    const lease = (await app.harness.run())?.leaseExpiresAt;
    if (lease === undefined) throw new Error('the run holds no lease');
    app.harness.clock.advanceTo(lease + 1);
    app.deploy(async (_e, ctx) => {
      const taken = ctx.patched('prefetch');
      if (taken) await ctx.step('prefetch', async () => 'prefetched');
      const both = await Promise.all([ctx.step('slow', async () => 'slow'), ctx.step('fast', async () => 'again')]);
      return { path: taken ? 'new' : 'old', charged: both.join('+') };
    });
    await app.harness.runToEnd();
    expect(await resultOf(app.harness)).toEqual({ path: 'old', charged: 'slow+fast' });
  });
});

describe('context.deprecatePatch', () => {
  /** v3: the old branch is gone; runs that recorded v2's marker still replay. */
  const v3: Code = async (_e, ctx) => {
    await ctx.step('reserve', async () => 'reserved');
    ctx.deprecatePatch('fraud-check');
    await ctx.step('fraud-check', async () => 'clean');
    await ctx.wait('cool-off', { seconds: 10 });
    const charged = await ctx.step('charge', async () => 'charged');
    return { path: 'new', charged };
  };

  it('replays a run that recorded the marker on v2, and records nothing on a new run, so v4 can drop the call', async () => {
    const app = deployable(v2);
    await app.harness.start({ order: 3 });
    await app.harness.invoke();
    expect((await app.harness.op('2'))?.SubType).toBe(PATCH_SUBTYPE);
    app.deploy(v3);
    await app.harness.runToEnd();
    expect(await resultOf(app.harness)).toEqual({ path: 'new', charged: 'charged' });

    const fresh = deployable(v3);
    await fresh.harness.start({ order: 4 });
    await fresh.harness.invoke();
    expect((await fresh.harness.operations()).some((op) => op.SubType === PATCH_SUBTYPE)).toBe(false);
    // v4 is v2Unpatched: the same operations without the call.
    fresh.deploy(v2Unpatched);
    await fresh.harness.runToEnd();
    expect(await resultOf(fresh.harness)).toEqual({ path: 'new', charged: 'charged' });
  });

  it('fails a run with the marker when the call is dropped too early (the marker still holds its position)', async () => {
    const app = deployable(v2);
    await app.harness.start({ order: 5 });
    await app.harness.invoke();
    app.deploy(v2Unpatched);
    await app.harness.runToEnd();
    expect((await app.harness.run())?.error?.ErrorCode).toBe('non_deterministic');
  });
});
