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

/** Requirements run at once on DynamoDB Local (each has its own run, driver and virtual clock). */
const CONCURRENT_RUNS = 4;

/**
 * `work` over `items` in order, up to `width(item)` at a time: consecutive items of the same
 * width go together, and their verdicts come back in the items' order.
 */
async function inBatches<T, R>(items: readonly T[], width: (item: T) => number, work: (item: T) => Promise<R>) {
  const results: R[] = [];
  let at = 0;
  while (at < items.length) {
    const size = width(items[at] as T);
    let end = at + 1;
    while (end < items.length && end - at < size && width(items[end] as T) === size) end += 1;
    results.push(...(await Promise.all(items.slice(at, end).map(work))));
    at = end;
  }
  return results;
}

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
      const runnable = suite.requirements.filter((req) => !(req.id in NOT_LOCAL));
      const run = (req: (typeof runnable)[number]) =>
        runOnDynamoDb(req, client, tableName).catch(
          (error: unknown): Verdict => ({ id: req.id, problems: [`threw: ${String(error)}`] }),
        );
      // The runs mostly wait on DynamoDB Local: a few at a time. Requirements that check the log
      // output run alone (the log is one stream per process).
      const verdicts = await inBatches(runnable, (req) => (req.logs ? 1 : CONCURRENT_RUNS), run);
      const { line, surprises } = tally(suite, 'dynamodb', verdicts);
      console.log(line);
      expect(surprises).toEqual([]);
    });
  }
});
