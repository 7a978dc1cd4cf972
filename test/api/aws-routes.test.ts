import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { type ControlApi, createControlApi, toNodeListener } from '@durable-lambda/api';
import { Engine, MemoryStore } from '@durable-lambda/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AwsCheckpointSessions,
  type AwsInvocationInputWire,
  decodeCheckpointToken,
  encodeCheckpointToken,
  openAwsInvocation,
} from '../../packages/api/src/aws/aws-routes';
import { type AwsDurableSdk, importAwsSdk } from '../support/aws-sdk';

type LambdaModule = typeof import('@aws-sdk/client-lambda');

/** The Lambda client AWS's SDK loads itself (bench's copy), so commands and client match. */
const lambdaModule = createRequire(new URL('../../bench/package.json', import.meta.url))(
  '@aws-sdk/client-lambda',
) as LambdaModule;

/** A clock the test moves: waits end when the test says so. */
let now = Date.UTC(2026, 0, 1);
const clock = { now: () => now };
const store = new MemoryStore(clock);
const engine = new Engine({ store, clock, waker: { wakeAt: async () => {} } });
const errors: unknown[] = [];
const api = (): ControlApi =>
  createControlApi({ engine, functions: ['fn'], onError: (error) => void errors.push(error) });

// Two API instances behind one port, taking requests in turn: like stateless containers behind
// a load balancer, neither holds what the other saw.
const containers = [api(), api()].map(toNodeListener);
let turn = 0;
/** The method and last path segment of every request, in order. */
const requests: string[] = [];
/** While set, the first attempt of every checkpoint is handled but its response is lost. */
let loseFirstCheckpointAnswers = false;
const server = createServer((req, res) => {
  requests.push(`${req.method} ${(req.url ?? '').split('?')[0]?.split('/').at(-1)}`);
  const attempt = String(req.headers['amz-sdk-request'] ?? '');
  if (loseFirstCheckpointAnswers && req.url?.includes('/checkpoint') && attempt.startsWith('attempt=1;')) {
    // The API does the work; the connection drops before the answer (AWS's client retries).
    res.writeHead = (() => res) as unknown as typeof res.writeHead;
    res.end = (() => {
      req.socket.destroy();
      return res;
    }) as unknown as typeof res.end;
  }
  containers[turn++ % containers.length]?.(req, res);
});
let url: string;

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

/** A Lambda context whose remaining time makes AWS's SDK suspend at every wait (the test moves time). */
const context = (requestId: string) => ({
  callbackWaitsForEmptyEventLoop: false,
  functionName: 'fn',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:fn',
  memoryLimitInMB: '128',
  awsRequestId: requestId,
  logGroupName: '/aws/lambda/fn',
  logStreamName: 'local',
  getRemainingTimeInMillis: () => 0,
  done: () => {},
  fail: () => {},
  succeed: () => {},
});

type AwsHandler = (input: AwsInvocationInputWire, ctx: ReturnType<typeof context>) => Promise<{ Status: string }>;

/** Plays Lambda's service: opens each invocation, invokes the handler with AWS's input, closes it with the output. */
async function drive(runId: string, handler: AwsHandler, between?: () => Promise<void>, pageSize?: number) {
  const sessions = new AwsCheckpointSessions(engine);
  const statuses: string[] = [];
  const pages: boolean[] = [];
  for (let i = 0; i < 10; i++) {
    const run = await engine.getRun(runId);
    if (run?.status !== 'RUNNING') return { run, statuses, pages };
    if (run.nextWakeAt !== undefined) now = Math.max(now, run.nextWakeAt);
    const input = await openAwsInvocation(engine, runId, {
      remainingTimeMs: () => 60_000,
      ...(pageSize === undefined ? {} : { pageSize }),
    });
    if (!input) throw new Error(`invocation ${i}: nothing to run`);
    pages.push(input.InitialExecutionState.NextMarker !== undefined);
    const output = await handler(input, context(`req-${i}`));
    statuses.push(output.Status);
    await sessions.close(input.CheckpointToken, output);
    await between?.();
  }
  throw new Error('the run did not end in 10 invocations');
}

