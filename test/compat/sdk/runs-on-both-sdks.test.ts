import { describe, expect, it } from 'vitest';
import { type Body, comparable, onBoth, runOnAws, runOnOurs, seen } from './on-both-sdks';

/**
 * Handler bodies written once, run on AWS's SDK 2.4.0 under AWS's runner 1.1.4 and on ours
 * under ours: the same run status, result or error, the same operations (type, subtype, name,
 * status, parent, attempt, stored result and error), and the same errors seen by handler code
 * (class, name, message, fields, cause chain).
 */

class OrderError extends Error {
  constructor(
    message: string,
    readonly orderId = 'o-1',
  ) {
    super(message);
    this.name = 'OrderError';
  }
}
const noRetry = { retryStrategy: () => ({ shouldRetry: false }) };

async function expectSame(body: Body) {
  const both = await onBoth(body);
  expect(comparable(both.ours)).toEqual(comparable(both.aws));
  return both;
}

describe('work still pending when the handler returns', () => {
  it('leaves an unawaited long wait STARTED and the run SUCCEEDED, as AWS does in real time', async () => {
    const body: Body = () => async (_e, ctx) => {
      void ctx.wait('long', { hours: 2 });
      await ctx.step('s', async () => 1);
      return 'done';
    };
    // AWS's runner with skipTime fires the 2 h timer at once, so only real time shows what
    // AWS's SDK does: it checkpoints the wait's START and never completes it.
    const aws = await runOnAws(body, { realTime: true });
    const ours = await runOnOurs(body);
    expect(comparable(ours)).toEqual(comparable(aws));
    expect(ours.operations[0]).toMatchObject({ type: 'WAIT', name: 'long', status: 'STARTED' });
    expect(ours.status).toBe('SUCCEEDED');
  });

  it('leaves an unawaited step STARTED (its outcome is never recorded)', async () => {
    await expectSame(() => async (_e, ctx) => {
      void ctx.step('bg', async () => {
        await new Promise((r) => setTimeout(r, 50));
        return 2;
      });
      return 'done';
    });
  });
});

describe('context.promise', () => {
  it('all, race, allSettled and any: the same values and the same child-context operations', async () => {
    const { ours } = await expectSame(() => async (_e, ctx) => {
      const ok = (m: string, v: number) => ctx.step(m, async () => v);
      const bad = (m: string) =>
        ctx.step(
          m,
          async () => {
            throw new TypeError(m);
          },
          noRetry,
        );
      const out: unknown[] = [];
      out.push(await ctx.promise.all([ok('a', 1), ok('b', 2)]));
      out.push(await ctx.promise.race('r', [ok('c', 3), ok('d', 4)]));
      const settled = await ctx.promise.allSettled([ok('e', 5), bad('f')]);
      out.push(settled.map((s) => (s.status === 'fulfilled' ? s : { status: s.status, reason: seen(s.reason) })));
      try {
        await ctx.promise.all([ok('i', 1), bad('j')]);
      } catch (e) {
        out.push(seen(e));
      }
      out.push(await ctx.promise.any([bad('k'), ok('l', 7)]));
      return out;
    });
    expect(ours.operations.filter((o) => o.type === 'CONTEXT').map((o) => o.subType)).toEqual(
      Array(5).fill('RunInChildContext'),
    );
  });

  it('all over a step and a wait: the wait’s value is null, live and on replay, as on AWS', async () => {
    const { ours } = await expectSame(() => async (_e, ctx) => {
      const values: unknown[] = await ctx.promise.all([
        ctx.step('a', async () => 1),
        ctx.wait('w', { seconds: 1 }),
      ] as never);
      const live = values.map((v) => (v === undefined ? 'undefined' : v));
      await ctx.wait('after', { seconds: 1 });
      const replayed: unknown[] = await ctx.promise.all([
        ctx.step('b', async () => 2),
        ctx.wait('w2', { seconds: 1 }),
      ] as never);
      return { live, replayed: replayed.map((v) => (v === undefined ? 'undefined' : v)) };
    });
    expect(ours.result).toEqual({ live: [1, null], replayed: [2, null] });
  });

  it('any rejects with a PromiseCombinatorError caused by AWS’s chain, in handler code and as the run’s error', async () => {
    const failing = (ctx: Parameters<ReturnType<Body>>[1], m: string) =>
      ctx.step(
        m,
        async () => {
          throw new Error(m);
        },
        noRetry,
      );
    const caught = await expectSame(() => async (_e, ctx) => {
      try {
        await ctx.promise.any([failing(ctx, 'a'), failing(ctx, 'b')]);
      } catch (e) {
        return seen(e);
      }
    });
    expect(caught.ours.result).toMatchObject({
      class: 'PromiseCombinatorError',
      message: 'All promises were rejected',
      cause: { class: 'StepError', cause: { name: 'AggregateError' } },
    });
    const run = await expectSame(() => async (_e, ctx) => {
      await ctx.promise.any([failing(ctx, 'a'), failing(ctx, 'b')]);
    });
    expect(run.ours.error).toMatchObject({ errorType: 'PromiseCombinatorError', code: 'promise_combinator_failed' });
  });
});

