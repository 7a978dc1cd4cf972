import { wakeEvent } from '@durable-lambda/engine';
import type { Operation } from '@durable-lambda/protocol';
import { withDurableExecution } from '@durable-lambda/sdk';
// The explicit entry that registers the production backend for handlers without config.backend.
import '@durable-lambda/aws/register';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LazyDocumentClientTransport } from '../../packages/aws/src/dynamodb/sdk-transport';
import {
  ConfigurationError,
  createProductionBackend,
  LightDynamoDbClient,
  PRODUCTION_ENV,
  type ProductionBackend,
} from '../../packages/aws/src/index';

// The DynamoDB store is stubbed at module level: the production entry builds it with
// `new DynamoDbStore({ client, tableName })`, which here is an in-memory store that records its options.
const stub = vi.hoisted(() => ({ stores: [] as Array<{ options: { client: unknown; tableName: string } }> }));
vi.mock('../../packages/aws/src/dynamodb', async () => {
  const { MemoryStore } = await import('@durable-lambda/engine');
  class DynamoDbStore extends MemoryStore {
    constructor(readonly options: { client: unknown; tableName: string }) {
      super();
      stub.stores.push(this);
    }
    // The pin write (`pinRun`, a conditional rename) is the memory store's own.
  }
  return { DynamoDbStore };
});

const ACCOUNT = '123456789012';
const ORDERS_LIVE = `arn:aws:lambda:us-east-1:${ACCOUNT}:function:orders:live`;
const BILLING = `arn:aws:lambda:us-east-1:${ACCOUNT}:function:billing`;
const DAY_MS = 86_400_000;

function env(over: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    DURABLE_TABLE_NAME: 'durable-runs',
    DURABLE_SCHEDULE_GROUP: 'durable-orders',
    DURABLE_SCHEDULER_ROLE_ARN: `arn:aws:iam::${ACCOUNT}:role/durable-scheduler`,
    AWS_REGION: 'us-east-1',
    ...over,
  };
}

let requestSeq = 0;
function lambdaContext(invokedFunctionArn: string) {
  const name = invokedFunctionArn.split(':')[6] as string;
  requestSeq += 1;
  return {
    awsRequestId: `req-${requestSeq}-${Math.random()}`,
    functionName: name,
    invokedFunctionArn,
    getRemainingTimeInMillis: () => 60_000,
  };
}