async function start(input: unknown): Promise<string> {
  return (await engine.startRun({ functionName: 'fn', input: JSON.stringify(input) })).run.runId;
}

describe("AWS's own SDK over the Lambda-shaped routes", () => {
  it('runs a step, a wait and another step through GetDurableExecutionState and CheckpointDurableExecution', async () => {
    let attempts = 0;
    const handler = aws.withDurableExecution(
      async (event: { n: number }, ctx) => {
        const doubled = await ctx.step('double', async () => {
          attempts += 1;
          return event.n * 2;
        });
        await ctx.wait('nap', { seconds: 30 });
        const tripled = await ctx.step('triple', async () => doubled * 3);
        return { doubled, tripled };
      },
      { durableExecutionClient: new aws.DurableExecutionApiClient(lambda) },
    ) as unknown as AwsHandler;
    const runId = await start({ n: 7 });
    const { run, statuses } = await drive(runId, handler);

    expect(statuses).toEqual(['PENDING', 'SUCCEEDED']);
    expect(run?.status).toBe('SUCCEEDED');
    expect(JSON.parse(run?.result ?? 'null')).toEqual({ doubled: 14, tripled: 42 });
    // The step ran once: its checkpointed result was replayed after the wait.
    expect(attempts).toBe(1);
    const ops = await engine.getOperations(runId);
    expect(ops.filter((op) => op.Type !== 'EXECUTION').map((op) => [op.Name, op.Type, op.Status])).toEqual([
      ['double', 'STEP', 'SUCCEEDED'],
      ['nap', 'WAIT', 'SUCCEEDED'],
      ['triple', 'STEP', 'SUCCEEDED'],
    ]);
    expect(errors).toEqual([]);

    const execution = await lambda.send(
      new lambdaModule.GetDurableExecutionCommand({ DurableExecutionArn: `arn:x/durable-execution/${runId}` }),
    );
    expect(execution.Status).toBe('SUCCEEDED');
    expect(JSON.parse(execution.Result ?? 'null')).toEqual({ doubled: 14, tripled: 42 });
    expect(execution.StartTimestamp).toBeInstanceOf(Date);

    // The history, paged two events at a time through GetDurableExecutionHistory.
    const events: Array<{ EventType?: string; Name?: string; EventId?: number; EventTimestamp?: Date }> = [];
    let marker: string | undefined;
    do {
      const page = await lambda.send(
        new lambdaModule.GetDurableExecutionHistoryCommand({
          DurableExecutionArn: execution.DurableExecutionArn,
          MaxItems: 2,
          Marker: marker,
        }),
      );
      events.push(...(page.Events ?? []));
      marker = page.NextMarker;
    } while (marker);
    expect(events.map((event) => [event.EventType, event.Name])).toEqual([
      ['ExecutionStarted', undefined],
      ['StepStarted', 'double'],
      ['StepSucceeded', 'double'],
      ['WaitStarted', 'nap'],
      // Each invocation's end where the run recorded it (issue 23): the wait ended after the first.
      ['InvocationCompleted', undefined],
      ['WaitSucceeded', 'nap'],
      ['StepStarted', 'triple'],
      ['StepSucceeded', 'triple'],
      ['InvocationCompleted', undefined],
      ['ExecutionSucceeded', undefined],
    ]);
    expect(events.map((event) => event.EventId)).toEqual(events.map((_, i) => i + 1));
    expect(events.every((event) => event.EventTimestamp instanceof Date)).toBe(true);
  });

  it('pages the state through GetDurableExecutionState when the invocation input holds only part of it', async () => {
    const runs: string[] = [];
    const handler = aws.withDurableExecution(
      async (_event: unknown, ctx) => {
        const a = await ctx.step('a', async () => {
          runs.push('a');
          return 1;
        });
        const b = await ctx.step('b', async () => {
          runs.push('b');
          return 2;
        });
        await ctx.wait('nap', { seconds: 5 });
        const c = await ctx.step('c', async () => 3);
        return a + b + c;
      },
      { durableExecutionClient: new aws.DurableExecutionApiClient(lambda) },
    ) as unknown as AwsHandler;
    const runId = await start({});
    // One operation per page: the resumed invocation must read the rest through the route.
    const before = requests.length;
    const { run, pages } = await drive(runId, handler, undefined, 1);
    expect(requests.slice(before)).toContain('GET state');
    // The steps found their results on the later pages: none ran again.
    expect(runs).toEqual(['a', 'b']);
    expect(pages).toEqual([false, true]);
    expect(run?.status).toBe('SUCCEEDED');
    expect(run?.result).toBe('6');
  });

  it('completes a callback sent with SendDurableExecutionCallbackSuccess: the handler receives the raw text', async () => {
    const handler = aws.withDurableExecution(
      async (_event: unknown, ctx) => {
        const [answer] = await ctx.createCallback('approval');
        return { answer: await answer };
      },
      { durableExecutionClient: new aws.DurableExecutionApiClient(lambda) },
    ) as unknown as AwsHandler;
    const runId = await start({});
    const { run } = await drive(runId, handler, async () => {
      const ops = await engine.getOperations(runId);
      const callback = ops.find((op) => op.Type === 'CALLBACK' && op.Status === 'STARTED');
      if (!callback?.CallbackDetails) return;
      await lambda.send(
        new lambdaModule.SendDurableExecutionCallbackHeartbeatCommand({
          CallbackId: callback.CallbackDetails.CallbackId,
        }),
      );
      await lambda.send(
        new lambdaModule.SendDurableExecutionCallbackSuccessCommand({
          CallbackId: callback.CallbackDetails.CallbackId,
          Result: new TextEncoder().encode('Hello World'),
        }),
      );
    });
    expect(JSON.parse(run?.result ?? 'null')).toEqual({ answer: 'Hello World' });
  });

  it("fails a callback with SendDurableExecutionCallbackFailure: AWS's ErrorObject is kept", async () => {
    const handler = aws.withDurableExecution(
      async (_event: unknown, ctx) => {
        const [answer] = await ctx.createCallback('approval');
        try {
          return await answer;
        } catch (error) {
          return { refused: (error as Error).message };
        }
      },
      { durableExecutionClient: new aws.DurableExecutionApiClient(lambda) },
    ) as unknown as AwsHandler;
    const runId = await start({});
    let callbackId: string | undefined;
    const { run } = await drive(runId, handler, async () => {
      const ops = await engine.getOperations(runId);
      const callback = ops.find((op) => op.Type === 'CALLBACK' && op.Status === 'STARTED');
      if (!callback?.CallbackDetails) return;
      callbackId = callback.CallbackDetails.CallbackId;
      await lambda.send(
        new lambdaModule.SendDurableExecutionCallbackFailureCommand({
          CallbackId: callbackId,
          Error: { ErrorType: 'Rejected', ErrorMessage: 'manager said no', ErrorData: '{"by":"ann"}' },
        }),
      );
    });
    expect(JSON.parse(run?.result ?? 'null')).toEqual({ refused: 'manager said no' });
    const stored = (await engine.getOperations(runId)).find((op) => op.Type === 'CALLBACK');
    expect(stored?.CallbackDetails?.Error).toMatchObject({
      ErrorType: 'Rejected',
      ErrorMessage: 'manager said no',
      ErrorData: '{"by":"ann"}',
    });
    // A second completion is refused, as Lambda refuses it.
    const again = await lambda
      .send(new lambdaModule.SendDurableExecutionCallbackSuccessCommand({ CallbackId: callbackId as string }))
      .catch((error: unknown) => error);
    expect(again).toMatchObject({ name: 'ResourceConflictException', $metadata: { httpStatusCode: 409 } });
  });
});

