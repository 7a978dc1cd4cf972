/**
 * Issue 9, case 5: a conditional write reaches DynamoDB and succeeds, its response is lost (a
 * timeout), and the AWS SDK's own retry sends it again. The retry's condition fails on the item
 * the first request wrote; the store must recognise that as its own earlier success.
 *
 * A client middleware inside the SDK's retry loop lets the request through to DynamoDB Local,
 * then throws a retryable `TimeoutError` in place of the response, once; the SDK retries it
 * unchanged. Every test also checks the request really went twice.
 */
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDurableTable, DynamoDbStore } from '@durable-lambda/aws';
import type { Operation } from '@durable-lambda/protocol';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callbackOp, executionOp, runRecord, stepOp, T0 } from '../../store-conformance/conformance';
import { dynamoDbLocalEndpoint, localClient, uniqueTableName } from '../../support/dynamodb-local';

let client: DynamoDBDocumentClient;
/**
 * Responses to lose (after DynamoDB applied the request): by command name, which request of it,
 * counted from 1 since the last reset of {@link attempts}.
 */
const lose = new Map<string, number>();
/** Requests that reached DynamoDB, by command name, since the last reset. */
let attempts: Record<string, number> = {};

beforeAll(async () => {
  const raw = localClient(await dynamoDbLocalEndpoint());
  client = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = context.commandName ?? 'unknown';
      attempts[name] = (attempts[name] ?? 0) + 1;
      const output = await next(args);
      if (lose.get(name) === attempts[name]) {
        lose.delete(name);
        // What a socket timeout after the request was sent looks like to the SDK: retryable.
        throw Object.assign(new Error('the response was lost after DynamoDB applied the request'), {
          name: 'TimeoutError',
          $metadata: {},
        });
      }
      return output;
    },
    // Inside the retry loop (finalizeRequest), around the request actually sent.
    { step: 'deserialize', name: 'loseResponseOnce' },
  );
}, 60_000);

afterAll(() => client?.destroy());

let t = T0;
const clock = { now: () => t };
let store: DynamoDbStore;
let tableName = '';

beforeEach(async () => {
  t = T0;
  tableName = uniqueTableName('lost');
  await createDurableTable(client, tableName);
  store = new DynamoDbStore({ client, tableName, clock });
  lose.clear();
  attempts = {};
});

/**
 * Runs `write` with the response to its `nth` request of `command` lost; returns its result and
 * how many requests of `command` reached DynamoDB.
 */
async function losingResponse<T>(
  command: string,
  write: () => Promise<T>,
  nth = 1,
): Promise<{ result: T; sent: number }> {
  attempts = {};
  lose.set(command, nth);
  const result = await write();
  expect(lose.has(command), `${command} was sent`).toBe(false);
  return { result, sent: attempts[command] ?? 0 };
}

