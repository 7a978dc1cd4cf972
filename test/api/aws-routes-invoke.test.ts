import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { createControlApi, toNodeListener } from '@durable-lambda/api';
import { Engine, MemoryStore } from '@durable-lambda/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** The run an execution ARN names: `…/durable-execution/<runId>[/<incarnation>]`. */
const runIdOfArn = (arn: string): string => arn.split('/durable-execution/')[1]?.split('/')[0] as string;

type LambdaModule = typeof import('@aws-sdk/client-lambda');

/** The Lambda client from bench's copy (the one AWS's SDK and testing package load). */
const lambdaModule = createRequire(new URL('../../bench/package.json', import.meta.url))(
  '@aws-sdk/client-lambda',
) as LambdaModule;

const store = new MemoryStore();
const engine = new Engine({ store, waker: { wakeAt: async () => {} } });
const server = createServer(toNodeListener(createControlApi({ engine, functions: ['fn'], onError: () => {} })));
let lambda: InstanceType<LambdaModule['LambdaClient']>;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  lambda = new lambdaModule.LambdaClient({
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
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

describe('Invoke', () => {
  it('starts a run and answers its execution ARN; the same execution name finds the same run', async () => {
    const invoke = (name: string) =>
      lambda.send(
        new lambdaModule.InvokeCommand({
          FunctionName: 'arn:aws:lambda:us-east-1:123456789012:function:fn:live',
          InvocationType: 'Event',
          DurableExecutionName: name,
          Payload: new TextEncoder().encode(JSON.stringify({ order: 7 })),
        }),
      );
    const first = await invoke('order-7');
    expect(first.StatusCode).toBe(202);
    const arn = first.DurableExecutionArn as string;
    // `…/durable-execution/<runId>/<incarnation>`: a keyed run's ARN names its creation too.
    const runId = runIdOfArn(arn);
    const run = await engine.getRun(runId);
    expect(run).toMatchObject({ functionName: 'fn', runKey: 'order-7', input: JSON.stringify({ order: 7 }) });
    expect((await invoke('order-7')).DurableExecutionArn).toBe(arn);
  });

  it('hands an empty payload as {}, and refuses an unknown function or a payload that is not JSON', async () => {
    const empty = await lambda.send(new lambdaModule.InvokeCommand({ FunctionName: 'fn', InvocationType: 'Event' }));
    const arn = empty.DurableExecutionArn as string;
    expect((await engine.getRun(runIdOfArn(arn)))?.input).toBe('{}');
    await expect(lambda.send(new lambdaModule.InvokeCommand({ FunctionName: 'nope' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
      $metadata: { httpStatusCode: 404 },
    });
    await expect(
      lambda.send(new lambdaModule.InvokeCommand({ FunctionName: 'fn', Payload: new TextEncoder().encode('{oops') })),
    ).rejects.toMatchObject({ name: 'InvalidRequestContentException' });
    const dry = await lambda.send(new lambdaModule.InvokeCommand({ FunctionName: 'fn', InvocationType: 'DryRun' }));
    expect(dry.StatusCode).toBe(204);
    expect(dry.DurableExecutionArn).toBeUndefined();
  });
});