describe('a checkpoint whose answer is lost', () => {
  it("is retried by AWS's client and answered again without writing twice: the run completes", async () => {
    const retrying = new lambdaModule.LambdaClient({
      endpoint: url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIDFAKEFAKEFAKE', secretAccessKey: 'fake' },
      maxAttempts: 3,
    });
    let attempts = 0;
    const handler = aws.withDurableExecution(
      async (event: { n: number }, ctx) => {
        const doubled = await ctx.step('double', async () => {
          attempts += 1;
          return event.n * 2;
        });
        await ctx.wait('nap', { seconds: 5 });
        return doubled;
      },
      { durableExecutionClient: new aws.DurableExecutionApiClient(retrying) },
    ) as unknown as AwsHandler;
    const runId = await start({ n: 4 });
    const before = requests.length;
    loseFirstCheckpointAnswers = true;
    try {
      const { run } = await drive(runId, handler);
      expect(run?.status).toBe('SUCCEEDED');
      expect(run?.result).toBe('8');
    } finally {
      loseFirstCheckpointAnswers = false;
      retrying.destroy();
    }
    const checkpoints = requests.slice(before).filter((r) => r === 'POST checkpoint');
    // Every checkpoint was sent twice: its first answer was lost.
    expect(checkpoints.length).toBeGreaterThanOrEqual(2);
    expect(checkpoints.length % 2).toBe(0);
    expect(attempts).toBe(1);
    expect(errors).toEqual([]);
  });
});

