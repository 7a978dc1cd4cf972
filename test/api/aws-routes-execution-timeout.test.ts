import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { createControlApi, toNodeListener } from '@durable-lambda/api';
import { Engine, MemoryStore } from '@durable-lambda/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AwsInvocationInputWire, openAwsInvocation } from '../../packages/api/src/aws/aws-routes';
import { type AwsDurableSdk, importAwsSdk } from '../support/aws-sdk';

type LambdaModule = typeof import('@aws-sdk/client-lambda');

const lambdaModule = createRequire(new URL('../../bench/package.json', import.meta.url))(
  '@aws-sdk/client-lambda',
) as LambdaModule;

/** A clock the test moves: the deadline passes when the test says so. */
let now = Date.UTC(2026, 0, 1);
const clock = { now: () => now };
const store = new MemoryStore(clock);
const engine = new Engine({ store, clock, waker: { wakeAt: async () => {} } });
const server = createServer(toNodeListener(createControlApi({ engine, functions: ['fn'], onError: () => {} })));
let url = '';
let aws: AwsDurableSdk;
let lambda: InstanceType<LambdaModule['LambdaClient']>;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  aws = await importAwsSdk();
  lambda = new lambdaModule.LambdaClient({
    endpoint: url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIDFAKEFAKEFAKE', secretAccessKey: 'fake' },
    maxAttempts: 1,
  });
});
afterAll(async () => {
  lambda?.destroy();
  await new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
});

const context = {
  callbackWaitsForEmptyEventLoop: false,
  functionName: 'fn',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:fn',
  memoryLimitInMB: '128',
  awsRequestId: 'req-1',
  logGroupName: '/aws/lambda/fn',
  logStreamName: 'local',
  getRemainingTimeInMillis: () => 600_000,
  done: () => {},
  fail: () => {},
  succeed: () => {},
};

type AwsHandler = (input: AwsInvocationInputWire, ctx: typeof context) => Promise<unknown>;

async function startWithTimeout(seconds: number): Promise<string> {
  return (await engine.startRun({ functionName: 'fn', input: '{}', executionTimeoutSeconds: seconds })).run.runId;
}

const checkpoint = (arn: string, body: unknown) =>
  fetch(`${url}/2025-12-01/durable-executions/${encodeURIComponent(arn)}/checkpoint`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('the Lambda-shaped routes at a run’s execution deadline', () => {
  it("fence AWS's SDK at its first checkpoint past the deadline: the run ends TIMED_OUT, nothing after runs", async () => {
    const ran: string[] = [];
    const handler = aws.withDurableExecution(
      async (_event: unknown, ctx) => {
        await ctx.step('first', async () => {
          ran.push('first');
          return 1;
        });
        await ctx.step('slow', async () => {
          ran.push('slow');
          // The step outlives the run's timeout of 60 s: its result arrives after the deadline.
          now += 61_000;
          return 2;
        });
        await ctx.step('after', async () => {
          ran.push('after');
          return 3;
        });
        return 'done';
      },
      { durableExecutionClient: new aws.DurableExecutionApiClient(lambda) },
    ) as unknown as AwsHandler;
    const runId = await startWithTimeout(60);
    const input = await openAwsInvocation(engine, runId, { remainingTimeMs: () => 600_000 });
    if (!input) throw new Error('nothing to run');
    // However AWS's SDK ends its invocation on the refused token, the run's end is the engine's.
    await handler(input, context).catch(() => undefined);

    expect(ran).toEqual(['first', 'slow']);
    const run = await engine.getRun(runId);
    expect(run).toMatchObject({ status: 'TIMED_OUT', error: { ErrorCode: 'execution_timed_out' } });
    expect(run?.result).toBeUndefined();
    const ops = await engine.getOperations(runId);
    expect(ops.find((op) => op.Name === 'first')?.Status).toBe('SUCCEEDED');
    // The late step's result was refused, and the step after it never started.
    expect(ops.find((op) => op.Name === 'slow')?.Status).not.toBe('SUCCEEDED');
    expect(ops.some((op) => op.Name === 'after')).toBe(false);
  });

  it('refuse any checkpoint (a poll too) past the deadline as an invalid token, and write none of it', async () => {
    const runId = await startWithTimeout(30);
    const input = await openAwsInvocation(engine, runId, { remainingTimeMs: () => 600_000 });
    if (!input) throw new Error('nothing to run');
    now += 30_000;
    const poll = await checkpoint(input.DurableExecutionArn, { CheckpointToken: input.CheckpointToken, Updates: [] });
    expect(poll.status).toBe(400);
    expect(poll.headers.get('x-amzn-errortype')).toBe('InvalidParameterValueException');
    expect(((await poll.json()) as { message: string }).message).toMatch(
      /^Invalid Checkpoint Token: .*execution timeout/,
    );
    expect(await engine.getRun(runId)).toMatchObject({ status: 'TIMED_OUT' });

    const late = await checkpoint(input.DurableExecutionArn, {
      CheckpointToken: input.CheckpointToken,
      Updates: [{ Id: 'late', Type: 'STEP', Action: 'START', Name: 'late' }],
    });
    expect(late.status).toBe(400);
    expect((await engine.getOperations(runId)).some((op) => op.Id === 'late')).toBe(false);
    expect(await engine.getRun(runId)).toMatchObject({
      status: 'TIMED_OUT',
      error: { ErrorCode: 'execution_timed_out' },
    });
  });
});