/** Replaces the backend's AWS calls (nothing leaves the process) and records what was sent. */
function capture(backend: ProductionBackend) {
  const schedules: any[] = [];
  const deletes: any[] = [];
  const invokes: Array<{ FunctionName: string; InvocationType: string; event: unknown }> = [];
  vi.spyOn(backend.scheduler, 'send').mockImplementation((async (command: any) => {
    // CreateSchedule carries an expression; DeleteSchedule (a superseded lease wake-up) does not.
    (command.input.ScheduleExpression ? schedules : deletes).push(command.input);
    return { ScheduleArn: 'arn:aws:scheduler:::schedule/x' };
  }) as any);
  vi.spyOn(backend.lambda, 'send').mockImplementation((async (command: any) => {
    const { FunctionName, InvocationType, Payload } = command.input;
    invokes.push({ FunctionName, InvocationType, event: JSON.parse(new TextDecoder().decode(Payload)) });
    return { StatusCode: 202 };
  }) as any);
  return { schedules, deletes, invokes };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('createProductionBackend: configuration from the environment', () => {
  it('names every missing required variable (missing_configuration)', () => {
    const error = (() => {
      try {
        createProductionBackend({});
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error).toMatchObject({
      code: 'missing_configuration',
      variables: ['DURABLE_TABLE_NAME', 'DURABLE_SCHEDULE_GROUP', 'DURABLE_SCHEDULER_ROLE_ARN', 'AWS_REGION'],
    });
    expect((error as Error).message).toMatch(
      /missing environment variables DURABLE_TABLE_NAME, DURABLE_SCHEDULE_GROUP, DURABLE_SCHEDULER_ROLE_ARN, AWS_REGION/,
    );
  });

  it.each(['DURABLE_TABLE_NAME', 'DURABLE_SCHEDULE_GROUP', 'DURABLE_SCHEDULER_ROLE_ARN', 'AWS_REGION'])(
    'names %s alone when only it is missing or blank',
    (name) => {
      for (const value of [undefined, '', '  ']) {
        expect(() => createProductionBackend(env({ [name]: value }))).toThrow(
          expect.objectContaining({
            code: 'missing_configuration',
            variables: [name],
            message: expect.stringContaining(`missing environment variable ${name} `),
          }),
        );
      }
    },
  );

  it('rejects malformed values, naming the variable (invalid_configuration)', () => {
    const cases: Array<[string, string]> = [
      ['DURABLE_RETENTION_DAYS', 'thirty'],
      ['DURABLE_RETENTION_DAYS', '0'],
      ['DURABLE_SCHEDULE_GROUP', 'has spaces'],
      ['DURABLE_SCHEDULER_ROLE_ARN', 'durable-scheduler'],
      ['DURABLE_TABLE_NAME', 'x'],
      ['DURABLE_SCHEDULE_DLQ_ARN', 'durable-dead-letters'],
      ['DURABLE_SCHEDULE_DLQ_ARN', 'arn:aws:sqs:us-east-1:123456789012:wake-ups.fifo'],
      // A FIFO queue has no per-message delay; plain http only for a local emulator.
      ['DURABLE_WAKE_QUEUE_URL', 'https://sqs.us-east-1.amazonaws.com/123456789012/wake-ups.fifo'],
      ['DURABLE_WAKE_QUEUE_URL', 'http://sqs.us-east-1.amazonaws.com/123456789012/wake-ups'],
      ['DURABLE_WAKE_QUEUE_URL', 'wake-ups'],
      ['DURABLE_LEASE_WAKEUP', 'never'],
      ['DURABLE_DYNAMODB_CLIENT', 'fast'],
    ];
    for (const [name, value] of cases) {
      expect(() => createProductionBackend(env({ [name]: value }))).toThrow(
        expect.objectContaining({ code: 'invalid_configuration', variables: [name] }),
      );
    }
  });

  it('documents the variable names', () => {
    expect(PRODUCTION_ENV).toEqual({
      tableName: 'DURABLE_TABLE_NAME',
      legacyIndexes: 'DURABLE_LEGACY_INDEXES',
      scheduleGroup: 'DURABLE_SCHEDULE_GROUP',
      schedulerRoleArn: 'DURABLE_SCHEDULER_ROLE_ARN',
      retentionDays: 'DURABLE_RETENTION_DAYS',
      scheduleDeadLetterArn: 'DURABLE_SCHEDULE_DLQ_ARN',
      wakeQueueUrl: 'DURABLE_WAKE_QUEUE_URL',
      wakeDelayRounding: 'DURABLE_WAKE_DELAY_ROUNDING',
      leaseWakeUp: 'DURABLE_LEASE_WAKEUP',
      dynamoDbClient: 'DURABLE_DYNAMODB_CLIENT',
      region: 'AWS_REGION',
    });
  });

  it('sends DynamoDB requests through the light client; DURABLE_DYNAMODB_CLIENT=sdk through the AWS SDK document client, built at its first request', async () => {
    const light = createProductionBackend(env({ DURABLE_TABLE_NAME: 'light-by-default' }));
    expect(light.dynamodb).toBeInstanceOf(LightDynamoDbClient);
    expect((light.dynamodb as LightDynamoDbClient).region).toBe('us-east-1');
    expect(
      createProductionBackend(env({ DURABLE_TABLE_NAME: 'light-asked', DURABLE_DYNAMODB_CLIENT: 'light' })).dynamodb,
    ).toBeInstanceOf(LightDynamoDbClient);

    const sdk = createProductionBackend(env({ DURABLE_TABLE_NAME: 'sdk-asked', DURABLE_DYNAMODB_CLIENT: 'sdk' }));
    expect(sdk.dynamodb).toBeInstanceOf(LazyDocumentClientTransport);
    const client = await (sdk.dynamodb as LazyDocumentClientTransport).client();
    expect(client.config.translateConfig?.marshallOptions?.removeUndefinedValues).toBe(true);
    expect(await client.config.region()).toBe('us-east-1');
    // The store was handed that transport.
    expect(stub.stores.at(-1)?.options.client).toBe(sdk.dynamodb);
  });

  it('builds the clients, the store and the engine once per container', async () => {
    const before = stub.stores.length;
    const e = env({ DURABLE_TABLE_NAME: 'once-per-container' });
    const first = createProductionBackend(e);
    const again = createProductionBackend({ ...e });
    expect(again).toBe(first);
    expect(again.engine).toBe(first.engine);
    expect(again.scheduler).toBe(first.scheduler);
    expect(again.lambda).toBe(first.lambda);
    expect(stub.stores.length).toBe(before + 1);
    const store = stub.stores.at(-1);
    expect(store?.options).toEqual({ client: first.dynamodb, tableName: 'once-per-container' });
    expect(first.engine.store).toBe(store);
    expect(await first.scheduler.config.region()).toBe('us-east-1');
    expect(await first.lambda.config.region()).toBe('us-east-1');

    const other = createProductionBackend(env({ DURABLE_TABLE_NAME: 'once-per-container', AWS_REGION: 'eu-west-1' }));
    expect(other).not.toBe(first);
    expect(await other.scheduler.config.region()).toBe('eu-west-1');
  });
});

describe('ProductionBackend: wake-up schedules', () => {
  const DLQ = `arn:aws:sqs:us-east-1:${ACCOUNT}:durable-wake-up-dead-letters`;

  // The lease safety wake-up is a schedule only with DURABLE_LEASE_WAKEUP=scheduler (by default the
  // reconciler stands behind the lease, and an invocation asks Scheduler for nothing).
  it('retry for a day, then go to the dead-letter queue DURABLE_SCHEDULE_DLQ_ARN names', async () => {
    const backend = createProductionBackend(
      env({ DURABLE_TABLE_NAME: 'with-dlq', DURABLE_SCHEDULE_DLQ_ARN: DLQ, DURABLE_LEASE_WAKEUP: 'scheduler' }),
    );
    const sent = capture(backend);
    const handler = withDurableExecution(async () => 'done', { backend });
    expect(await handler({}, lambdaContext(ORDERS_LIVE))).toMatchObject({ Status: 'SUCCEEDED' });
    // The lease safety wake-up is a schedule.
    expect(sent.schedules).toHaveLength(1);
    expect(sent.schedules[0].Target).toMatchObject({
      Arn: ORDERS_LIVE,
      DeadLetterConfig: { Arn: DLQ },
      RetryPolicy: { MaximumEventAgeInSeconds: 86_400, MaximumRetryAttempts: 185 },
    });
  });

  it('still work without one (a configuration from before the dead-letter queue)', async () => {
    const backend = createProductionBackend(
      env({ DURABLE_TABLE_NAME: 'without-dlq', DURABLE_LEASE_WAKEUP: 'scheduler' }),
    );
    const sent = capture(backend);
    const handler = withDurableExecution(async () => 'done', { backend });
    expect(await handler({}, lambdaContext(ORDERS_LIVE))).toMatchObject({ Status: 'SUCCEEDED' });
    expect(sent.schedules[0].Target).not.toHaveProperty('DeadLetterConfig');
    expect(sent.schedules[0].Target.RetryPolicy).toEqual({
      MaximumEventAgeInSeconds: 86_400,
      MaximumRetryAttempts: 185,
    });
  });
});

describe('ProductionBackend: Lambda targets', () => {
  it('targets its own wake-ups at the qualified ARN it was invoked with, other functions unqualified', async () => {
    const backend = createProductionBackend(env({ DURABLE_TABLE_NAME: 'targets', DURABLE_LEASE_WAKEUP: 'scheduler' }));
    const sent = capture(backend);
    const handler = withDurableExecution(
      async (event: { amount: number }, ctx) => ctx.invoke('charge', 'billing', { amount: event.amount }),
      { backend },
    );

    // The parent, invoked through its `live` alias, starts a child run of another function and suspends.
    const parentResponse = await handler({ amount: 5 }, lambdaContext(ORDERS_LIVE));
    expect(parentResponse).toEqual({ Status: 'PENDING' });
    // Its lease safety wake-up targets the alias it runs on.
    expect(sent.schedules).toHaveLength(1);
    expect(sent.schedules[0].Target.Arn).toBe(ORDERS_LIVE);
    expect(sent.schedules[0].GroupName).toBe('durable-orders');
    expect(sent.schedules[0].Target.RoleArn).toBe(`arn:aws:iam::${ACCOUNT}:role/durable-scheduler`);
    // The child is another function: the unqualified ARN in the same region and account.
    expect(sent.invokes).toHaveLength(1);
    expect(sent.invokes[0]).toMatchObject({ FunctionName: BILLING, InvocationType: 'Event' });
    const childWake = sent.invokes[0]?.event as ReturnType<typeof wakeEvent>;
    expect(childWake.durableLambda.action).toBe('wake');

    // The child runs in its own function and finishes: the parent is resumed through Lambda.
    const child = withDurableExecution(async (event: { amount: number }) => ({ charged: event.amount }), { backend });
    const childResponse = await child(childWake, lambdaContext(BILLING));
    expect(childResponse).toMatchObject({ Status: 'SUCCEEDED' });
    expect(sent.schedules.at(-1).Target.Arn).toBe(BILLING);
    const resume = sent.invokes.at(-1);
    // Runs are recorded under the qualified name they started on: the parent resumes on its alias.
    expect(resume?.FunctionName).toBe(ORDERS_LIVE);

    // The parent's wake-up replays it on its alias and finishes with the child's result.
    const parentRunId = (resume!.event as ReturnType<typeof wakeEvent>).durableLambda.runId;
    const done = await handler(wakeEvent(parentRunId), lambdaContext(ORDERS_LIVE));
    expect(done).toMatchObject({ Status: 'SUCCEEDED', Result: JSON.stringify({ charged: 5 }) });
    expect(sent.schedules.at(-1).Target.Arn).toBe(ORDERS_LIVE);
  });

  it('maps names, qualified names and ARNs from its own ARN', async () => {
    const backend = createProductionBackend(env({ DURABLE_TABLE_NAME: 'targets' }));
    capture(backend);
    // A wake-up for a run that does not exist: nothing to do, but the backend learns its own ARN.
    const response = await backend.open(wakeEvent('k00000000000000000000000000000000'), lambdaContext(ORDERS_LIVE));
    expect(response).toMatchObject({ response: { Status: 'NOT_FOUND' } });
    expect(backend.targetArn('orders')).toBe(ORDERS_LIVE);
    expect(backend.targetArn('billing')).toBe(BILLING);
    expect(backend.targetArn('billing:prod')).toBe(`${BILLING}:prod`);
    expect(backend.targetArn(`${ACCOUNT}:function:billing`)).toBe(BILLING);
    expect(backend.targetArn('arn:aws:lambda:eu-west-1:999999999999:function:x:7')).toBe(
      'arn:aws:lambda:eu-west-1:999999999999:function:x:7',
    );
    // A version-qualified invocation is targeted by that version.
    await backend.open(wakeEvent('k00000000000000000000000000000000'), lambdaContext(`${BILLING}:12`));
    expect(backend.targetArn('billing')).toBe(`${BILLING}:12`);
    expect(backend.targetArn('orders')).toBe(`arn:aws:lambda:us-east-1:${ACCOUNT}:function:orders`);
  });

  it('refuses to run without the Lambda context ARN', async () => {
    const backend = createProductionBackend(env({ DURABLE_TABLE_NAME: 'targets' }));
    await expect(backend.open({}, { awsRequestId: 'x', functionName: 'orders' })).rejects.toMatchObject({
      code: 'missing_configuration',
      message: expect.stringContaining('invokedFunctionArn'),
    });
    await expect(
      backend.open({}, lambdaContext('arn:aws:sqs:us-east-1:123456789012:function:q')),
    ).rejects.toMatchObject({
      code: 'invalid_configuration',
    });
  });
});

describe('withDurableExecution without a backend', () => {
  const saved: Record<string, string | undefined> = {};
  const names = [...Object.values(PRODUCTION_ENV)];
  beforeEach(() => {
    for (const name of names) {
      saved[name] = process.env[name];
      delete process.env[name];
    }
  });
  afterEach(() => {
    for (const name of names) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  it('loads @durable-lambda/aws lazily and fails naming the first missing variable', async () => {
    const handler = withDurableExecution(async () => 'never');
    await expect(handler({}, lambdaContext(ORDERS_LIVE))).rejects.toMatchObject({
      code: 'missing_configuration',
      message: expect.stringContaining('DURABLE_TABLE_NAME'),
    });
  });

  it('runs on createProductionBackend() configured from process.env', async () => {
    Object.assign(process.env, env({ DURABLE_TABLE_NAME: 'from-process-env', DURABLE_RETENTION_DAYS: '7' }));
    // The module the SDK loads lazily is this one: its per-container cache hands out the same backend.
    const backend = createProductionBackend();
    const sent = capture(backend);
    const handler = withDurableExecution(async (event: { n: number }, ctx) => {
      const doubled = await ctx.step('double', async () => event.n * 2);
      return { doubled };
    });
    const response = await handler({ n: 21 }, lambdaContext(ORDERS_LIVE));
    expect(response).toEqual({ Status: 'SUCCEEDED', Result: JSON.stringify({ doubled: 42 }) });
    // No Scheduler call: the reconciler, not a schedule, stands behind the lease by default.
    expect(sent.schedules).toEqual([]);
    expect(sent.deletes).toEqual([]);

    // The run is in the (stubbed) DynamoDB store with the configured retention.
    const store = backend.engine.store as unknown as { options: { tableName: string } };
    expect(store.options.tableName).toBe('from-process-env');
    const runId = (await backend.engine.listRuns({})).runs[0]?.runId as string;
    const run = await backend.engine.getRun(runId);
    expect(run).toMatchObject({ status: 'SUCCEEDED', functionName: 'orders:live' });
    expect((run?.expiresAt ?? 0) - (run?.endedAt ?? 0)).toBe(7 * DAY_MS);
    const ops: Operation[] = await backend.engine.getOperations(runId);
    expect(ops.map((op) => [op.Type, op.Status])).toContainEqual(['STEP', 'SUCCEEDED']);
  });
});
