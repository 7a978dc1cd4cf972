/**
 * A parent opened while its child run has ended unannounced writes the invoke's end itself
 * (`settleOnOpen`). When that write lands but its answer is lost, the invocation must not go on
 * waiting for the child: the child's reconciler would find the invoke ended and wake no one, and
 * the parent would be stranded (found by the saga chaos seeds, seed 2000003). The invocation
 * fails instead; its lease keeps the run due, and the next invocation replays the invoke's end.
 */
import { withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';
import { type FaultRule, WakeWorld } from '../support/wake-world';

describe("a child's end written by its parent's own opening", () => {
  it('is not lost with the answer of its write: the parent resumes and finishes', async () => {
    const w = new WakeWorld();
    w.register(
      'child',
      withDurableExecution(async () => 'kid done'),
    );
    w.register(
      'parent',
      withDurableExecution(async (_e, ctx) => {
        const kid = ctx.invoke<undefined, string>('kid', 'child');
        // Wakes the parent while the child's notification has failed: the opening finds it ended.
        await ctx.wait('pause', { seconds: 10 });
        return kid;
      }),
    );
    let writes = 0;
    // The child's notification of its end fails; the parent's own write of it lands, unanswered.
    const rule: FaultRule = (point) => {
      if (point.kind !== 'store' || point.method !== 'writeOutsideEvent') return undefined;
      writes += 1;
      return writes === 1 ? 'throw' : writes === 2 ? 'lost' : undefined;
    };
    w.rule = rule;
    const runId = await w.start('parent');
    const run = await w.runUntilDone(runId);
    expect(writes).toBeGreaterThanOrEqual(2);
    expect(run).toMatchObject({ status: 'SUCCEEDED', result: '"kid done"' });
  });
});
