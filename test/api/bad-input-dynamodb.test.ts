/**
 * Input no store can hold answers 400 naming the field on DynamoDB, never 500: each of these
 * reached DynamoDB and failed its validation (a number past its range in a key condition, a sort
 * key past 1,024 bytes, a partition key past 2,048 bytes). The fuzz (`fuzz-dynamodb.test.ts`)
 * looks for the rest of the class.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDbLocalEndpoint, localDocumentClient } from '../support/dynamodb-local';
import { DynamoDbApiWorld } from './dynamodb-api-world';

let client: DynamoDBDocumentClient;
let world: DynamoDbApiWorld;
let runId: string;

beforeAll(async () => {
  client = localDocumentClient(await dynamoDbLocalEndpoint());
  world = await DynamoDbApiWorld.create(client);
  runId = await world.start('fn', { order: 1 });
  await world.drive(
    runId,
    withDurableExecution(async (_e, ctx) => ctx.step('one', async () => 1)),
  );
}, 60_000);

afterAll(() => client?.destroy());

const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

/** The answer is `400 invalid_argument` whose message starts with the field, and nothing was reported. */
function expectBadField(answer: { status: number; json: any }, field: string): void {
  expect({ status: answer.status, code: answer.json?.error?.code }).toEqual({ status: 400, code: 'invalid_argument' });
  expect(String(answer.json.error.message).startsWith(`${field}:`)).toBe(true);
  expect(world.errors).toEqual([]);
}

describe('bad input on DynamoDB: 400 naming the field', () => {
  it('a run-list cursor holding a number DynamoDB cannot hold (1e300), or a run id no key can hold', async () => {
    for (const cursor of [
      [1e300, 'r1'],
      [-1e300, 'r1'],
      [1.5, 'r1'],
      [Date.now(), 'r'.repeat(3_000)],
    ]) {
      expectBadField(await world.call('GET', '/v1/runs', { query: { cursor: cursorOf(cursor) } }), 'cursor');
      expectBadField(
        await world.call('GET', '/v1/runs', { query: { function: 'fn', cursor: cursorOf(cursor) } }),
        'cursor',
      );
    }
  });

  it('an operation id of 1,100 characters', async () => {
    const answer = await world.call('GET', `/v1/runs/${runId}/operations/${'1'.repeat(1_100)}`);
    expectBadField(answer, 'operationId');
    // Within the limit but past DynamoDB's key size once UTF-8 encoded: an operation no run holds.
    const wide = encodeURIComponent('é'.repeat(500));
    expect((await world.call('GET', `/v1/runs/${runId}/operations/${wide}`)).json.error.code).toBe(
      'operation_not_found',
    );
    expect(world.errors).toEqual([]);
  });

  it('a POST with an Idempotency-Key on a path over 2 KB', async () => {
    const answer = await world.call('POST', `/v1/runs/${'r'.repeat(2_100)}/cancel`, {
      headers: { 'idempotency-key': 'k1' },
    });
    expectBadField(answer, 'runId');
    // Under the id limit, the path percent-encoded past 2 KB: the key still works.
    const path = `/v1/runs/${encodeURIComponent('é'.repeat(250))}/cancel`;
    const first = await world.call('POST', path, { headers: { 'idempotency-key': 'k2' } });
    expect(first.status).toBe(404);
    const again = await world.call('POST', path, { headers: { 'idempotency-key': 'k2' } });
    expect(again.status).toBe(404);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(world.errors).toEqual([]);
  });

  it('a search or a function name past what a key can hold', async () => {
    expectBadField(await world.call('GET', '/v1/runs', { query: { function: 'f'.repeat(3_000) } }), 'function');
    expectBadField(await world.call('GET', '/v1/runs', { query: { search: 's'.repeat(3_000) } }), 'search');
    const wide = await world.call('GET', '/v1/runs', { query: { search: '😀'.repeat(120) } });
    expect(wide.status).toBe(200);
    expect(world.errors).toEqual([]);
  });

  it("Invoke with an execution name used for another input: Lambda's 409, not 500 (found by the fuzz)", async () => {
    const invoke = (payload: string) =>
      world.call('POST', '/2015-03-31/functions/fn/invocations', {
        body: payload,
        headers: { 'x-amz-durable-execution-name': 'order-7' },
      });
    expect((await invoke('{"amount":100}')).status).toBe(200);
    const again = await invoke('{"amount":999}');
    expect({ status: again.status, type: again.headers['x-amzn-errortype'] }).toEqual({
      status: 409,
      type: 'DurableExecutionAlreadyStartedException',
    });
    expect(world.errors).toEqual([]);
  });
});
