/**
 * An invocation opened on DynamoDB replays from the run item its lease's conditional update
 * returned: no second read of the run item after the lease (one GetItem fewer, and a round trip,
 * on every wake-up), and the same operations the store's replay load gives.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDurableTable, DynamoDbStore } from '@durable-lambda/aws';
import { Engine } from '@durable-lambda/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../../support/dynamodb-local';

let client: DynamoDBDocumentClient;
let sent: string[] = [];

beforeAll(async () => {
  client = localDocumentClient(await dynamoDbLocalEndpoint());
  client.middlewareStack.add(
    (next, context) => async (args) => {
      sent.push(String(context.commandName));
      return next(args);
    },
    { step: 'initialize', name: 'countCommands' },
  );
}, 60_000);

afterAll(() => client?.destroy());

describe('DynamoDbStore: the replay after a lease', () => {
  it('reads nothing after the lease: the operations come from the item its update returned', async () => {
    let t = Date.UTC(2026, 0, 1);
    const clock = { now: () => t };
    const tableName = uniqueTableName('lease-replay');
    await createDurableTable(client, tableName);
    const store = new DynamoDbStore({ client, tableName, clock });
    const engine = new Engine({ store, clock, waker: { wakeAt: async () => {} } });
    const { run } = await engine.startRun({ functionName: 'fn', input: '{"order":1}' });

    const first = await engine.openRun(run.runId);
    if (!first) throw new Error('not opened');
    const step = { Id: '1', Type: 'STEP', SubType: 'Step', Name: 'charge' } as const;
    await first.invocation.checkpoint([{ ...step, Action: 'START' }]);
    await first.invocation.checkpoint([
      { ...step, Action: 'SUCCEED', Payload: '"ch-1"' },
      { Id: '2', Type: 'WAIT', SubType: 'Wait', Name: 'pause', Action: 'START', WaitOptions: { WaitSeconds: 60 } },
    ]);
    await first.close({ Status: 'PENDING' });

    t += 60_000;
    sent = [];
    const second = await engine.openRun(run.runId);
    if (!second) throw new Error('not opened');
    // The engine's look at the run, then the lease: nothing read after it.
    expect(sent).toEqual(['GetItemCommand', 'UpdateItemCommand']);
    const stored = await store.loadReplayOperations(run.runId);
    expect(second.invocation.operations.map((op) => [op.Id, op.Type])).toEqual(stored.map((op) => [op.Id, op.Type]));
    expect(second.invocation.operations.find((op) => op.Id === '1')?.StepDetails?.Result).toBe('"ch-1"');
    expect(second.invocation.input).toBe('{"order":1}');
  });
});
