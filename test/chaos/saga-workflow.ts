/**
 * Saga seeds' workflows (issue 27): steps that register their undo, one of them failing for good
 * (registered, never undone), a child context that registers two and fails (it undoes its own
 * first), a wait, a callback and an invoke (so every fault kind has a place), then either the
 * handler throws (`throw`: the SDK undoes the rest before the run fails) or it calls
 * `ctx.compensate()` twice around a later compensable step (`compensate`: the run succeeds with
 * the report). Every undo records its execution in the outside world's ledger as `undo-<step>`.
 */
import {
  type CompensationConfig,
  type DurableContext,
  NonRetriableError,
  type RetryPolicy,
  StepSemantics,
  withDurableExecution,
} from '@durable-lambda/sdk';
import type { OutsideWorld } from './outside-world';
import type { ReferenceWorkflow } from './workflows';

/** Enough attempts that injected deaths (each a lost attempt) never exhaust a step. */
const RETRY: RetryPolicy = { maxAttempts: 40, initialMs: 1_000, maxMs: 1_000, jitter: 'NONE' };

/** How a saga seed ends its run. */
export type SagaVariant = 'throw' | 'compensate';

/** The ledger's name for the undo of step `step`. */
export const undoName = (step: string): string => `undo-${step}`;

/** What a saga seed must leave behind, besides the world's and the steps' invariants. */
export interface SagaExpectation {
  variant: SagaVariant;
  /** Steps that registered an undo and failed: never undone. */
  neverUndone: string[];
  /** Each round's context (`top`, or the child context's name) and the steps it undoes, in order. */
  rounds: Array<{ context: 'top' | 'pack'; steps: string[] }>;
  /** Undos that fail after their retries (the run's report lists them as failed). */
  failing: string[];
}

export interface SagaWorkflow extends ReferenceWorkflow {
  saga: SagaExpectation;
}

/** The saga workflow of a seed (the variant alternates with the seed). */
export function sagaWorkflow(world: OutsideWorld, id: number, variant: SagaVariant): SagaWorkflow {
  const undo = (step: string, fails = false): CompensationConfig<unknown> => ({
    run: async (_result, context) => {
      await world.step(undoName(step), context);
      if (fails) throw new Error(`${step} cannot be undone`);
    },
    retry: fails ? { maxAttempts: 2, initialMs: 1_000, jitter: 'NONE' } : RETRY,
  });
  const step = (ctx: DurableContext, name: string, value: unknown, compensate?: CompensationConfig<unknown>) =>
    ctx.step(
      name,
      async (context) => {
        await world.step(name, context);
        return value;
      },
      { retry: RETRY, ...(compensate ? { compensate } : {}) },
    );

  const saga = withDurableExecution(async (event: { id: number }, ctx: DurableContext) => {
    await step(ctx, 'reserve', `r-${event.id}`, undo('reserve'));
    await ctx.step(
      'charge',
      async (context) => {
        await world.step('charge', context, { atMostOnce: true });
        return `ch-${event.id}`;
      },
      { semantics: StepSemantics.AtMostOncePerRetry, retry: RETRY, compensate: undo('charge') },
    );
    // Registered its undo, then failed for good: nothing of it to undo.
    const held = await ctx
      .step(
        'hold',
        async (context) => {
          await world.step('hold', context);
          throw new NonRetriableError('no hold');
        },
        { retry: RETRY, compensate: undo('hold') },
      )
      .catch(() => 'not held');
    await ctx.wait('cool-off', { seconds: 30 });
    const approval = await ctx.waitForCallback<string>(
      'approve',
      async (callbackId, context) => {
        await world.step('approve-submit', context);
        world.handOut(callbackId, `ok-${event.id}`);
      },
      { retryStrategy: () => ({ shouldRetry: true, delay: { seconds: 1 } }) },
    );
    const bill = await ctx.invoke<{ n: number }, number>('bill', 'billing', { n: event.id });
    // A child context that fails undoes its own succeeded steps before its failure is recorded.
    const packed = await ctx
      .runInChildContext('pack', async (child) => {
        await step(child, 'pack-a', 'a', undo('pack-a'));
        await step(child, 'pack-b', 'b', undo('pack-b'));
        throw new NonRetriableError('packing failed');
      })
      .catch(() => 'not packed');
    await step(ctx, 'ship', `s-${event.id}`, undo('ship', true));
    if (variant === 'throw') throw new Error('saga gives up');
    const first = await ctx.compensate();
    await step(ctx, 'late', 'l', undo('late'));
    const report = await ctx.compensate();
    return { held, approval, bill, packed, first, report };
  });
  const billing = withDurableExecution(async (event: { n: number }, ctx: DurableContext) => {
    const x = await ctx.step(
      'compute',
      async (context) => {
        await world.step('compute', context);
        return event.n * 2;
      },
      { retry: RETRY },
    );
    await ctx.wait({ seconds: 5 });
    return x + 7;
  });
  const top = ['ship', 'charge', 'reserve'];
  const rounds: SagaExpectation['rounds'] = [
    { context: 'pack', steps: ['pack-b', 'pack-a'] },
    { context: 'top', steps: top },
    ...(variant === 'compensate' ? [{ context: 'top' as const, steps: ['late'] }] : []),
  ];
  // The report of the child's round is held by the invocation that ran it: a run that fails (or
  // reports) in a later invocation reports the rest only. `expected` is the fullest; the checks
  // accept the report without the child's entries too.
  const compensated = ['pack-b', 'pack-a', 'charge', 'reserve'];
  const failed = [{ step: 'ship', error: 'ship cannot be undone' }];
  return {
    name: `saga-${variant}`,
    main: 'saga',
    functions: { saga, billing },
    input: { id },
    expected:
      variant === 'throw'
        ? { error: 'saga gives up', report: { compensated, failed } }
        : {
            held: 'not held',
            approval: `ok-${id}`,
            bill: id * 2 + 7,
            packed: 'not packed',
            first: { compensated, failed },
            report: { compensated: [...compensated, 'late'], failed },
          },
    saga: { variant, neverUndone: ['hold'], rounds, failing: ['ship'] },
  };
}
