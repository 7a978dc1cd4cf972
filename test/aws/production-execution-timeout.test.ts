import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  ConfigurationError,
  createDurableTable,
  createProductionBackend,
  DynamoDbStore,
  EXECUTION_TIMEOUTS_ENV,
  readExecutionTimeoutMap,
} from '@durable-lambda/aws';
import { Engine, MemoryStore, runIdFor, type WakeEvent } from '@durable-lambda/engine';
import { withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EXECUTION_TIMEOUT_ENV,
  executionTimeoutSetting,
  readProductionConfig,
} from '../../packages/aws/src/production-config';
import { SummaryBuilder } from '../../packages/aws/src/reconciler-summary';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../support/dynamodb-local';
import { awsError, type CapturedRequest, FakeAwsServer, type FakeResponse } from './fake-aws-server';

const env = (over: Record<string, string | undefined> = {}) => ({
  DURABLE_TABLE_NAME: 'durable-runs',
  DURABLE_SCHEDULE_GROUP: 'durable-orders',
  DURABLE_SCHEDULER_ROLE_ARN: 'arn:aws:iam::123456789012:role/durable-scheduler',
  AWS_REGION: 'us-east-1',
  ...over,
});

describe('the per-function execution timeout of the production backend', () => {
  it(`reads ${EXECUTION_TIMEOUT_ENV} as whole seconds from 1 to 366 days`, () => {
    expect(readProductionConfig(env()).executionTimeoutSeconds).toBeUndefined();
    expect(readProductionConfig(env({ [EXECUTION_TIMEOUT_ENV]: ' 3600 ' })).executionTimeoutSeconds).toBe(3600);
    expect(readProductionConfig(env({ [EXECUTION_TIMEOUT_ENV]: String(366 * 86_400) })).executionTimeoutSeconds).toBe(
      366 * 86_400,
    );
    for (const bad of ['0', String(366 * 86_400 + 1), '1.5', '1e3', '-5', 'an hour', '0x10']) {
      expect(() => readProductionConfig(env({ [EXECUTION_TIMEOUT_ENV]: bad })), bad).toThrow(
        expect.objectContaining({
          code: 'invalid_configuration',
          variables: [EXECUTION_TIMEOUT_ENV],
          message: expect.stringContaining(`${EXECUTION_TIMEOUT_ENV} must be a whole number of seconds`),
        }),
      );
    }
  });

  it("gives the function's own runs (any qualifier) a deadline, not the runs of other functions it starts", async () => {
    let now = Date.UTC(2026, 0, 1);
    const clock = { now: () => now };
    const config = readProductionConfig(env({ [EXECUTION_TIMEOUT_ENV]: '60' }));
    const engine = new Engine({
      store: new MemoryStore(clock),
      clock,
      waker: { wakeAt: async () => {} },
      executionTimeout: executionTimeoutSetting(config, 'orders'),
    });
    const start = async (functionName: string, own?: number) =>
      (
        await engine.startRun({
          functionName,
          input: '{}',
          ...(own === undefined ? {} : { executionTimeoutSeconds: own }),
        })
      ).run;
    expect((await start('orders')).deadlineAt).toBe(now + 60_000);
    expect((await start('orders:7')).deadlineAt).toBe(now + 60_000);
    expect((await start('arn:aws:lambda:us-east-1:123456789012:function:orders:live')).deadlineAt).toBe(now + 60_000);
    expect((await start('orders', 5)).deadlineAt).toBe(now + 5_000);
    expect((await start('billing')).deadlineAt).toBeUndefined();

    // The reconciler ends what passed its deadline; its summary counts each run once over passes.
    now += 61_000;
    const builder = new SummaryBuilder();
    const first = await engine.reconcile({ graceMs: 0 });
    builder.add(first, new Set());
    builder.add(await engine.reconcile({ graceMs: 0 }), new Set());
    expect(first.timedOut).toHaveLength(4);
    const summary = builder.summary('done', 1);
    expect(summary).toMatchObject({ passes: 2, timedOut: 4, treesEnded: 0, failed: 0 });
  });
});

describe('the execution timeouts of the child runs a container starts', () => {
  it(`reads ${EXECUTION_TIMEOUTS_ENV} as function names to whole seconds, and refuses anything else`, () => {
    expect(readExecutionTimeoutMap({})).toEqual({});
    expect({ ...readExecutionTimeoutMap({ [EXECUTION_TIMEOUTS_ENV]: '{"payments":600,"refunds":1}' }) }).toEqual({
      payments: 600,
      refunds: 1,
    });
    for (const bad of ['[]', 'null', '{"payments":0}', '{"payments":1.5}', '{"payments":"600"}', '{"a:b":5}', '{']) {
      expect(() => readExecutionTimeoutMap({ [EXECUTION_TIMEOUTS_ENV]: bad }), bad).toThrow(ConfigurationError);
      expect(() => readExecutionTimeoutMap({ [EXECUTION_TIMEOUTS_ENV]: bad }), bad).toThrow(
        expect.objectContaining({ code: 'invalid_configuration', variables: [EXECUTION_TIMEOUTS_ENV] }),
      );
    }
    // A name inherited from Object.prototype is no function's timeout.
    const none = readExecutionTimeoutMap({ [EXECUTION_TIMEOUTS_ENV]: '{"payments":600}' });
    expect(none.constructor).toBeUndefined();
  });
});

