/**
 * The harness of the self-hosted-on-Lambda tests: DynamoDB Local, the fake Lambda and Scheduler
 * (`FakeCloud`) the functions' AWS clients are pointed at through the environment, a table per
 * test, functions deployed as their own containers, and our control API over the same table.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LambdaClient } from '@aws-sdk/client-lambda';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createControlApi, DurableClient, toNodeListener } from '@durable-lambda/api';
import {
  createDurableTable,
  DynamoDbStore,
  LambdaInvoker,
  ProductionBackend,
  readProductionConfig,
  selfHosted,
} from '@durable-lambda/aws';
import { Engine, type RunRecord, wakeEvent } from '@durable-lambda/engine';
import type { DurableBackend } from '@durable-lambda/protocol';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { type AwsDurableSdk, importAwsSdk } from '../support/aws-sdk';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../support/dynamodb-local';
import { ACCOUNT, FakeCloud, functionArn, REGION } from './aws-sdk-on-lambda.cloud';

/** What a test file of the harness uses (the mutable parts are read through it at test time). */
export interface LambdaWorld {
  readonly cloud: FakeCloud;
  /** AWS's SDK. */
  aws: AwsDurableSdk;
  /** This test's table. */
  tableName: string;
  store: DynamoDbStore;
  /** Environment variables as they were before `setEnv`. */
  readonly saved: Record<string, string | undefined>;
  setEnv(variables: Record<string, string>): void;
  functionEnv(name: string): Record<string, string>;
  deploy(
    name: string,
    awsHandler: Parameters<typeof selfHosted>[0],
    wrap?: (b: DurableBackend) => DurableBackend,
  ): ReturnType<typeof selfHosted>;
  controlApi(functions: string[]): Promise<{ url: string; api: DurableClient }>;
  ended(runId: string, boundMs?: number): Promise<RunRecord>;
}

/** Registers the harness's hooks in the calling test file and returns its world. */
export function useLambdaWorld(): LambdaWorld {
  const cloud = new FakeCloud();
  const saved: Record<string, string | undefined> = {};
  const closers: Array<() => Promise<void>> = [];
  let client: DynamoDBDocumentClient;
  const world = { cloud, saved } as LambdaWorld;

  function setEnv(variables: Record<string, string>): void {
    for (const [name, value] of Object.entries(variables)) {
      if (!(name in saved)) saved[name] = process.env[name];
      process.env[name] = value;
    }
  }

  beforeAll(async () => {
    world.aws = await importAwsSdk();
    const dynamodb = await dynamoDbLocalEndpoint();
    const fake = await cloud.start();
    client = localDocumentClient(dynamodb);
    // The functions build their clients from the environment, as on Lambda.
    setEnv({
      AWS_ENDPOINT_URL_DYNAMODB: dynamodb,
      AWS_ENDPOINT_URL_LAMBDA: fake,
      AWS_ENDPOINT_URL_SCHEDULER: fake,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    });
  }, 60_000);

  afterAll(async () => {
    await cloud.stop();
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    client?.destroy();
  }, 60_000);

  beforeEach(async () => {
    world.tableName = uniqueTableName('aws-on-lambda');
    await createDurableTable(client, world.tableName);
    world.store = new DynamoDbStore({ client, tableName: world.tableName });
    cloud.functions.clear();
    cloud.deliveries.length = 0;
    cloud.schedules.length = 0;
    cloud.rule = () => undefined;
  }, 60_000);

  afterEach(async () => {
    cloud.clearSchedules();
    await cloud.settled();
    for (const close of closers.splice(0)) await close();
  }, 60_000);

  /** The environment the CDK construct gives function `name`. */
  function functionEnv(name: string): Record<string, string> {
    return {
      DURABLE_TABLE_NAME: world.tableName,
      DURABLE_SCHEDULE_GROUP: `durable-${name}`,
      DURABLE_SCHEDULER_ROLE_ARN: `arn:aws:iam::${ACCOUNT}:role/durable-${name}-scheduler`,
      AWS_REGION: REGION,
    };
  }

  /** Deploys an AWS-wrapped handler as function `name`: its own container, its own backend. */
  function deploy(
    name: string,
    awsHandler: Parameters<typeof selfHosted>[0],
    wrap?: (b: DurableBackend) => DurableBackend,
  ) {
    const production = new ProductionBackend(readProductionConfig(functionEnv(name)));
    const handler = selfHosted(awsHandler, { backend: wrap ? wrap(production) : production });
    cloud.register(name, handler);
    return handler;
  }

  /** Our control API over the same table, resuming runs by Lambda invoke (as `DurableApi` deploys it). */
  async function controlApi(functions: string[]): Promise<{ url: string; api: DurableClient }> {
    const invoker = new LambdaInvoker({ client: new LambdaClient({ region: REGION }), targetArn: functionArn });
    const engine = new Engine({
      store: world.store,
      invoker,
      waker: {
        async wakeAt(request) {
          const delay = request.at - Date.now();
          if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
          await invoker.invoke(request.functionName, wakeEvent(request.runId));
        },
      },
    });
    const server = createServer(toNodeListener(createControlApi({ engine, functions, invoker, onError: () => {} })));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { url, api: new DurableClient({ baseUrl: url }) };
  }

  /** The run once it ended (a bound, not a timing assertion: the machine may be slow). */
  async function ended(runId: string, boundMs = 120_000): Promise<RunRecord> {
    const until = Date.now() + boundMs;
    for (;;) {
      const run = await world.store.getRun(runId);
      if (run && run.status !== 'RUNNING') {
        await cloud.settled();
        return run;
      }
      if (Date.now() > until) {
        const ops = (await world.store.loadOperations(runId)).map(
          (op) => `${op.Type}:${op.Name ?? op.Id}:${op.Status}`,
        );
        const sent = cloud.deliveries.map((d) => ({
          to: d.functionName,
          via: d.via,
          event: d.event,
          attempts: d.attempts,
          result: d.result,
          error: String(d.error ?? ''),
        }));
        throw new Error(
          `run ${runId} is still ${run?.status ?? 'missing'}: ${JSON.stringify({ run, ops, sent, schedules: cloud.schedules })}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  Object.assign(world, { setEnv, functionEnv, deploy, controlApi, ended });
  return world;
}

/** The value `read` gives once it gives one (bounded). */
export async function eventually<T>(read: () => T | undefined, boundMs = 60_000): Promise<T> {
  const until = Date.now() + boundMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('value never came');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A run's result, parsed. */
export const result = (run: RunRecord) => JSON.parse(run.result ?? 'null') as unknown;
