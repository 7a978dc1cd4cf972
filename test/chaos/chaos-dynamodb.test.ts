import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDurableTable, DynamoDbStore, LightDynamoDbClient } from '@durable-lambda/aws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../support/dynamodb-local';
import { runFlowSeed } from './flow-world';
import { CHAOS_FAULTS, ChaosTotals, envCount, runSeed, seeds } from './harness';

/**
 * 24 runs by default: ~220 faults of every kind on the DynamoDB store's conditional writes, lost
 * responses and leases, at ~1.3 CPU-s a run here and in DynamoDB Local together (each request costs
 * both sides; 40 runs were a tenth of `npm test`'s CPU). The engine's logic under faults gets its 500
 * runs in chaos-memory, and each DynamoDB fault path has its own test (dynamodb-lost-responses,
 * the crash tests).
 * 13 seeds in 20 meet an operator (`operators.ts`); the default 24 meet every mode.
 * A longer run: DURABLE_CHAOS_DYNAMODB_RUNS=120 or 300 (passed with 0 violations with the operator:
 * 300 seeds, 2,679 faults, 159 operator actions landed, 84 execution timeouts, 32 re-created runs,
 * ~250 s here), or 1000.
 *
 * The store sends through the light client, as a deployed function's does;
 * DURABLE_CHAOS_DYNAMODB_CLIENT=sdk sends through the AWS SDK's document client instead.
 */
const RUNS = envCount('DURABLE_CHAOS_DYNAMODB_RUNS', 24);
/** Seeds run at once: each has its own driver and virtual clock, and decisions are keyed by place. */
const CONCURRENCY = envCount('DURABLE_CHAOS_DYNAMODB_CONCURRENCY', 8);
/** Seeds apart from the memory suite's, so a failing seed names one suite. */
const FIRST_SEED = 500_001;
/**
 * Flow seeds (issue 26, `flow-world.ts`): one per four runs, on the DynamoDB store's slot and queue
 * items; 6 by default (~11 s here, side by side). With DURABLE_CHAOS_DYNAMODB_RUNS=120, 30 flow
 * seeds passed with 0 violations: 283 keyed runs, 129 queued, 121 hand-overs, 75 kills in
 * admission or before a slot's release, 685 trigger deliveries, 221 firings.
 */
const FLOW_RUNS = Math.ceil(RUNS / 4);
const FLOW_FIRST_SEED = 1_500_001;
const totals = new ChaosTotals();
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

describe('chaos on the DynamoDB store (DynamoDB Local)', () => {
  it(`every run of the reference workflows finishes correctly under random faults (${RUNS} runs)`, async () => {
    // One table per worker: the seeds of a worker run one after another in time order, so no
    // reconciler of one seed meets the runs of another still in flight (as a replay would not).
    const all = seeds(FIRST_SEED, RUNS);
    const workers = Array.from({ length: Math.min(CONCURRENCY, all.length) }, (_, w) =>
      all.filter((_, i) => i % CONCURRENCY === w),
    );
    await Promise.all(
      workers.map(async (mine) => {
        const tableName = uniqueTableName('chaos');
        await createDurableTable(client, tableName);
        const store = (clock: { now(): number }) =>
          new DynamoDbStore({ client: SDK_CLIENT ? client : light, tableName, clock });
        for (const seed of mine) {
          totals.add(await runSeed(seed, { store, storeLabel: 'dynamodb', faults: CHAOS_FAULTS }));
        }
      }),
    );
    expect(totals.runs).toBe(seeds(FIRST_SEED, RUNS).length);
    expect(totals.report('DynamoDB Local')).not.toMatch(/violations [1-9]/);
  }, 900_000);

  it(`every keyed run keeps its key's limit, frees its slot and starts once per event under random faults (${FLOW_RUNS} flow seeds)`, async () => {
    const before = totals.runs;
    const all = seeds(FLOW_FIRST_SEED, FLOW_RUNS);
    const workers = Array.from({ length: Math.min(CONCURRENCY, all.length) }, (_, w) =>
      all.filter((_, i) => i % CONCURRENCY === w),
    );
    await Promise.all(
      workers.map(async (mine) => {
        const tableName = uniqueTableName('chaos-flow');
        await createDurableTable(client, tableName);
        const store = (clock: { now(): number }) =>
          new DynamoDbStore({ client: SDK_CLIENT ? client : light, tableName, clock });
        for (const seed of mine) totals.add(await runFlowSeed(seed, { store, faults: CHAOS_FAULTS }));
      }),
    );
    expect(totals.runs - before).toBe(all.length);
    expect(totals.report('DynamoDB Local')).not.toMatch(/violations [1-9]/);
  }, 900_000);
});