describe('checkpoint tokens', () => {
  const checkpoint = (arn: string, body: unknown) =>
    fetch(`${url}/2025-12-01/durable-executions/${encodeURIComponent(arn)}/checkpoint`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  async function refusal(response: Response): Promise<{ status: number; type: string | null; message?: string }> {
    const body = (await response.json()) as { message?: string };
    return { status: response.status, type: response.headers.get('x-amzn-errortype'), ...body };
  }

  it('carry the run, fence, lease token and a growing sequence; each checkpoint answers the next one', async () => {
    const runId = await start({});
    const input = await openAwsInvocation(engine, runId);
    if (!input) throw new Error('nothing to run');
    const claims = decodeCheckpointToken(input.CheckpointToken);
    const run = await engine.getRun(runId);
    expect(claims).toEqual({ runId, fence: run?.fence, leaseToken: run?.leaseToken, seq: 0 });
    const answer = await checkpoint(input.DurableExecutionArn, {
      CheckpointToken: input.CheckpointToken,
      Updates: [{ Id: 'a', Type: 'STEP', Action: 'START', Name: 's' }],
    });
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { CheckpointToken: string; NewExecutionState: { Operations: unknown[] } };
    expect(decodeCheckpointToken(body.CheckpointToken)).toEqual({ ...claims, seq: 1 });
    expect(body.NewExecutionState.Operations).toEqual([
      expect.objectContaining({ Id: 'a', Type: 'STEP', Status: 'STARTED', StartTimestamp: now / 1000 }),
    ]);
    await new AwsCheckpointSessions(engine).close(body.CheckpointToken, { Status: 'SUCCEEDED', Result: '1' });
  });

  it('write once: the same checkpoint again is answered alike; other updates with a used token are refused', async () => {
    const runId = await start({});
    const input = await openAwsInvocation(engine, runId);
    if (!input) throw new Error('nothing to run');
    const arn = input.DurableExecutionArn;
    const started = (await (
      await checkpoint(arn, {
        CheckpointToken: input.CheckpointToken,
        Updates: [{ Id: 's', Type: 'STEP', Action: 'START', Name: 's' }],
      })
    ).json()) as { CheckpointToken: string };
    const succeed = {
      CheckpointToken: started.CheckpointToken,
      Updates: [{ Id: 's', Type: 'STEP', Action: 'SUCCEED', Payload: '1' }],
    };
    const first = await checkpoint(arn, succeed);
    const again = await checkpoint(arn, succeed);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(await first.json());
    const step = (await engine.getOperations(runId)).find((op) => op.Id === 's');
    expect(step).toMatchObject({ Status: 'SUCCEEDED', StepDetails: { Result: '1' } });
    const reused = await checkpoint(arn, {
      CheckpointToken: started.CheckpointToken,
      Updates: [{ Id: 't', Type: 'STEP', Action: 'START', Name: 't' }],
    });
    expect(await refusal(reused)).toMatchObject({
      status: 400,
      type: 'InvalidParameterValueException',
      message: 'Invalid Checkpoint Token: already used for another checkpoint',
    });
    expect((await engine.getOperations(runId)).some((op) => op.Id === 't')).toBe(false);
  });

  it('are refused once a newer invocation took the run (Invalid Checkpoint Token: the invocation ends, not the run)', async () => {
    const runId = await start({});
    const first = await openAwsInvocation(engine, runId, { remainingTimeMs: () => 1_000 });
    if (!first) throw new Error('nothing to run');
    // The first invocation's lease lapses (it died): a new one takes the run.
    now += 60_000;
    const second = await openAwsInvocation(engine, runId);
    if (!second) throw new Error('nothing to run');
    const stale = await checkpoint(first.DurableExecutionArn, { CheckpointToken: first.CheckpointToken, Updates: [] });
    expect(await refusal(stale)).toMatchObject({
      status: 400,
      type: 'InvalidParameterValueException',
      message: expect.stringMatching(/^Invalid Checkpoint Token: a newer invocation owns the execution/),
    });
    const live = await checkpoint(second.DurableExecutionArn, { CheckpointToken: second.CheckpointToken, Updates: [] });
    expect(live.status).toBe(200);
  });

  it('are refused for another execution, once forged, or once the run ended', async () => {
    const a = await start({ a: 1 });
    const b = await start({ b: 1 });
    const inA = await openAwsInvocation(engine, a);
    const inB = await openAwsInvocation(engine, b);
    if (!inA || !inB) throw new Error('nothing to run');
    const crossed = await checkpoint(inB.DurableExecutionArn, { CheckpointToken: inA.CheckpointToken, Updates: [] });
    expect(await refusal(crossed)).toMatchObject({ status: 400, message: expect.stringMatching(/another execution/) });

    const claims = decodeCheckpointToken(inA.CheckpointToken);
    const forged = encodeCheckpointToken({ ...claims, leaseToken: 'guessed' });
    expect(await refusal(await checkpoint(inA.DurableExecutionArn, { CheckpointToken: forged }))).toMatchObject({
      status: 400,
      type: 'InvalidParameterValueException',
      message: expect.stringMatching(/^Invalid Checkpoint Token/),
    });
    expect(await refusal(await checkpoint(inA.DurableExecutionArn, { CheckpointToken: 'garbage' }))).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^Invalid Checkpoint Token: not a token this backend issued/),
    });

    await new AwsCheckpointSessions(engine).close(inA.CheckpointToken, { Status: 'SUCCEEDED' });
    const ended = await checkpoint(inA.DurableExecutionArn, { CheckpointToken: inA.CheckpointToken, Updates: [] });
    expect(await refusal(ended)).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^Invalid Checkpoint Token: the execution has ended/),
    });
  });

  it("a refused update answers a plain InvalidParameterValueException (what AWS's SDK reads as fatal to the run)", async () => {
    const runId = await start({});
    const input = await openAwsInvocation(engine, runId);
    if (!input) throw new Error('nothing to run');
    const send = async (update: unknown) =>
      refusal(
        await checkpoint(input.DurableExecutionArn, { CheckpointToken: input.CheckpointToken, Updates: [update] }),
      );
    expect(await send({ Id: 'w', Type: 'WAIT', Action: 'START', WaitOptions: { WaitSeconds: 'soon' } })).toMatchObject({
      status: 400,
      type: 'InvalidParameterValueException',
      message: 'Updates[0].WaitOptions.WaitSeconds: must be a number',
    });
    const refused = await send({ Id: 'w', Type: 'WAIT', Action: 'START' });
    expect(refused).toMatchObject({ status: 400, type: 'InvalidParameterValueException' });
    expect(refused.message).toMatch(/WaitOptions\.WaitSeconds/);
    expect(refused.message).not.toMatch(/^Invalid Checkpoint Token/);
  });
});