const ACCOUNT = '123456789012';
const ORDERS_LIVE = `arn:aws:lambda:us-east-1:${ACCOUNT}:function:orders:live`;
const INVOKE_PATH = /^\/2015-03-31\/functions\/(.+)\/invocations$/;

/** Lambda and Scheduler as one fake endpoint: invokes accepted, schedules created. */
function answer(request: CapturedRequest): FakeResponse {
  if (request.method === 'POST' && INVOKE_PATH.test(request.path)) {
    return { status: 202, headers: { 'x-amzn-requestid': 'req-fake' }, body: '' };
  }
  if (request.method === 'POST' && request.path.startsWith('/schedules/')) {
    return { status: 200, body: JSON.stringify({ ScheduleArn: `arn:aws:scheduler:us-east-1:${ACCOUNT}:schedule/x` }) };
  }
  if (request.method === 'DELETE' && request.path.startsWith('/schedules/')) return { status: 200, body: '{}' };
  return awsError(400, 'ValidationException', `unexpected ${request.method} ${request.path}`);
}

describe('a run on the production backend (DynamoDB Local) gets its deadline from the environment', () => {
  const aws = new FakeAwsServer(answer);
  const saved: Record<string, string | undefined> = {};
  let client: DynamoDBDocumentClient;
  let tableName: string;

  beforeAll(async () => {
    const dynamodb = await dynamoDbLocalEndpoint();
    const fake = await aws.start();
    client = localDocumentClient(dynamodb);
    tableName = uniqueTableName('execution-timeout');
    await createDurableTable(client, tableName);
    // As on Lambda: the clients are built from the environment, and Lambda names the function.
    const variables: Record<string, string> = {
      AWS_ENDPOINT_URL_DYNAMODB: dynamodb,
      AWS_ENDPOINT_URL_LAMBDA: fake,
      AWS_ENDPOINT_URL_SCHEDULER: fake,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_LAMBDA_FUNCTION_NAME: 'orders',
    };
    for (const [name, value] of Object.entries(variables)) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
  }, 120_000);

  afterAll(async () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await aws.stop();
    client?.destroy();
  });

  it("gives the function's own run its timeout, and the child run it starts the child function's", async () => {
    const backend = createProductionBackend({
      DURABLE_TABLE_NAME: tableName,
      DURABLE_SCHEDULE_GROUP: 'durable-orders',
      DURABLE_SCHEDULER_ROLE_ARN: `arn:aws:iam::${ACCOUNT}:role/durable-orders-scheduler`,
      AWS_REGION: 'us-east-1',
      [EXECUTION_TIMEOUT_ENV]: '3600',
      [EXECUTION_TIMEOUTS_ENV]: JSON.stringify({ payments: 600 }),
    });
    const handler = withDurableExecution(
      async (input: { amount: number }, ctx) => ctx.invoke('charge', 'payments', { amount: input.amount }),
      { backend },
    );
    const requestId = `req-${tableName}`;
    const response = await handler({ amount: 5 }, {
      awsRequestId: requestId,
      functionName: 'orders',
      invokedFunctionArn: ORDERS_LIVE,
      functionVersion: '7',
      getRemainingTimeInMillis: () => 60_000,
    } as never);
    expect(response).toEqual({ Status: 'PENDING' });

    const store = new DynamoDbStore({ client, tableName });
    const parent = await store.getRun(runIdFor(requestId));
    // Pinned to version 7 at its start, and its deadline is its function's timeout.
    expect(parent).toMatchObject({ functionName: 'orders:7', executionTimeoutMs: 3_600_000 });
    expect((parent?.deadlineAt ?? 0) - (parent?.createdAt ?? 0)).toBe(3_600_000);

    // The child run was created here, in the parent's container: with the child function's timeout.
    const wakes = aws.requests
      .filter((r) => INVOKE_PATH.exec(r.path)?.[1]?.endsWith(':function:payments'))
      .map((r) => JSON.parse(r.body) as WakeEvent);
    expect(wakes).toHaveLength(1);
    const child = await store.getRun(wakes[0]?.durableLambda.runId ?? '');
    expect(child).toMatchObject({ functionName: 'payments', executionTimeoutMs: 600_000 });
    expect(child?.parent?.runId).toBe(parent?.runId);
    expect((child?.deadlineAt ?? 0) - (child?.createdAt ?? 0)).toBe(600_000);
  }, 120_000);
});
