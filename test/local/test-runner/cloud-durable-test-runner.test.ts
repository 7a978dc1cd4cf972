import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DurableApiError, DurableClient } from '@durable-lambda/api';
import { withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { CloudDurableTestRunner } from '../../../packages/local/src/cloud/cloud-durable-test-runner';
import { type DevServer, startDevServer } from '../../../packages/local/src/dev-server/dev-server';

const dir = mkdtempSync(join(tmpdir(), 'durable-cloud-runner-'));
// Every wait suspends the invocation, so the run goes through the dev server's timer waker.
const quiet = { logSink: () => {}, inProcessWaitMs: 0 };

const approval = withDurableExecution(async (event: { n: number }, ctx) => {
  const doubled = await ctx.step('double', async () => event.n * 2);
  await ctx.wait('nap', { seconds: 1 });
  const [answer] = await ctx.createCallback<string>('approval', { timeout: { minutes: 5 } });
  try {
    return { doubled, answer: JSON.parse(await answer) as unknown };
  } catch (error) {
    return { doubled, refused: (error as Error).message };
  }
}, quiet);

class OutOfStock extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutOfStock';
  }
}

const failing = withDurableExecution(async (event: { item: string }, ctx) => {
  await ctx.step(
    'reserve',
    async () => {
      throw new OutOfStock(`no ${event.item} left`);
    },
    { retryStrategy: () => ({ shouldRetry: false }) },
  );
  return 'unreachable';
}, quiet);

const echo = withDurableExecution(async (event: unknown) => ({ received: event }), quiet);

let server: DevServer;
let client: DurableClient;

