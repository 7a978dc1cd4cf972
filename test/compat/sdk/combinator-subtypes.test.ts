import type { Operation } from '@durable-lambda/protocol';
import { withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';
import { CountingStore, Harness } from '../../support/harness';

/**
 * context.promise combinators are stored as AWS's are, CONTEXT operations of SubType
 * `RunInChildContext`; a run recorded by an earlier version of this SDK (`PromiseAll`, …)
 * still replays to its end under its own SubTypes.
 */

/** Stores every combinator as the earlier SDK did: SubType `PromiseAll`. */
class EarlierSdkStore extends CountingStore {
  override commit(runId: string, fence: number, write: Parameters<CountingStore['commit']>[2]) {
    const operations = write.operations.map((op: Operation) =>
      op.Name === 'together' ? { ...op, SubType: 'PromiseAll' } : op,
    );
    return super.commit(runId, fence, { ...write, operations });
  }
}

const handler = withDurableExecution(async (_e, ctx) => {
  const a = ctx.step('a', async () => 1);
  const w = ctx.wait('w', { seconds: 30 });
  const values = await ctx.promise.all('together', [a, w]);
  await ctx.wait('after', { seconds: 5 });
  return values;
});

describe('combinator SubTypes', () => {
  it('are RunInChildContext, as AWS stores them', async () => {
    const h = new Harness(handler);
    await h.start();
    await h.runToEnd();
    expect(await h.op('3')).toMatchObject({
      Type: 'CONTEXT',
      SubType: 'RunInChildContext',
      Name: 'together',
      ContextDetails: { Result: '[1,null]' },
    });
    expect(JSON.parse(h.store.peekRun(h.runId)?.result ?? 'null')).toEqual([1, null]);
  });

  it('replay a run recorded with the earlier PromiseAll SubType to its end', async () => {
    const h = new Harness(handler, { inProcessWaitMs: 0 }, new EarlierSdkStore());
    await h.start();
    const first = await h.invoke();
    expect(first).toMatchObject({ type: 'completed', output: { Status: 'PENDING' } });
    expect(await h.op('3')).toMatchObject({ SubType: 'PromiseAll', Status: 'STARTED' });
    await h.runToEnd();
    expect(await h.op('3')).toMatchObject({ SubType: 'PromiseAll', Status: 'SUCCEEDED' });
    const run = h.store.peekRun(h.runId);
    expect(run?.status).toBe('SUCCEEDED');
    expect(JSON.parse(run?.result ?? 'null')).toEqual([1, null]);
  });
});
