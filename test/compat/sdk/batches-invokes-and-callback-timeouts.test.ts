import { describe, expect, it } from 'vitest';
import { type Body, comparable, type Outcome, onBoth, seen } from './on-both-sdks';

/**
 * map and parallel (completion configs, BatchResult methods), invoke and callback timeouts on
 * AWS's SDK under AWS's runner and on ours: what handler code sees is the same; the stored
 * forms that differ by design are named where they are left out.
 */

class ItemError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ItemError';
  }
}

/** A BatchResult as handler code reads it, through each of its methods. */
function read(r: {
  all: { index: number; status: string; result?: unknown; error?: unknown }[];
  status: string;
  completionReason: string;
  successCount: number;
  failureCount: number;
  startedCount: number;
  totalCount: number;
  hasFailure: boolean;
  getResults(): unknown[];
  getErrors(): unknown[];
  succeeded(): { index: number; result?: unknown }[];
  failed(): { index: number }[];
  started(): { index: number }[];
  throwIfError(): void;
}) {
  let thrown: unknown;
  try {
    r.throwIfError();
  } catch (e) {
    thrown = seen(e);
  }
  return {
    all: r.all.map((x) => ({ ...x, error: x.error && seen(x.error) })),
    status: r.status,
    completionReason: r.completionReason,
    counts: [r.successCount, r.failureCount, r.startedCount, r.totalCount, r.hasFailure],
    results: r.getResults(),
    errors: r.getErrors().map(seen),
    succeeded: r.succeeded().map((x) => [x.index, x.result]),
    failed: r.failed().map((x) => x.index),
    started: r.started().map((x) => x.index),
    thrown,
  };
}

/**
 * Without the stored payload of the Map or Parallel operation itself: AWS stores its own
 * BatchResult JSON (`all`, `completionReason`, errors with their cause chain), ours a compact
 * `MapResult`/`ParallelResult` record; both read back as the same BatchResult (compared above).
 */
function withoutBatchPayload(outcome: Outcome): Outcome {
  const c = comparable(outcome);
  return {
    ...c,
    operations: c.operations.map((op) =>
      op.subType === 'Map' || op.subType === 'Parallel' ? { ...op, result: typeof op.result } : op,
    ),
  };
}

const items = [1, 2, 3, 4];
const oddFails = async (_c: unknown, item: number) => {
  if (item % 2) throw new ItemError(`odd ${item}`);
  return item * 10;
};

describe('map completion configs and BatchResult', () => {
  const cases: Record<string, object> = {
    'no completion config (all items run)': {},
    minSuccessful: { completionConfig: { minSuccessful: 1 }, maxConcurrency: 1 },
    toleratedFailureCount: { completionConfig: { toleratedFailureCount: 0 }, maxConcurrency: 1 },
    toleratedFailurePercentage: { completionConfig: { toleratedFailurePercentage: 50 } },
  };
  for (const [name, config] of Object.entries(cases)) {
    it(name, async () => {
      const { aws, ours } = await onBoth(
        () => async (_e, ctx) => read((await ctx.map('m', items, oddFails as never, config as never)) as never),
      );
      expect(withoutBatchPayload(ours)).toEqual(withoutBatchPayload(aws));
    });
  }
});

describe('parallel', () => {
  it('named and unnamed branches, a failing one: the same BatchResult', async () => {
    const { aws, ours } = await onBoth(() => async (_e, ctx) => {
      const r = await ctx.parallel('p', [
        async () => 1,
        { name: 'two', func: async (c) => c.step('in', async () => 2) },
        async () => {
          throw new ItemError('p3');
        },
      ]);
      return read(r as never);
    });
    expect(ours.result).toEqual(aws.result);
    // The branch still running when the batch ended: AWS leaves it STARTED, ours records its end
    // when it gets there (it is not awaited by anyone either way).
    const branches = (o: Outcome) => withoutBatchPayload(o).operations.filter((op) => op.name !== 'two');
    expect(branches(ours)).toEqual(branches(aws));
  });
});

describe('invoke', () => {
  const child: Body = () => async (event, ctx) => ({
    doubled: (event as { n: number }).n * 2,
    s: await ctx.step('s', async () => 1),
  });
  const failing: Body = () => async () => {
    throw new ItemError('child failed');
  };

  it('returns the invoked durable function’s result', async () => {
    const { aws, ours } = await onBoth(() => async (_e, ctx) => ctx.invoke('call', 'child', { n: 2 }), {
      durableFunctions: { child },
    });
    expect(comparable(ours)).toEqual(comparable(aws));
  });

  it('throws an InvokeError when it fails, and fails the run with it uncaught', async () => {
    for (const catchIt of [true, false]) {
      const { aws, ours } = await onBoth(
        () => async (_e, ctx) => {
          const call = ctx.invoke('call', 'child', { n: 1 });
          return catchIt ? call.catch(seen) : call;
        },
        { durableFunctions: { child: failing } },
      );
      expect(comparable(ours)).toEqual(comparable(aws));
    }
  });
});

describe('callback timeouts', () => {
  /** The same classes, names, messages and cause chains: the engine stores AWS's timeout errors. */
  const cases: Record<string, Body> = {
    'waitForCallback timeout': () => async (_e, ctx) =>
      ctx.waitForCallback('cb', async () => {}, { timeout: { seconds: 5 } }).catch(seen),
    'waitForCallback heartbeat timeout': () => async (_e, ctx) =>
      ctx
        .waitForCallback('cb', async () => {}, { heartbeatTimeout: { seconds: 5 }, timeout: { hours: 1 } })
        .catch(seen),
  };
  for (const [name, body] of Object.entries(cases)) {
    it(`${name}: a CallbackTimeoutError`, async () => {
      const { aws, ours } = await onBoth(body);
      expect(ours.result).toEqual(aws.result);
      expect(ours.result).toMatchObject({ class: 'CallbackTimeoutError' });
      expect(ours.operations.map((o) => [o.type, o.status])).toEqual(aws.operations.map((o) => [o.type, o.status]));
    });
  }
});

describe('serdes on map and parallel items', () => {
  it('itemSerdes stores each item’s result its way and reads it back, through a replay', async () => {
    const { aws, ours } = await onBoth(() => async (_e, ctx) => {
      const itemSerdes = {
        serialize: async (v: unknown) => (v === undefined ? undefined : `item:${JSON.stringify(v)}`),
        deserialize: async (s: string | undefined) => (s === undefined ? undefined : JSON.parse(s.slice(5))),
      };
      const m = await ctx.map('m', [1, 2], async (_c, n: number) => ({ n }), { itemSerdes } as never);
      const p = await ctx.parallel('p', [async () => ({ b: 1 })], { itemSerdes } as never);
      await ctx.wait({ seconds: 1 });
      return { m: m.getResults(), p: p.getResults() };
    });
    expect(withoutBatchPayload(ours)).toEqual(withoutBatchPayload(aws));
    expect(ours.operations.find((o) => o.name === 'map-item-0')?.result).toBe('item:{"n":1}');
  });
});
