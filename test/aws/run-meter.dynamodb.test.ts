/**
 * The run meter on AWS, end to end: the production backend built from the environment over the
 * real DynamoDbStore on DynamoDB Local (which answers `ConsumedCapacity` as DynamoDB does), SQS,
 * Scheduler and Lambda a local fake endpoint recording every request. A recorder interceptor of
 * the test's own on the backend's DynamoDB client (the light client) sees every DynamoDB answer,
 * so the meter is checked against what DynamoDB said.
 */
import { createHash } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  type ConsumedCapacity,
  capacityUnits,
  createDurableTable,
  DynamoDbStore,
  measureConsumedCapacity,
  ProductionBackend,
  readProductionConfig,
} from '@durable-lambda/aws';
import { type DurableHandler, withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../support/dynamodb-local';
import { until } from '../support/harness';
import { awsError, type CapturedRequest, FakeAwsServer, type FakeResponse } from './fake-aws-server';

const ACCOUNT = '123456789012';
const arn = (name: string) => `arn:aws:lambda:us-east-1:${ACCOUNT}:function:${name}`;
const INVOKE_PATH = /^\/2015-03-31\/functions\/(.+)\/invocations$/;

function answer(request: CapturedRequest): FakeResponse {
  if (request.headers['x-amz-target'] === 'AmazonSQS.SendMessage') {
    const { MessageBody } = JSON.parse(request.body) as { MessageBody: string };
    const md5 = createHash('md5').update(MessageBody).digest('hex');
    return { status: 200, body: JSON.stringify({ MessageId: `m${aws.requests.length}`, MD5OfMessageBody: md5 }) };
  }
  if (request.method === 'POST' && INVOKE_PATH.test(request.path)) return { status: 202, body: '' };
  if (request.method === 'POST' && request.path.startsWith('/schedules/')) {
    return { status: 200, body: JSON.stringify({ ScheduleArn: `arn:aws:scheduler:us-east-1:${ACCOUNT}:schedule/x` }) };
  }
  return awsError(400, 'ValidationException', `unexpected ${request.method} ${request.path}`);
}

const aws = new FakeAwsServer(answer);
const saved: Record<string, string | undefined> = {};
let client: DynamoDBDocumentClient;
let store: DynamoDbStore;
let environment: Record<string, string>;

beforeAll(async () => {
  const dynamodb = await dynamoDbLocalEndpoint();
  const fake = await aws.start();
  client = localDocumentClient(dynamodb);
  const variables: Record<string, string> = {
    AWS_ENDPOINT_URL_DYNAMODB: dynamodb,
    AWS_ENDPOINT_URL_LAMBDA: fake,
    AWS_ENDPOINT_URL_SCHEDULER: fake,
    AWS_ENDPOINT_URL_SQS: fake,
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  };
  for (const [name, value] of Object.entries(variables)) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
}, 60_000);

afterAll(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await aws.stop();
  client?.destroy();
});

beforeEach(async () => {
  const tableName = uniqueTableName('meter');
  await createDurableTable(client, tableName);
  store = new DynamoDbStore({ client, tableName });
  environment = {
    DURABLE_TABLE_NAME: tableName,
    DURABLE_SCHEDULE_GROUP: 'durable-orders',
    DURABLE_SCHEDULER_ROLE_ARN: `arn:aws:iam::${ACCOUNT}:role/durable-orders-scheduler`,
    DURABLE_WAKE_QUEUE_URL: `${fake()}/${ACCOUNT}/orders-wake-ups`,
    AWS_REGION: 'us-east-1',
  };
  aws.requests.length = 0;
});

const fake = () => process.env.AWS_ENDPOINT_URL_SQS as string;

let seq = 0;
const lambda = () => ({
  awsRequestId: `req-meter-${++seq}-${Date.now()}`,
  functionName: 'orders',
  invokedFunctionArn: arn('orders'),
  getRemainingTimeInMillis: () => 60_000,
  // As Lambda's Node.js context gives it: a string.
  memoryLimitInMB: '1024',
});
const sqsEvent = (body: string) => ({
  Records: [{ messageId: `m-${++seq}`, receiptHandle: 'rh', body, attributes: {}, eventSource: 'aws:sqs' }],
});

/** One DynamoDB answer, as the test's recorder saw it. */
interface Answer {
  command: string;
  units: number;
}

/** The backend with a recorder of every DynamoDB answer, per invocation (`calls.at(-1)`). */
function metered<E>(workflow: DurableHandler<E, unknown>) {
  const backend = new ProductionBackend(readProductionConfig(environment));
  const calls: Answer[][] = [];
  // Inside the meter's own interceptor (added first): it sees the capacity the meter asked for.
  backend.dynamodb.intercept(async (call, next) => {
    const output = await next({ ...call.input });
    calls.at(-1)?.push({ command: call.commandName, units: capacityUnits(output.ConsumedCapacity) });
    return output;
  });
  const handler = withDurableExecution(workflow, { backend, inProcessWaitMs: 0 });
  const invoke = (event: unknown) => {
    calls.push([]);
    return handler(event, lambda());
  };
  return { invoke, calls };
}

