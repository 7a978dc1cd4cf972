/**
 * The one Lambda entry (`serveLambdaEvent` over a `backendLoader`), shared by our SDK's
 * `withDurableExecution` and `@durable-lambda/aws`'s `selfHosted` (AWS's own SDK self-hosted):
 * each wrapper answers an event the backend does not open without running the handler, stops
 * quietly when a newer invocation owns the run, and on an infrastructure fault aborts the
 * invocation (releasing its lease) and throws, so Lambda retries the event.
 */
import { selfHosted } from '@durable-lambda/aws';
import { Engine, MemoryStore } from '@durable-lambda/engine';
import { type DurableBackend, type DurableInvocation, FencedError } from '@durable-lambda/protocol';
import { backendLoader, serveLambdaEvent, withDurableExecution } from '@durable-lambda/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { type AwsDurableSdk, importAwsSdk } from '../support/aws-sdk';

let aws: AwsDurableSdk;
beforeAll(async () => {
  aws = await importAwsSdk();
});

/** What the wrapped backend saw of the invocations it opened. */
interface Seen {
  closed: unknown[];
  aborted: unknown[];
  ran: number;
}

/**
 * An in-memory engine as the backend; `checkpointError`, when given, is what every checkpoint of
 * an opened invocation rejects with (a fence, or an infrastructure fault).
 */
function engineBackend(seen: Seen, checkpointError?: () => Error): DurableBackend {
  const engine = new Engine({ store: new MemoryStore(), waker: { wakeAt: async () => {}, cancel: async () => {} } });
  return {
    async open(event, context) {
      const result = await engine.open(event, context);
      if (!result.opened) return result;
      const opened = result.opened;
      const faulty = new Proxy(opened.invocation, {
        get(target, key) {
          if (key === 'checkpoint' && checkpointError) {
            return async () => {
              throw checkpointError();
            };
          }
          const value = Reflect.get(target, key, target) as unknown;
          return typeof value === 'function' ? value.bind(target) : value;
        },
      }) as DurableInvocation;
      return {
        opened: {
          invocation: faulty,
          close: async (output) => {
            seen.closed.push(output.Status);
            return opened.close(output);
          },
          abort: async (error) => {
            seen.aborted.push(error);
            return opened.abort(error);
          },
        },
      };
    },
  };
}

type Wrap = (seen: Seen, backend: DurableBackend) => (event: unknown, context?: object) => Promise<unknown>;

const wrappers: Array<[string, Wrap]> = [
  [
    "our SDK's withDurableExecution",
    (seen, backend) =>
      withDurableExecution(
        async (_event, ctx) => {
          seen.ran += 1;
          return ctx.step('work', async () => 'done');
        },
        { backend },
      ),
  ],
  [
    "selfHosted (AWS's SDK)",
    (seen, backend) =>
      selfHosted(
        aws.withDurableExecution(async (_event: unknown, ctx) => {
          seen.ran += 1;
          return ctx.step('work', async () => 'done');
        }),
        { backend },
      ),
  ],
];

let requests = 0;
const context = () => ({
  functionName: 'fn',
  awsRequestId: `req-${++requests}`,
  getRemainingTimeInMillis: () => 60_000,
});

describe.each(wrappers)('the Lambda entry of %s', (_name, wrap) => {
  const fresh = (): Seen => ({ closed: [], aborted: [], ran: 0 });

  it('runs an opened invocation and closes it with its result', async () => {
    const seen = fresh();
    const handler = wrap(seen, engineBackend(seen));
    expect(await handler({ n: 1 }, context())).toMatchObject({ Status: 'SUCCEEDED' });
    expect([seen.ran, seen.closed, seen.aborted]).toEqual([1, ['SUCCEEDED'], []]);
  });

  it('answers an event the backend does not open with its response, without running the handler', async () => {
    const seen = fresh();
    const handler = wrap(seen, { open: async () => ({ response: { Status: 'NOT_FOUND', runId: 'r-1' } }) });
    const wake = { durableLambda: { action: 'wake', runId: 'r-1' } };
    expect(await handler(wake, context())).toEqual({ Status: 'NOT_FOUND', runId: 'r-1' });
    expect(seen.ran).toBe(0);
  });

  it('answers STOPPED when a newer invocation owns the run (a fenced checkpoint), neither closing nor aborting', async () => {
    const seen = fresh();
    const handler = wrap(
      seen,
      engineBackend(seen, () => new FencedError()),
    );
    expect(await handler({ n: 1 }, context())).toEqual({
      Status: 'STOPPED',
      reason: 'a newer invocation owns this run',
    });
    expect([seen.ran, seen.closed, seen.aborted]).toEqual([1, [], []]);
  });

  it('aborts the invocation and throws on an infrastructure fault, so Lambda retries the event', async () => {
    const seen = fresh();
    const handler = wrap(
      seen,
      engineBackend(seen, () => new Error('DynamoDB throttled')),
    );
    await expect(handler({ n: 1 }, context())).rejects.toThrow('DynamoDB throttled');
    expect(seen.closed).toEqual([]);
    expect(seen.aborted).toHaveLength(1);
  });
});

describe('serveLambdaEvent and backendLoader', () => {
  it('load a backend once, try a failed load again, and hand the opened invocation to the run callback', async () => {
    const seen: Seen = { closed: [], aborted: [], ran: 0 };
    let loads = 0;
    const backend = engineBackend(seen);
    const load = backendLoader(() => () => {
      loads += 1;
      if (loads === 1) throw new Error('not yet');
      return backend;
    });
    const run = async () => {
      seen.ran += 1;
      return { type: 'completed' as const, output: { Status: 'SUCCEEDED' as const, Result: '"hi"' } };
    };
    await expect(serveLambdaEvent(load, {}, context(), run)).rejects.toThrow('not yet');
    expect(await serveLambdaEvent(load, {}, context(), run)).toMatchObject({ Status: 'SUCCEEDED', Result: '"hi"' });
    expect(await serveLambdaEvent(load, {}, context(), run)).toMatchObject({ Status: 'SUCCEEDED' });
    expect([loads, seen.ran, seen.closed]).toEqual([2, 2, ['SUCCEEDED', 'SUCCEEDED']]);
  });
});