describe('context.promise.race', () => {
  it('settles as AWS’s does when a failing and a succeeding step settle together', async () => {
    const { ours } = await expectSame(() => async (_e, ctx) => {
      const ok = (m: string, v: number) => ctx.step(m, async () => v);
      const bad = (m: string) =>
        ctx.step(
          m,
          async () => {
            throw new TypeError(m);
          },
          noRetry,
        );
      const out: unknown[] = [];
      out.push(await ctx.promise.race([bad('g'), ok('h', 6)]).catch(seen));
      out.push(await ctx.promise.race([ok('i', 1), bad('j')]).catch(seen));
      out.push(await Promise.race([bad('k'), ok('l', 2)]).catch(seen));
      return out;
    });
    expect((ours.result as { class?: string }[])[0]?.class).toBe('PromiseCombinatorError');
  });
});

describe('errors', () => {
  const cases: Record<string, Body> = {
    'a step that throws a custom error class, caught': () => async (_e, ctx) => {
      try {
        await ctx.step(
          's',
          async () => {
            throw new OrderError('declined');
          },
          noRetry,
        );
      } catch (e) {
        return seen(e);
      }
    },
    'a step that throws a custom error class, uncaught': () => async (_e, ctx) => {
      await ctx.step(
        's',
        async () => {
          throw new OrderError('declined');
        },
        noRetry,
      );
    },
    'a handler that throws a custom error class': () => async () => {
      throw new OrderError('top');
    },
    'a child context that throws, caught and uncaught': () => async (_e, ctx) => {
      const child = () =>
        ctx.runInChildContext('c', async () => {
          throw new OrderError('in child');
        });
      const first = await child().catch(seen);
      await ctx.runInChildContext('c2', async () => {
        throw new RangeError(JSON.stringify(first).length > 0 ? 'again' : '');
      });
    },
    'a StepError with data, caught and uncaught': (sdk) => async (_e, ctx) => {
      const fail = (name: string) =>
        ctx.step(
          name,
          async () => {
            throw new sdk.StepError('with data', new Error('inner'), '{"k":1}');
          },
          noRetry,
        );
      const first = await fail('a').catch(seen);
      if (!first) return;
      await fail('b');
    },
    'a waitForCondition check that throws': () => async (_e, ctx) => {
      try {
        await ctx.waitForCondition(
          'wfc',
          async () => {
            throw new OrderError('check');
          },
          { initialState: 0, waitStrategy: () => ({ shouldContinue: false }) },
        );
      } catch (e) {
        return seen(e);
      }
    },
    'a waitForCallback submitter that throws': () => async (_e, ctx) => {
      try {
        await ctx.waitForCallback(
          'cb',
          async () => {
            throw new OrderError('submit');
          },
          { timeout: { seconds: 5 }, retryStrategy: () => ({ shouldRetry: false }) },
        );
      } catch (e) {
        return seen(e);
      }
    },
  };
  for (const [name, body] of Object.entries(cases)) it(name, () => expectSame(body).then(() => {}));

  it('keeps our stable code on the run’s error and the caught error, out of sight of toEqual', async () => {
    let caught: unknown;
    const { ours } = await onBoth((_sdk, side) => async (_e, ctx) => {
      try {
        await ctx.step(
          's',
          async () => {
            throw new OrderError('declined');
          },
          noRetry,
        );
      } catch (e) {
        if (side === 'ours') caught = e;
        throw e;
      }
    });
    expect((caught as { code?: string }).code).toBe('step_failed');
    expect(Object.keys(caught as object)).not.toContain('code');
    expect(ours.error?.code).toBe('step_failed');
  });
});

