import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createControlApi, toNodeListener } from '@durable-lambda/api';
import { type DurableLambdaHandler, withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as AwsTesting from '../../bench/node_modules/@aws/durable-execution-sdk-js-testing/dist-types/index';
import { CloudDurableTestRunner } from '../../packages/local/src/cloud/cloud-durable-test-runner';
import type { CloudTestResult } from '../../packages/local/src/cloud/cloud-test-result';
import { LocalRuntime } from '../../packages/local/src/embedded/local-runtime';
import { SqliteStore } from '../../packages/local/src/embedded/sqlite-store';

type LambdaModule = typeof import('@aws-sdk/client-lambda');

// AWS's testing package and the Lambda client it loads itself (bench's copies).
const bench = createRequire(new URL('../../bench/package.json', import.meta.url));
const lambdaModule = bench('@aws-sdk/client-lambda') as LambdaModule;
const testingEntry = new URL(
  '../../bench/node_modules/@aws/durable-execution-sdk-js-testing/dist/index.mjs',
  import.meta.url,
);

type Approval = { doubled: number; answer: string };
type AwsResult<T> = AwsTesting.TestResult<T>;
type OurResult<T> = CloudTestResult<T>;

const dir = mkdtempSync(join(tmpdir(), 'durable-aws-cloud-runner-'));
const quiet = { logSink: () => {}, inProcessWaitMs: 0 };

const approval = withDurableExecution(async (event: { n: number }, ctx) => {
  const doubled = await ctx.step('double', async () => event.n * 2);
  await ctx.wait('nap', { seconds: 1 });
  const [answer] = await ctx.createCallback<string>('approval', { timeout: { minutes: 5 } });
  return { doubled, answer: await answer };
}, quiet);

const failing = withDurableExecution(async (_event: unknown, ctx) => {
  await ctx.step(
    'reserve',
    async () => {
      throw new TypeError('no pears left');
    },
    { retryStrategy: () => ({ shouldRetry: false }) },
  );
}, quiet);

/** Attempts of the flaky step, per run (keyed by its input): the first one fails. */
const tries = new Map<string, number>();
const rich = withDurableExecution(async (event: { key: string }, ctx) => {
  const attempt = await ctx.step(
    'flaky',
    async () => {
      const n = (tries.get(event.key) ?? 0) + 1;
      tries.set(event.key, n);
      if (n < 2) throw new Error('not yet');
      return n;
    },
    { retryStrategy: (_error, count) => ({ shouldRetry: count < 3, delay: { seconds: 1 } }) },
  );
  const approved = await ctx.waitForCallback<string>('approve', async () => {}, { timeout: { minutes: 5 } });
  const inner = await ctx.runInChildContext('inner', async (child) => child.step('deep', async () => 'd'));
  return { attempt, approved, inner };
}, quiet);

// The dev server's backend (SQLite store, timer waker, in-process invoker) behind the whole control
// API: the dev server itself forwards only /v1 to it.
const store = new SqliteStore({ path: join(dir, 'dev.sqlite') });
const runtime = new LocalRuntime({
  store,
  functions: new Map<string, DurableLambdaHandler>([
    ['approval', approval],
    ['failing', failing],
    ['rich', rich],
  ]),
});
const api = createControlApi({
  engine: runtime.engine,
  functions: ['approval', 'failing', 'rich'],
  invoker: runtime.invoker,
  onError: (error) => void errors.push(error),
});
const errors: unknown[] = [];
const server = createServer(toNodeListener(api));
let url: string;
let testing: typeof AwsTesting;
let lambda: InstanceType<LambdaModule['LambdaClient']>;

beforeAll(async () => {
  await runtime.start();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  testing = (await import(testingEntry.href)) as typeof AwsTesting;
  lambda = new lambdaModule.LambdaClient({
    endpoint: url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIDFAKEFAKEFAKE', secretAccessKey: 'fake' },
  });
});
afterAll(async () => {
  lambda?.destroy();
  await new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  await runtime.stop();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What a history says, without its times and ids (which differ between two runs). */
type HistoryEvent = { EventType?: string; Name?: string; SubType?: string; ParentId?: string };
/**
 * A history's shape: each operation event in order, and how many invocations completed. Where an
 * invocation's end falls among the events is left out: a callback the test completes while the
 * invocation that created it is still ending lands before that invocation's end on a loaded
 * machine and after it on an idle one, through either runner.
 */
const signature = (events: ReadonlyArray<HistoryEvent>) => ({
  events: events
    .filter((event) => event.EventType !== 'InvocationCompleted')
    .map((event) => [event.EventType, event.Name, event.SubType, event.ParentId === undefined]),
  invocationsCompleted: events.filter((event) => event.EventType === 'InvocationCompleted').length,
});

/** An error with its stack trace reduced to whether it has one (two runs throw from different frames). */
function withoutStack<T>(error: T): T {
  if (!error || typeof error !== 'object') return error;
  const { stackTrace, ...rest } = error as { stackTrace?: string[] };
  return { ...rest, stackTrace: Array.isArray(stackTrace) && stackTrace.length > 0 } as T;
}

/** What a test sees of a result's operations, without times, callback ids and stack frames. */
function operationsOf(result: { getOperations(): Array<ObservedOperation> }) {
  return result.getOperations().map((op) => {
    const type = op.getType();
    return {
      name: op.getName(),
      type,
      subType: op.getSubType(),
      status: op.getStatus(),
      ...(type === 'STEP' ? { step: stepWithoutStack(op.getStepDetails()) } : {}),
      ...(type === 'WAIT' ? { waitSeconds: op.getWaitDetails()?.waitSeconds } : {}),
      ...(type === 'CALLBACK'
        ? { callback: { ...op.getCallbackDetails(), callbackId: typeof op.getCallbackDetails()?.callbackId } }
        : {}),
      ...(type === 'CONTEXT' ? { context: op.getContextDetails(), children: op.getChildOperations()?.length } : {}),
      events: op.getEvents()?.map((event) => event.EventType),
    };
  });
}

/** Step details without stack frames and times. */
function stepWithoutStack(details: unknown): unknown {
  if (!details || typeof details !== 'object') return details;
  const { error, nextAttemptTimestamp, ...rest } = details as { error?: unknown; nextAttemptTimestamp?: unknown };
  // Two runs differ in their times: whether there is one is what must match.
  return { ...rest, error: withoutStack(error), nextAttemptTimestamp: nextAttemptTimestamp instanceof Date };
}

interface ObservedOperation {
  getName(): string | undefined;
  getType(): string | undefined;
  getSubType(): string | undefined;
  getStatus(): string | undefined;
  getStepDetails(): unknown;
  getWaitDetails(): { waitSeconds?: number } | undefined;
  getCallbackDetails(): { callbackId: string } | undefined;
  getEvents(): Array<{ EventType?: string }> | undefined;
  getContextDetails(): unknown;
  getChildOperations(): unknown[] | undefined;
}

describe("AWS's own CloudDurableTestRunner, its Lambda client pointed at our control API", () => {
  const config = { pollInterval: 20 };
  const awsRunner = <T>(functionName: string) =>
    new testing.CloudDurableTestRunner<T>({
      functionName,
      client: lambda as never,
      config: { ...config, invocationType: lambdaModule.InvocationType.Event },
    });
  const ourRunner = <T>(functionName: string) =>
    new CloudDurableTestRunner<T>({ functionName, api: { baseUrl: url }, config });

  it('runs a step, a wait and a callback it completes itself; ours shows the same run the same way', async () => {
    const results = [];
    for (const runner of [awsRunner<Approval>('approval'), ourRunner<Approval>('approval')]) {
      const execution = runner.run({ payload: { n: 21 } });
      const callback = await runner.getOperation('approval').waitForData();
      await callback.sendCallbackSuccess('yes, go');
      results.push(await execution);
    }
    const [theirs, ours] = results as [AwsResult<Approval>, OurResult<Approval>];

    expect(theirs.getStatus()).toBe('SUCCEEDED');
    expect(theirs.getResult()).toEqual({ doubled: 42, answer: 'yes, go' });
    expect(operationsOf(theirs).map((op) => [op.name, op.type, op.status])).toEqual([
      ['double', 'STEP', 'SUCCEEDED'],
      ['nap', 'WAIT', 'SUCCEEDED'],
      ['approval', 'CALLBACK', 'SUCCEEDED'],
    ]);
    // The backend records invocations: AWS's runner reads them from the history.
    expect(theirs.getInvocations().length).toBeGreaterThan(1);

    expect(ours.getStatus()).toBe(theirs.getStatus());
    expect(ours.getResult()).toEqual(theirs.getResult());
    expect(operationsOf(ours)).toEqual(operationsOf(theirs));
    expect(signature(ours.getHistoryEvents())).toEqual(signature(theirs.getHistoryEvents()));
    expect(ours.getInvocations().map(Object.keys)).toEqual(theirs.getInvocations().map(Object.keys));
    expect(errors).toEqual([]);
  });

  it("reports a failed run: ours gives the same error, operations and history as AWS's", async () => {
    const theirs = await awsRunner('failing').run();
    const ours = await ourRunner('failing').run();
    expect(theirs.getStatus()).toBe('FAILED');
    expect(theirs.getError()).toMatchObject({ errorMessage: 'no pears left' });
    expect(ours.getStatus()).toBe(theirs.getStatus());
    expect(withoutStack(ours.getError())).toEqual(withoutStack(theirs.getError()));
    expect(() => ours.getResult()).toThrow(theirs.getError().errorMessage);
    expect(operationsOf(ours)).toEqual(operationsOf(theirs));
    expect(signature(ours.getHistoryEvents())).toEqual(signature(theirs.getHistoryEvents()));
  });

  it('a retried step, a waitForCallback and a child context look the same through both runners', async () => {
    const results = [];
    for (const [key, runner] of [
      ['aws', awsRunner<unknown>('rich')],
      ['ours', ourRunner<unknown>('rich')],
    ] as const) {
      const execution = runner.run({ payload: { key } });
      const approve = await runner.getOperation('approve').waitForData();
      await approve.sendCallbackSuccess('fine');
      results.push(await execution);
    }
    const [theirs, ours] = results as [AwsResult<unknown>, OurResult<unknown>];
    expect(theirs.getResult()).toEqual({ attempt: 2, approved: 'fine', inner: 'd' });
    expect(ours.getResult()).toEqual(theirs.getResult());
    const shown = operationsOf(theirs);
    expect(shown.map((op) => [op.name, op.type])).toEqual([
      ['flaky', 'STEP'],
      ['approve', 'CONTEXT'],
      [undefined, 'CALLBACK'],
      [undefined, 'STEP'],
      ['inner', 'CONTEXT'],
      ['deep', 'STEP'],
    ]);
    // The retried step's first attempt failed: AWS's runner shows its attempt from that event.
    expect(shown[0]?.events).toEqual(['StepStarted', 'StepFailed', 'StepStarted', 'StepSucceeded']);
    expect(operationsOf(ours)).toEqual(shown);
    expect(signature(ours.getHistoryEvents())).toEqual(signature(theirs.getHistoryEvents()));
  });
});