const WRITES = ['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'TransactWriteItemsCommand'];
const sum = (answers: Answer[]) => answers.reduce((total, a) => total + a.units, 0);

/**
 * The write units DynamoDB answered for one invocation's writes. Its last write is the close (an
 * `UpdateItem`), whose units the meter estimates before sending it: the estimate must match.
 */
function writeUnits(answers: Answer[]): number {
  const writes = answers.filter((a) => WRITES.includes(a.command));
  expect(writes.at(-1)?.command).toBe('UpdateItemCommand');
  return sum(writes);
}

describe('run meter on DynamoDB Local', () => {
  it("records each invocation's DynamoDB units, duration, memory and its wake-up's SQS requests", async () => {
    const { invoke, calls } = metered(async (event: { order: number }, ctx) => {
      const reserved = await ctx.step('reserve', async () => `reserved ${event.order}`);
      await ctx.wait({ seconds: 3 });
      return ctx.step('ship', async () => `${reserved}, shipped`);
    });
    expect(await invoke({ order: 1 })).toEqual({ Status: 'PENDING' });
    const send = aws.requests.find((r) => r.headers['x-amz-target'] === 'AmazonSQS.SendMessage');
    const body = (JSON.parse(send?.body ?? '{}') as { MessageBody: string }).MessageBody;
    const wake = JSON.parse(body).durableLambda as { runId: string; at: number };

    // The first close carries the first invocation, and prices the SQS message sent after it.
    const first = (await store.getRun(wake.runId))?.meter;
    expect(first).toMatchObject({ invocations: 1, sqsRequests: 3 });
    expect(first?.wru).toBe(writeUnits(calls[0] ?? []));
    expect(first?.mbMs).toBe((first?.billedMs ?? 0) * 1024);

    await until(() => Date.now() >= wake.at, 30_000);
    expect(await invoke(sqsEvent(body))).toEqual({ batchItemFailures: [] });
    const run = await store.getRun(wake.runId);
    expect(run?.status).toBe('SUCCEEDED');
    const meter = run?.meter;
    // Two invocations; only the first asked for a wake-up; nothing of Scheduler or Lambda invokes.
    expect(meter).toMatchObject({ invocations: 2, sqsRequests: 3 });
    expect(meter?.schedulerRequests).toBeUndefined();
    expect(meter?.lambdaInvokes).toBeUndefined();
    // The closes' own units estimated by DynamoDB's rules: here exactly what DynamoDB answered.
    expect(meter?.wru).toBe(writeUnits(calls[0] ?? []) + writeUnits(calls[1] ?? []));
    // Every read is before the last write: exactly what DynamoDB answered.
    const reads = (calls[0] ?? []).concat(calls[1] ?? []).filter((a) => !WRITES.includes(a.command));
    expect(meter?.rru).toBe(sum(reads));
    expect(meter?.rru).toBeGreaterThan(0);
    expect(meter?.billedMs).toBeGreaterThanOrEqual(2);
    expect(meter?.mbMs).toBe((meter?.billedMs ?? 0) * 1024);
  }, 60_000);

  it('prices a wait beyond 15 minutes as its schedule, the hop it fires and the SQS message the hop sends', async () => {
    const { invoke } = metered(async (_event: unknown, ctx) => {
      await ctx.step('prepare', async () => 1);
      await ctx.wait({ hours: 1 });
      return 'late';
    });
    expect(await invoke({})).toEqual({ Status: 'PENDING' });
    expect(aws.requests.filter((r) => r.path.startsWith('/schedules/'))).toHaveLength(1);
    const [run] = (await store.listRuns({ functionName: 'orders' })).runs;
    expect(run?.meter).toMatchObject({ invocations: 2, schedulerRequests: 1, schedulerInvocations: 1, sqsRequests: 3 });
    expect(run?.meter?.lambdaInvokes).toBeUndefined();
  }, 60_000);

  it('counts a chained invoke where the invoker makes it', async () => {
    const { invoke } = metered(async (_event: unknown, ctx) => ctx.invoke('charge', 'billing', { amount: 5 }));
    // It waits for its child: the close asks for no wake-up of its own.
    expect(await invoke({})).toEqual({ Status: 'PENDING' });
    const invokes = aws.requests.filter((r) => INVOKE_PATH.test(r.path));
    expect(invokes.map((r) => INVOKE_PATH.exec(r.path)?.[1])).toEqual([arn('billing')]);
    const [run] = (await store.listRuns({ functionName: 'orders' })).runs;
    expect(run?.meter).toMatchObject({ invocations: 1, lambdaInvokes: 1 });
    expect(run?.meter?.sqsRequests).toBeUndefined();
  }, 60_000);

  it('measures each request as DynamoDB answers it, a refused conditional write as the 1 WRU it costs at least', async () => {
    const reports: ConsumedCapacity[] = [];
    const measured = localDocumentClient(await dynamoDbLocalEndpoint());
    measureConsumedCapacity(measured, (consumed) => reports.push(consumed));
    const table = environment.DURABLE_TABLE_NAME as string;
    const key = { pk: 'RUN#m', sk: 'RUN' };
    const put = { TableName: table, Item: { ...key, n: 1 } };
    await measured.send(new PutCommand(put));
    // The caller's input is left as it was (the middleware asks on a copy).
    expect(put).not.toHaveProperty('ReturnConsumedCapacity');
    await measured.send(new GetCommand({ TableName: table, Key: key }));
    const refused = measured.send(
      new UpdateCommand({
        TableName: table,
        Key: key,
        UpdateExpression: 'SET n = :two',
        ConditionExpression: 'n = :zero',
        ExpressionAttributeValues: { ':two': 2, ':zero': 0 },
      }),
    );
    await expect(refused).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
    expect(reports.map(({ ms: _ms, ...rest }) => rest)).toEqual([
      { command: 'PutItemCommand', rru: 0, wru: 1, tableUnits: 1, refused: false },
      { command: 'GetItemCommand', rru: 0.5, wru: 0, tableUnits: 0.5, refused: false },
      { command: 'UpdateItemCommand', rru: 0, wru: 1, tableUnits: 1, refused: true },
    ]);
    measured.destroy();
  });
});