describe('retries and semantics', () => {
  it('the default strategy: 6 attempts, then a StepError caused by the last error', async () => {
    const { ours } = await expectSame(() => async (_e, ctx) => {
      try {
        await ctx.step('s', async () => {
          throw new Error('again');
        });
      } catch (e) {
        return seen(e);
      }
    });
    expect(ours.operations[0]).toMatchObject({ status: 'FAILED', attempt: 6 });
  });

  it('retryPresets and createRetryStrategy, under AtMostOncePerRetry and AtLeastOncePerRetry', async () => {
    for (const semantics of ['AtMostOncePerRetry', 'AtLeastOncePerRetry'] as const) {
      await expectSame((sdk) => async (_e, ctx) => {
        const out: unknown[] = [];
        for (const retryStrategy of [
          sdk.retryPresets.linear,
          sdk.createRetryStrategy({ maxAttempts: 3, initialDelay: { seconds: 2 }, jitter: sdk.JitterStrategy.NONE }),
        ]) {
          out.push(
            await ctx
              .step(
                async () => {
                  throw new OrderError('x');
                },
                { retryStrategy, semantics: sdk.StepSemantics[semantics] },
              )
              .catch(seen),
          );
        }
        return out;
      });
    }
  });

  it('waitForCondition with createWaitStrategy: the same checks and state', async () => {
    await expectSame(
      (sdk) => async (_e, ctx) =>
        ctx.waitForCondition('wfc', async (s: number) => s + 1, {
          initialState: 0,
          waitStrategy: sdk.createWaitStrategy({
            shouldContinuePolling: (s: number) => s < 3,
            initialDelay: { seconds: 2 },
          }),
        }),
    );
  });
});

describe('refusal of a parent context', () => {
  for (const [where, body] of Object.entries<Body>({
    'a child context': () => async (_e, ctx) => {
      await ctx.runInChildContext('misuse', async () => ctx.step('inner', async () => 1));
    },
    'a step': () => async (_e, ctx) => {
      await ctx.step('outer', async () => ctx.wait({ seconds: 1 }));
    },
  })) {
    it(`inside ${where}: the same error, and the operations started before it recorded`, async () => {
      const { ours } = await expectSame(body);
      expect(ours.error?.errorMessage).toMatch(/^Context usage error in/);
    });
  }

  it('inside a waitForCondition check fails the run with AWS’s error', async () => {
    const { aws, ours } = await onBoth(() => async (_e, ctx) => {
      await ctx.waitForCondition(
        'wfc',
        async (s: number) => {
          await ctx.step('x', async () => 1);
          return s;
        },
        { initialState: 0, waitStrategy: () => ({ shouldContinue: false }) },
      );
    });
    // The same error; AWS's operations also show the check's STARTED step, which ours never
    // writes (a check costs one write, its verdict: RETRY or SUCCEED).
    expect(comparable(ours).error).toEqual(comparable(aws).error);
    expect(ours.error?.errorMessage).toMatch(/^Context usage error in "step"/);
  });
});

describe('serdes', () => {
  it('custom serdes on a step and a child context store the same data and read back the same values', async () => {
    await expectSame(() => async (_e, ctx) => {
      const serdes = {
        serialize: async (v: unknown) => `X${JSON.stringify(v)}`,
        deserialize: async (s: string | undefined) => (s === undefined ? undefined : JSON.parse(s.slice(1))),
      };
      const a = await ctx.runInChildContext('c', async () => ({ v: 1 }), { serdes });
      const b = await ctx.step('s', async () => ({ v: 2 }), { serdes });
      await ctx.wait({ seconds: 1 });
      return { a, b };
    });
  });

  it('createClassSerdesWithDates round-trips an instance through a replay', async () => {
    const { ours } = await expectSame((sdk) => async (_e, ctx) => {
      class Priced {
        amount = 0;
        at = new Date(0);
        get doubled() {
          return this.amount * 2;
        }
      }
      const serdes = sdk.createClassSerdesWithDates(Priced, ['at']);
      const p = await ctx.step(
        's',
        async () => Object.assign(new Priced(), { amount: 4, at: new Date('2026-01-01Z') }),
        {
          serdes,
        },
      );
      await ctx.wait({ seconds: 1 });
      return { instance: p instanceof Priced, doubled: p.doubled, at: p.at instanceof Date && p.at.toISOString() };
    });
    expect(ours.result).toEqual({ instance: true, doubled: 8, at: '2026-01-01T00:00:00.000Z' });
  });
});
