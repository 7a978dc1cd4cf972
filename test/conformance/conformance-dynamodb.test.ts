/**
 * AWS's conformance requirements (`suites/`) on the production backend: the engine on
 * `DynamoDbStore` over DynamoDB Local (one table for every requirement), driven by wake-ups and
 * invokes as on Lambda, its history read through our `GetDurableExecutionHistory` route. Prints
 * how many pass per suite; fails only when the outcome differs from the reviewed list.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDurableTable } from '@durable-lambda/aws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../support/dynamodb-local';
import { runOnDynamoDb } from './harness/run-on-dynamodb';
import type { Verdict } from './harness/run-on-test-runner';
import { tally } from './harness/tally';
import { NOT_LOCAL } from './not-local';
import { SUITES } from './suites';

let client: DynamoDBDocumentClient;
let tableName: string;

beforeAll(async () => {
  client = localDocumentClient(await dynamoDbLocalEndpoint());
  tableName = uniqueTableName('conformance');
  await createDurableTable(client, tableName);
}, 120_000);

afterAll(() => client?.destroy());

describe('conformance requirements on the production backend over DynamoDB Local', () => {
  for (const suite of SUITES) {
    it(`${suite.name} suite`, async () => {
      const verdicts: Verdict[] = [];
      const runnable = suite.requirements.filter((req) => !(req.id in NOT_LOCAL));
      for (const req of runnable) {
        verdicts.push(
          await runOnDynamoDb(req, client, tableName).catch((error: unknown) => ({
            id: req.id,
            problems: [`threw: ${String(error)}`],
          })),
        );
      }
      const { line, surprises } = tally(suite, 'dynamodb', verdicts);
      console.log(line);
      expect(surprises).toEqual([]);
    });
  }
});