describe('DynamoDbStore: a write whose response was lost, retried by the SDK', () => {
  it('acquireLease: the retry is granted the lease it took, and the run stays leased once', async () => {
    await store.createRun(runRecord('r1'), executionOp());
    const { result: grant, sent } = await losingResponse('UpdateItemCommand', () =>
      store.acquireLease('r1', T0, T0 + 60_000, 'token-a'),
    );
    expect(sent).toBe(2);
    expect(grant).toBeDefined();
    expect(grant?.previousLost).toBe(false);
    expect(grant?.run).toMatchObject({ fence: 1, invocations: 1, lostInvocations: 0, leaseToken: 'token-a' });
    expect(await store.getRun('r1')).toEqual(grant?.run);
    // The grant is real: its fence commits, and the lease is held against anyone else.
    await store.commit('r1', grant?.run.fence ?? 0, { operations: [stepOp('1', '"a"')] });
    expect(await store.acquireLease('r1', T0 + 1, T0 + 60_001, 'token-b')).toBeUndefined();
  });

  it('acquireLease over a lapsed lease: previousLost, and the lost invocation counted once', async () => {
    await store.createRun(runRecord('r1'), executionOp());
    await store.acquireLease('r1', T0, T0 + 60_000, 'token-a');
    t = T0 + 60_000;
    const { result: grant } = await losingResponse('UpdateItemCommand', () =>
      store.acquireLease('r1', t, t + 60_000, 'token-b'),
    );
    expect(grant?.previousLost).toBe(true);
    expect(grant?.run).toMatchObject({ fence: 2, invocations: 2, lostInvocations: 1, leaseToken: 'token-b' });
    expect(await store.getRun('r1')).toMatchObject({ fence: 2, invocations: 2, lostInvocations: 1 });
  });

  it('the count of a lost invocation, retried after its response was lost, counts once', async () => {
    await store.createRun(runRecord('r1'), executionOp());
    await store.acquireLease('r1', T0, T0 + 60_000, 'token-a');
    t = T0 + 60_000;
    // The lease's update answers; the count's (the second UpdateItem) loses its response.
    const { result: grant, sent } = await losingResponse(
      'UpdateItemCommand',
      () => store.acquireLease('r1', t, t + 60_000, 'token-b'),
      2,
    );
    expect(sent).toBe(3);
    expect(grant?.run.lostInvocations).toBe(1);
    expect(await store.getRun('r1')).toMatchObject({ fence: 2, lostInvocations: 1 });
  });

  it('claimIdempotencyKey: the retry finds its own claim and is claimed, not in progress', async () => {
    const record = {
      key: 'POST /runs#k1',
      requestHash: 'h',
      state: 'IN_PROGRESS' as const,
      claimToken: 'claim-1',
      createdAt: T0,
      expiresAt: T0 + 86_400_000,
    };
    const { result, sent } = await losingResponse('PutItemCommand', () => store.claimIdempotencyKey(record));
    expect(sent).toBe(2);
    expect(result).toEqual({ claimed: true });
    const other = await store.claimIdempotencyKey({ ...record, claimToken: 'claim-2' });
    expect(other).toEqual({ claimed: false, existing: record });
  });

  it('writeOutsideEvent: the retried swap of the entry finds its own text and is true, the event counted once', async () => {
    await store.createRun(runRecord('r1'), executionOp());
    const fence = (await store.acquireLease('r1', T0, T0 + 60_000, 'token-a'))?.run.fence ?? 0;
    await store.commit('r1', fence, { operations: [callbackOp('1')] });
    const done: Operation = { ...callbackOp('1'), Status: 'SUCCEEDED', CallbackDetails: { CallbackId: 'cb-1' } };
    const { result, sent } = await losingResponse('UpdateItemCommand', () =>
      store.writeOutsideEvent('r1', done, { Status: 'STARTED' }, true),
    );
    expect(sent).toBe(2);
    expect(result).toBe(true);
    expect((await store.getRun('r1'))?.eventSeq).toBe(1);
    expect(await store.getOperation('r1', '1')).toEqual(done);
  });

  it('commit and reviseRun: a retried commit succeeds, a retried revision returns the revised run', async () => {
    await store.createRun(runRecord('r1'), executionOp());
    const fence = (await store.acquireLease('r1', T0, T0 + 60_000, 'token-a'))?.run.fence ?? 0;
    const committed = await losingResponse('UpdateItemCommand', () =>
      store.commit('r1', fence, { operations: [], run: { nextWakeAt: T0 + 5 } }),
    );
    expect(committed.sent).toBe(2);
    expect((await store.getRun('r1'))?.nextWakeAt).toBe(T0 + 5);
    const { result: revised, sent } = await losingResponse('UpdateItemCommand', () =>
      store.reviseRun('r1', 'RUNNING', { status: 'CANCELLED', endedAt: T0, nextWakeAt: null }, []),
    );
    expect(sent).toBe(2);
    expect(revised).toMatchObject({ status: 'CANCELLED', fence: fence + 1 });
    expect(await store.getRun('r1')).toEqual(revised);
  });

  it('commit of an inline operation: the retry writes it once; the last one that fills the map moves to its item', async () => {
    const small = new DynamoDbStore({ client, tableName, clock, maxItemBytes: 8_192 });
    await small.createRun(runRecord('r1'), executionOp());
    const fence = (await small.acquireLease('r1', T0, T0 + 60_000, 'token-a'))?.run.fence ?? 0;
    const start = (id: string): Operation => ({
      Id: id,
      Type: 'STEP',
      Status: 'STARTED',
      StartTimestamp: T0,
      StepDetails: { Attempt: 1 },
    });
    // With 8 KB items the map holds 2 entries (the EXECUTION and one more).
    const first = await losingResponse('UpdateItemCommand', () =>
      small.commit('r1', fence, { operations: [start('1')] }),
    );
    // The retry finds the map full with its own entry, learns it from the refusal and writes it
    // in place: three requests, one entry.
    expect(first.sent).toBeGreaterThanOrEqual(2);
    expect(await small.loadOperations('r1')).toEqual([executionOp(), start('1')]);
    // A store without hints puts the next one inline; its retry after a lost response finds the
    // map full (its own entry in it), is refused, and writes the operation as an item, removing
    // its entry: one START either way.
    const fresh = new DynamoDbStore({ client, tableName, clock, maxItemBytes: 8_192 });
    await small.commit('r1', fence, { operations: [{ ...start('1'), Status: 'SUCCEEDED', EndTimestamp: T0 }] });
    attempts = {};
    const last = await losingResponse('UpdateItemCommand', () =>
      fresh.commit('r1', fence, { operations: [start('2')] }),
    );
    expect(last.sent).toBeGreaterThanOrEqual(1);
    expect(await fresh.loadOperations('r1')).toEqual([
      executionOp(),
      { ...start('1'), Status: 'SUCCEEDED', EndTimestamp: T0 },
      start('2'),
    ]);
    expect(await fresh.getOperation('r1', '2')).toEqual(start('2'));
  });

  it('createRun with its first lease: the retried put finds its own lease token and creates the run once', async () => {
    const leasedRun = runRecord('r2', {
      fence: 1,
      invocations: 1,
      leaseExpiresAt: T0 + 60_000,
      leaseToken: 'token-start',
    });
    // The first PutItem registers the function; the second is the run's.
    const { result, sent } = await losingResponse('PutItemCommand', () => store.createRun(leasedRun, executionOp()), 2);
    expect(sent).toBe(3);
    expect(result.created).toBe(true);
    expect(await store.getRun('r2')).toEqual(result.run);
    expect(result.run).toMatchObject({ fence: 1, leaseToken: 'token-start' });
  });

  it('createRun: the retried put finds its own create token and creates the run once', async () => {
    const { result, sent } = await losingResponse(
      'PutItemCommand',
      () => store.createRun(runRecord('r1'), executionOp()),
      2,
    );
    expect(sent).toBe(3);
    expect(result.created).toBe(true);
    expect(await store.getRun('r1')).toEqual(result.run);
  });
});
