/**
 * `context.patched` inside child contexts and map items (ids are positional per context), its
 * argument checks, and the marker as the test runner and AWS's history events show it.
 */
import { LocalDurableTestRunner } from '@durable-lambda/local';
import type { Operation } from '@durable-lambda/protocol';
import { type DurableContext, PATCH_SUBTYPE, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';
import { Harness } from '../../support/harness';

type Code = (event: unknown, ctx: DurableContext) => Promise<unknown>;

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

const markers = (ops: readonly Operation[]) =>
  ops.filter((op) => op.SubType === PATCH_SUBTYPE).map((op) => `${op.Id} ${op.Name} parent=${op.ParentId}`);

/** Each map item packs, waits, then ships; v2 labels before the wait, behind a patch. */
const mapV1: Code = async (_e, ctx) => {
  const out = await ctx.map('items', ['a', 'b'], async (c, item) => {
    await c.step('pack', async () => item);
    await c.wait('settle', { seconds: 10 });
    return `${item}:old`;
  });
  return out.getResults();
};
const mapV2: Code = async (_e, ctx) => {
  const out = await ctx.map('items', ['a', 'b'], async (c, item) => {
    await c.step('pack', async () => item);
    const labelled = c.patched('label');
    if (labelled) await c.step('label', async () => `${item}-label`);
    await c.wait('settle', { seconds: 10 });
    return `${item}:${labelled ? 'new' : 'old'}`;
  });
  return out.getResults();
};

/** A child context that reserves, waits, then confirms; v2 adds a hold behind a patch. */
const childV1: Code = async (_e, ctx) =>
  ctx.runInChildContext('booking', async (c) => {
    await c.step('reserve', async () => 1);
    await c.wait('hold', { seconds: 10 });
    return 'old';
  });
const childV2: Code = async (_e, ctx) =>
  ctx.runInChildContext('booking', async (c) => {
    await c.step('reserve', async () => 1);
    const held = c.patched('hold-seat');
    if (held) await c.step('hold-seat', async () => 2);
    await c.wait('hold', { seconds: 10 });
    return held ? 'new' : 'old';
  });

async function recordOnV1(v1: Code) {
  const app = deployable(v1);
  await app.harness.start({});
  await app.harness.invoke();
  expect((await app.harness.run())?.status).toBe('RUNNING');
  return app;
}

async function resultOf(h: Harness): Promise<unknown> {
  const record = await h.run();
  expect(record?.status).toBe('SUCCEEDED');
  return JSON.parse(record?.result ?? 'null');
}

describe('context.patched in child contexts and map items', () => {
  it('keeps map items recorded by v1 on the old path, and puts a new run’s items on the new one', async () => {
    const old = await recordOnV1(mapV1);
    old.deploy(mapV2);
    await old.harness.runToEnd();
    expect(await resultOf(old.harness)).toEqual(['a:old', 'b:old']);
    expect(markers(await old.harness.operations())).toEqual([]);

    const fresh = deployable(mapV2);
    await fresh.harness.start({});
    await fresh.harness.runToEnd();
    expect(await resultOf(fresh.harness)).toEqual(['a:new', 'b:new']);
    // One marker per item, at the item's own position 2, under the item's context.
    expect(markers(await fresh.harness.operations()).sort()).toEqual([
      '1-1-2 label parent=1-1',
      '1-2-2 label parent=1-2',
    ]);
  });

  it('keeps a child context recorded by v1 on the old path, and a new run on the new one', async () => {
    const old = await recordOnV1(childV1);
    old.deploy(childV2);
    await old.harness.runToEnd();
    expect(await resultOf(old.harness)).toBe('old');

    const fresh = deployable(childV2);
    await fresh.harness.start({});
    await fresh.harness.runToEnd();
    expect(await resultOf(fresh.harness)).toBe('new');
    expect(markers(await fresh.harness.operations())).toEqual(['1-2 hold-seat parent=1']);
  });
});

describe('context.patched arguments and misuse', () => {
  async function errorOf(call: (ctx: DurableContext) => unknown) {
    const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
      try {
        call(ctx);
        return { thrown: false };
      } catch (error) {
        const e = error as { code?: string; field?: string; message: string };
        return { code: e.code, field: e.field, message: e.message };
      }
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    return result.getResult();
  }

  it.each([
    ['an empty id', (ctx: DurableContext) => ctx.patched(''), 'patchId', 'patchId: must not be empty'],
    ['a number', (ctx: DurableContext) => ctx.patched(42 as unknown as string), 'patchId', 'patchId: must be a string'],
    ['no id', (ctx: DurableContext) => (ctx.patched as () => boolean)(), 'patchId', 'patchId: must be a string'],
    ['257 characters', (ctx: DurableContext) => ctx.patched('p'.repeat(257)), 'patchId', 'at most 256'],
    ['a control character', (ctx: DurableContext) => ctx.patched('a\nb'), 'patchId', 'control characters'],
    [
      'a second argument',
      (ctx: DurableContext) => (ctx.patched as (...a: unknown[]) => boolean)('x', {}),
      'patched',
      'takes (patchId) only',
    ],
    [
      'an empty id to deprecatePatch',
      (ctx: DurableContext) => ctx.deprecatePatch(''),
      'patchId',
      'patchId: must not be empty',
    ],
  ])('refuses %s with invalid_argument naming the field', async (_label, call, field, message) => {
    const seen = (await errorOf(call)) as { code: string; field: string; message: string };
    expect(seen).toMatchObject({ code: 'invalid_argument', field });
    expect(seen.message).toContain(message);
  });

  it('fails the run with context_misuse when asked inside a step', async () => {
    const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
      await ctx.step('inside', async () => ctx.patched('from-a-step'));
      return 'unreachable';
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getStatus()).toBe('FAILED');
    expect(result.getError()?.code).toBe('context_misuse');
  });
});

describe('the patch marker in the test runner and AWS’s history events', () => {
  it('shows as a succeeded step named after the patch, with no result', async () => {
    const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
      const taken = ctx.patched('new-flow');
      await ctx.wait('pause', { seconds: 5 });
      return taken;
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getResult()).toBe(true);
    const marker = result.getOperations().find((op) => op.getName() === 'new-flow');
    expect(marker?.getType()).toBe('STEP');
    expect(marker?.getSubType()).toBe(PATCH_SUBTYPE);
    expect(marker?.getStatus()).toBe('SUCCEEDED');
    expect(marker?.getStepDetails()?.result).toBeUndefined();
    const events = result.getHistoryEvents().filter((e) => e.Name === 'new-flow');
    expect(events.map((e) => e.EventType)).toEqual(['StepStarted', 'StepSucceeded']);
    expect(events.every((e) => e.SubType === PATCH_SUBTYPE)).toBe(true);
  });

  it('reaches instrumentation plugins as an operation that starts and ends, once, when recorded', async () => {
    const seen: string[] = [];
    const handler = withDurableExecution(
      async (_e: unknown, ctx: DurableContext) => {
        const taken = ctx.patched('new-flow');
        await ctx.wait('pause', { seconds: 5 });
        return taken;
      },
      {
        plugins: [
          {
            onOperationStart: async (info) => void seen.push(`start:${info.type}:${info.name}`),
            onOperationEnd: async (info) => void seen.push(`end:${info.type}:${info.name}`),
          },
        ],
      },
    );
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getResult()).toBe(true);
    expect(seen.filter((e) => e.endsWith(':new-flow'))).toEqual(['start:STEP:new-flow', 'end:STEP:new-flow']);
  });
});
