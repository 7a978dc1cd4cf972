import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDurableTable, DynamoDbStore, LightDynamoDbClient } from '@durable-lambda/aws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../support/dynamodb-local';
import { CHAOS_FAULTS, ChaosTotals, envCount, seeds } from './harness';
import { runSagaSeed, SagaTotals } from './saga-world';

/**
 * Saga seeds (issue 27, `saga-world.ts`) on the DynamoDB store (DynamoDB Local, the light client
 * a deployed function uses): DURABLE_CHAOS_SAGA_DYNAMODB_RUNS (default 6, ~12 s) seeds under the suites'
 * random faults, several at once (one table per worker, its seeds one after another in time).
 * DURABLE_CHAOS_SAGA_DYNAMODB_RUNS=48 (4 at once, ~90 s here) passed with 0 violations: 535 faults
 * (every kind 8 times or more), 235 compensations, 289 undo executions (54 repeats of lost attempts),
 * 7 cancels landed (4 once a round had begun).
 */
const RUNS = envCount('DURABLE_CHAOS_SAGA_DYNAMODB_RUNS', 6);
const CONCURRENCY = envCount('DURABLE_CHAOS_DYNAMODB_CONCURRENCY', 8);
/** Seeds apart from the other suites'. */
const FIRST_SEED = 2_500_001;
const totals = new ChaosTotals();
const sagas = new SagaTotals();
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
  process.stdout.write(`${totals.report('DynamoDB Local, saga seeds')}\n${sagas.report()}\n`);
  client?.destroy();
  light?.destroy();
});

describe('chaos on the DynamoDB store (DynamoDB Local): sagas', () => {
  it(`every saga compensates once per succeeded step, in reverse order, under random faults (${RUNS} seeds)`, async () => {
    const all = seeds(FIRST_SEED, RUNS);
    const workers = Array.from({ length: Math.min(CONCURRENCY, all.length) }, (_, w) =>
      all.filter((_, i) => i % CONCURRENCY === w),
    );
    await Promise.all(
      workers.map(async (mine) => {
        const tableName = uniqueTableName('chaos-saga');
        await createDurableTable(client, tableName);
        const store = (clock: { now(): number }) => new DynamoDbStore({ client: light, tableName, clock });
        for (const seed of mine) {
          const outcome = await runSagaSeed(seed, { store, storeLabel: 'dynamodb', faults: CHAOS_FAULTS });
          totals.add(outcome);
          sagas.add(outcome.saga);
        }
      }),
    );
    expect(totals.runs).toBe(all.length);
    expect(totals.report('DynamoDB Local')).not.toMatch(/violations [1-9]/);
  }, 900_000);
});
