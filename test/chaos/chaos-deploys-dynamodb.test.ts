import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDurableTable, LightDynamoDbClient } from '@durable-lambda/aws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../support/dynamodb-local';
import { dynamoDbKit } from './deploys/container-stores';
import { DeployTotals } from './deploys/deploy-suite';
import { envCount, seeds } from './harness';

/**
 * The deploy world on DynamoDB Local: each container's store is the production `DynamoDbStore`
 * (its pin write, `pinRun`, a real conditional update), the control API's and the reconciler's the
 * `DynamoDbStore`. DURABLE_CHAOS_DEPLOY_DYNAMODB_RUNS worlds (default 8), several at once
 * (DURABLE_CHAOS_DYNAMODB_CONCURRENCY, default 8), one table per worker; each world's function has
 * a name of its own and its own stretch of time, so worlds sharing a table never meet. 40 worlds
 * passed with 0 violations (121 runs, 103 deploys, 15 versions deleted, 751 faults).
 *
 * The stores send through the light client, as a deployed function's does;
 * DURABLE_CHAOS_DYNAMODB_CLIENT=sdk sends through the AWS SDK's document client instead.
 */
const WORLDS = envCount('DURABLE_CHAOS_DEPLOY_DYNAMODB_RUNS', 8);
const CONCURRENCY = envCount('DURABLE_CHAOS_DYNAMODB_CONCURRENCY', 8);
/** Seeds apart from the memory suite's, so a failing seed names one suite. */
const FIRST_SEED = 700_001;
const totals = new DeployTotals();
const SDK_CLIENT = process.env.DURABLE_CHAOS_DYNAMODB_CLIENT === 'sdk';
let client: DynamoDBDocumentClient;
let light: LightDynamoDbClient;

beforeAll(async () => {
  const endpoint = await dynamoDbLocalEndpoint();
  client = localDocumentClient(endpoint);
  light = new LightDynamoDbClient({
    region: 'us-east-1',
    endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}, 60_000);

afterAll(() => {
  process.stdout.write(`${totals.report(`DynamoDB Local, ${SDK_CLIENT ? 'AWS SDK' : 'light'} client`)}\n`);
  client?.destroy();
  light?.destroy();
});

describe('chaos with deploys on the DynamoDB store (DynamoDB Local)', () => {
  it(`every run's steps run on the version it is pinned to, and every run finishes (${WORLDS} worlds)`, async () => {
    const all = seeds(FIRST_SEED, WORLDS);
    const workers = Array.from({ length: Math.min(CONCURRENCY, all.length) }, (_, w) =>
      all.filter((_, i) => i % CONCURRENCY === w),
    );
    await Promise.all(
      workers.map(async (mine) => {
        const tableName = uniqueTableName('chaos-deploys');
        await createDurableTable(client, tableName);
        for (const seed of mine) {
          await totals.run(seed, {
            kit: (clock) => dynamoDbKit(SDK_CLIENT ? client : light, tableName, clock),
            // A pass reads all 64 shards of the due index: every 15 minutes of virtual time still
            // finds what was lost, at an eighth of the requests.
            reconcilePeriodMs: 15 * 60_000,
          });
        }
      }),
    );
    expect(totals.seeds).toBe(all.length);
    expect(totals.report('DynamoDB Local')).not.toMatch(/violations [1-9]/);
  }, 900_000);
});
