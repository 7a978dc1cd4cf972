/**
 * A DynamoDB search page stops at its read caps (index entries, run items) with a cursor where it
 * stopped, and paging on from there finds every matching run once, in order: run with caps small
 * enough to hit on a few dozen runs (the store's are 2,000 entries and 500 runs a page), through
 * the intersection of two tags, a status the runs of a tag mostly fail, and an error code alone.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDurableTable, DynamoDbStore } from '@durable-lambda/aws';
import type { RunQuery, RunRecord } from '@durable-lambda/engine';
import { beforeAll, describe, expect, it } from 'vitest';
import { DocumentClientTransport } from '../../../packages/aws/src/dynamodb/sdk-transport';
import { StoreContext } from '../../../packages/aws/src/dynamodb/store-context';
import { TableAccess } from '../../../packages/aws/src/dynamodb/table-access';
import { type SearchCaps, searchRuns } from '../../../packages/aws/src/dynamodb/tag-search';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../../support/dynamodb-local';

let client: DynamoDBDocumentClient;
let tableName = '';
let store: DynamoDbStore;
const T0 = Date.now();
const runs: RunRecord[] = [];

beforeAll(async () => {
  client = localDocumentClient(await dynamoDbLocalEndpoint());
  tableName = uniqueTableName('tagcaps');
  await createDurableTable(client, tableName);
  store = new DynamoDbStore({ client, tableName });
  for (let i = 0; i < 36; i++) {
    const run: RunRecord = {
      runId: `cap-${String(i).padStart(2, '0')}`,
      functionName: 'orders',
      status: 'RUNNING',
      // Ties: pairs of runs share a creation time.
      createdAt: T0 + Math.floor(i / 2),
      updatedAt: T0,
      fence: 0,
      nextWakeAt: T0,
      invocations: 0,
      lostInvocations: 0,
      eventSeq: 0,
      handledEventSeq: 0,
      tags: { region: 'eu', ...(i % 5 === 0 ? { tier: 'gold' } : {}) },
    };
    await store.createRun(run, { Id: '0', Type: 'EXECUTION', Status: 'STARTED', StartTimestamp: T0 });
    if (i % 7 === 3) {
      const grant = await store.acquireLease(run.runId, Date.now(), Date.now() + 60_000, `t-${i}`);
      await store.commit(run.runId, grant?.run.fence ?? 0, {
        operations: [],
        run: {
          status: 'FAILED',
          error: { ErrorType: 'Error', ErrorMessage: 'no', ErrorCode: 'card_declined' },
          endedAt: Date.now(),
          leaseExpiresAt: null,
          dueAt: null,
        },
      });
      run.status = 'FAILED';
    }
    runs.push(run);
  }
});

/** Every page of the query with these caps: the ids in order, and how many pages came short. */
async function everyPage(query: RunQuery, caps: SearchCaps) {
  const access = new TableAccess(new DocumentClientTransport(client), tableName);
  const ctx = new StoreContext(access, { now: () => Date.now() }, { maxItemBytes: 400_000 }, 400 * 86_400_000);
  const deps = {
    access,
    now: Date.now(),
    live: (item: Record<string, unknown>) => ctx.live(item),
    runOf: (item: Record<string, unknown>) => ctx.runOf(item),
    list: (q: RunQuery) => store.listRuns(q),
  };
  const ids: string[] = [];
  let short = 0;
  let cursor: string | undefined;
  for (let pages = 0; pages < 200; pages++) {
    const page = await searchRuns(deps, { ...query, limit: 4, ...(cursor ? { cursor } : {}) }, caps);
    ids.push(...page.runs.map((r) => r.runId));
    if (page.cursor === undefined) return { ids, short };
    if (page.runs.length < 4) short += 1;
    cursor = page.cursor;
  }
  throw new Error('no last page');
}

const newestFirst = (list: RunRecord[]) =>
  [...list].sort((a, b) => b.createdAt - a.createdAt || (a.runId < b.runId ? 1 : -1)).map((r) => r.runId);

describe('DynamoDB search pages past their read caps', { timeout: 120_000 }, () => {
  it('two tags intersected, capped at 5 entries a page: every run under both, once, in order', async () => {
    const { ids, short } = await everyPage({ tags: { region: 'eu', tier: 'gold' } }, { entries: 5, runs: 500 });
    expect(ids).toEqual(newestFirst(runs.filter((r) => r.tags?.tier === 'gold')));
    expect(short).toBeGreaterThan(0);
  });

  it('a tag and a status most of its runs fail, capped at 3 runs read a page', async () => {
    const { ids, short } = await everyPage({ tags: { region: 'eu' }, status: 'FAILED' }, { entries: 2_000, runs: 3 });
    expect(ids).toEqual(newestFirst(runs.filter((r) => r.status === 'FAILED')));
    expect(short).toBeGreaterThan(0);
  });

  it('an error code alone over the listing, capped at 3 runs read a page', async () => {
    const { ids, short } = await everyPage(
      { errorCode: 'card_declined', functionName: 'orders' },
      { entries: 2_000, runs: 3 },
    );
    expect(ids).toEqual(newestFirst(runs.filter((r) => r.status === 'FAILED')));
    expect(short).toBeGreaterThan(0);
  });
});