beforeAll(async () => {
  server = await startDevServer({
    functions: { approval, failing, echo },
    port: 0,
    db: join(dir, 'dev.sqlite'),
    log: () => {},
  });
  client = new DurableClient({ baseUrl: server.url });
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const config = { pollInterval: 20 };

describe('CloudDurableTestRunner over a real control API', () => {
  // Built once the server listens (its URL is known then), reset before each test.
  let live: CloudDurableTestRunner<{ doubled: number; answer?: unknown; refused?: string }>;
  beforeEach(() => {
    live ??= new CloudDurableTestRunner({ functionName: 'approval', api: { baseUrl: server.url }, config });
    live.reset();
  });

  it('runs a step, a wait and a callback completed through the runner to the end', async () => {
    const execution = live.run({ payload: { n: 21 } });
    const callback = await live.getOperation('approval').waitForData();
    const details = callback.getCallbackDetails();
    expect(details?.callbackId).toEqual(expect.any(String));
    await callback.sendCallbackSuccess(JSON.stringify({ approved: true }));
    const result = await execution;

    expect(result.getStatus()).toBe('SUCCEEDED');
    expect(result.getResult()).toEqual({ doubled: 42, answer: { approved: true } });
    expect(() => result.getError()).toThrow('Cannot get error for succeeded execution');

    const ops = result.getOperations();
    expect(ops.map((op) => [op.getName(), op.getType(), op.getStatus()])).toEqual([
      ['double', 'STEP', 'SUCCEEDED'],
      ['nap', 'WAIT', 'SUCCEEDED'],
      ['approval', 'CALLBACK', 'SUCCEEDED'],
    ]);
    expect(result.getOperations({ status: 'SUCCEEDED' })).toHaveLength(3);
    // As AWS's cloud runner shows a step from its history: an attempt only after a failed one.
    expect(live.getOperation('double').getStepDetails()).toEqual({
      attempt: undefined,
      nextAttemptTimestamp: undefined,
      result: 42,
      error: undefined,
    });
    const nap = live.getOperationByIndex(1);
    expect(nap.getWaitDetails()?.waitSeconds).toBe(1);
    expect(nap.getEndTimestamp()?.getTime()).toBeGreaterThanOrEqual(
      nap.getWaitDetails()?.scheduledEndTimestamp?.getTime() ?? Number.NaN,
    );
    const completed = live.getOperationById(callback.getId() as string);
    expect(completed.getCallbackDetails()).toEqual({
      callbackId: details?.callbackId,
      error: undefined,
      result: { approved: true },
    });
    expect(completed.getOperationData()).toMatchObject({ Type: 'CALLBACK', Status: 'SUCCEEDED', Name: 'approval' });

    // The history in the shape of Lambda's GetDurableExecutionHistory, in order.
    const events = result.getHistoryEvents();
    const signature = events
      .filter((event) => event.EventType !== 'InvocationCompleted')
      .map((event) => [event.EventType, event.Name]);
    expect(signature).toEqual([
      ['ExecutionStarted', undefined],
      ['StepStarted', 'double'],
      ['StepSucceeded', 'double'],
      ['WaitStarted', 'nap'],
      ['WaitSucceeded', 'nap'],
      ['CallbackStarted', 'approval'],
      ['CallbackSucceeded', 'approval'],
      ['ExecutionSucceeded', undefined],
    ]);
    expect(events.map((event) => event.EventId)).toEqual(events.map((_, i) => i + 1));
    // With each invocation's end where the run recorded it (issue 23): the wait ended, and the
    // callback was completed, after the invocation that suspended on it.
    expect(events.map((event) => event.EventType)).toEqual([
      'ExecutionStarted',
      'StepStarted',
      'StepSucceeded',
      'WaitStarted',
      'InvocationCompleted',
      'WaitSucceeded',
      'CallbackStarted',
      'InvocationCompleted',
      'CallbackSucceeded',
      'InvocationCompleted',
      'ExecutionSucceeded',
    ]);
    expect(events[0]?.ExecutionStartedDetails?.Input?.Payload).toBe(JSON.stringify({ n: 21 }));
    expect(events.find((e) => e.EventType === 'WaitStarted')?.WaitStartedDetails?.Duration).toBe(1);
    expect(events.find((e) => e.EventType === 'CallbackStarted')?.CallbackStartedDetails?.CallbackId).toBe(
      details?.callbackId,
    );
    expect(nap.getEvents()?.map((event) => event.EventType)).toEqual(['WaitStarted', 'WaitSucceeded']);

    // print() shows AWS's columns, one row per operation.
    const table = vi.spyOn(console, 'table').mockImplementation(() => {});
    try {
      result.print({ startTime: false, endTime: false, duration: false });
      expect(table).toHaveBeenCalledWith([
        { parentId: '-', name: 'double', type: 'STEP', subType: 'Step', status: 'SUCCEEDED' },
        { parentId: '-', name: 'nap', type: 'WAIT', subType: 'Wait', status: 'SUCCEEDED' },
        { parentId: '-', name: 'approval', type: 'CALLBACK', subType: 'Callback', status: 'SUCCEEDED' },
      ]);
    } finally {
      table.mockRestore();
    }

    // Each invocation the backend recorded, in AWS's shape.
    const stored = await client.getRun(result.getRunId());
    const invocations = result.getInvocations();
    expect(invocations).toHaveLength(stored.invocations);
    expect(events.filter((event) => event.EventType === 'InvocationCompleted')).toHaveLength(stored.invocations);
    for (const invocation of invocations) {
      expect(invocation).toEqual({
        startTimestamp: expect.any(Date),
        endTimestamp: expect.any(Date),
        requestId: undefined,
        error: undefined,
      });
    }
  });

  it('fails a callback through the runner: the handler sees the message', async () => {
    const execution = live.run({ payload: { n: 1 } });
    const callback = await live.getOperation('approval').waitForData('STARTED');
    await callback.sendCallbackHeartbeat();
    await callback.sendCallbackFailure({ ErrorType: 'Rejected', ErrorMessage: 'manager said no' });
    const result = await execution;
    expect(result.getResult()).toEqual({ doubled: 2, refused: 'manager said no' });
    expect(live.getOperation('approval').getCallbackDetails()?.error?.errorMessage).toBe('manager said no');
    expect(live.getOperation('approval').getStatus()).toBe('FAILED');
  });

  it('waitForData(COMPLETED) resolves once the operation ends, mid-run', async () => {
    const execution = live.run({ payload: { n: 5 } });
    const nap = await live.getOperation('nap').waitForData('COMPLETED');
    expect(nap.getStatus()).toBe('SUCCEEDED');
    const callback = await live.getOperation('approval').waitForData();
    await callback.sendCallbackSuccess('"fine"');
    expect((await execution).getResult()).toEqual({ doubled: 10, answer: 'fine' });
  });

  it('rejects waitForData for an operation the run never reaches, once the run ends', async () => {
    const other = new CloudDurableTestRunner({ functionName: 'echo', api: { baseUrl: server.url }, config });
    const execution = other.run();
    await expect(other.getOperation('nothing-like-this').waitForData()).rejects.toThrow(
      /Operation was not found after execution completion/,
    );
    // Without a payload the handler receives `{}`, as Lambda hands an empty invoke.
    expect((await execution).getResult()).toEqual({ received: {} });
  });

  it('refuses a start the control API refuses, naming the function', async () => {
    const missing = new CloudDurableTestRunner({ functionName: 'no-such-fn', api: { baseUrl: server.url }, config });
    const error = await missing.run().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DurableApiError);
    expect(error).toMatchObject({ status: 404, code: 'function_not_found' });
  });
});

describe('CloudDurableTestRunner: a run that fails', () => {
  it('reports the failure in AWS shapes: status, getError, getResult throwing, the failed step', async () => {
    const runner = new CloudDurableTestRunner({ functionName: 'failing', api: { baseUrl: server.url }, config });
    const result = await runner.run({ payload: { item: 'pears' } });
    expect(result.getStatus()).toBe('FAILED');
    const error = result.getError();
    expect(Object.keys(error).sort()).toEqual(['errorData', 'errorMessage', 'errorType', 'stackTrace']);
    expect(error.errorMessage).toBe('no pears left');
    expect(() => result.getResult()).toThrow('no pears left');
    const reserve = runner.getOperation('reserve');
    expect(reserve.getStatus()).toBe('FAILED');
    expect(reserve.getStepDetails()?.error?.errorMessage).toBe('no pears left');
    expect(reserve.getStepDetails()?.error?.errorType).toBe('OutOfStock');
    const last = result.getHistoryEvents().at(-1);
    expect(last?.EventType).toBe('ExecutionFailed');
    expect(last?.ExecutionFailedDetails?.Error?.Payload?.ErrorMessage).toBe('no pears left');
  });

  it('gives up after config.timeout on a run that does not end, naming the run', async () => {
    const runner = new CloudDurableTestRunner({
      functionName: 'approval',
      api: { baseUrl: server.url },
      config: { pollInterval: 20, timeout: 200 },
    });
    // Nobody completes the callback: the run waits for it.
    await expect(runner.run({ payload: { n: 3 } })).rejects.toThrow(/^run \S+ of approval has not ended after 200 ms/);
  });

  it('refuses bad configuration, naming the field', () => {
    expect(() => new CloudDurableTestRunner({ functionName: '' })).toThrow(/functionName/);
    expect(
      () =>
        new CloudDurableTestRunner({ functionName: 'f', api: { baseUrl: server.url }, config: { pollInterval: -1 } }),
    ).toThrow(/config\.pollInterval/);
  });
});

describe('the dev server serves the Lambda-shaped routes', () => {
  it('answers GetDurableExecution on its own port in AWS error shape, not with the dashboard', async () => {
    const arn = encodeURIComponent('arn:aws:lambda:local:000000000000:function:echo/durable-execution/rnope');
    const answer = await fetch(`${server.url}/2025-12-01/durable-executions/${arn}`);
    expect(answer.headers.get('content-type')).toContain('application/json');
    expect(answer.headers.get('x-amzn-errortype')).toBeTruthy();
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
  });
});
