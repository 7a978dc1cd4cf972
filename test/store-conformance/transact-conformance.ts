/**
 * Store conformance for transactional steps (issue 27): a commit's `transactWrites` land with its
 * operations and run patch, or nothing does. A failed user condition rejects with the protocol's
 * `TransactConditionFailedError` naming the write, a stale fence with `FencedError`, two writes of
 * one item with `TransactRejectedError`; the condition and update expressions the local stores
 * emulate mean what they mean on DynamoDB (the DynamoDB store runs the same cases on DynamoDB Local).
 */
import type { CommitWrite, Store, StoreTransactWrite } from '@durable-lambda/engine';
import {
  FencedError,
  TransactConditionFailedError,
  TransactRejectedError,
  type TransactWrite,
} from '@durable-lambda/protocol';
import { describe, expect } from 'vitest';
import { type ConformanceClock, executionOp, leaseToken, runRecord, stepOp, T0 } from './fixtures';
import { conformanceTest, useStore } from './support';

/** The user's tables as a store under test holds them. */
export interface UserTablesUnderTest {
  /** Creates (or declares) a table with this key schema. */
  define(tableName: string, schema: { partitionKey: string; sortKey?: string }): Promise<void>;
  /** The item at `key`, or undefined. */
  get(tableName: string, key: Record<string, unknown>): Promise<Record<string, unknown> | undefined>;
}

type Setup = () => Promise<{ store: Store; clock: ConformanceClock; tables: UserTablesUnderTest }>;

const writesOf = (operationId: string, writes: TransactWrite[]): StoreTransactWrite[] =>
  writes.map((write, index) => ({ operationId, index, write }));

export function describeTransactConformance(name: string, setup: Setup, options: { emulated?: boolean } = {}): void {
  const test = conformanceTest({});

  describe(`${name}: store conformance (transactional writes)`, () => {
    let tables: UserTablesUnderTest;
    let names: { accounts: string; ledger: string };
    const s = useStore(async () => {
      const made = await setup();
      tables = made.tables;
      const suffix = Math.random().toString(36).slice(2, 8);
      names = { accounts: `Accounts-${suffix}`, ledger: `Ledger-${suffix}` };
      await tables.define(names.accounts, { partitionKey: 'id' });
      await tables.define(names.ledger, { partitionKey: 'pk', sortKey: 'sk' });
      return made;
    });

    async function leased(runId: string): Promise<number> {
      await s.store.createRun(runRecord(runId), executionOp());
      const grant = await s.store.acquireLease(runId, T0, T0 + 60_000, leaseToken());
      return grant?.run.fence ?? 0;
    }

    const commit = (
      runId: string,
      fence: number,
      opId: string,
      writes: TransactWrite[],
      extra: Partial<CommitWrite> = {},
    ) =>
      s.store.commit(runId, fence, {
        operations: [stepOp(opId, '"ok"')],
        transactWrites: writesOf(opId, writes),
        ...extra,
      });

    test('applies puts, updates, deletes and checks with the step outcome, in one write', async () => {
      const fence = await leased('t1');
      const { accounts, ledger } = names;
      await commit('t1', fence, '1', [
        { Put: { TableName: accounts, Item: { id: 'a', balance: 25, tags: new Set(['x']), note: 'hi' } } },
        { Put: { TableName: accounts, Item: { id: 'gone', balance: 1 } } },
        { Put: { TableName: accounts, Item: { id: 'c', note: 'hi' } } },
      ]);
      await commit('t1', fence, '2', [
        {
          Update: {
            TableName: accounts,
            Key: { id: 'a' },
            UpdateExpression: 'SET #b = #b - :n, #seen = if_not_exists(#seen, :zero) REMOVE #note ADD #tags :more',
            ConditionExpression:
              '#b >= :n AND begins_with(#note, :h) AND NOT attribute_exists(#missing) AND #other <> :n',
            ExpressionAttributeNames: {
              '#b': 'balance',
              '#seen': 'seen',
              '#note': 'note',
              '#tags': 'tags',
              '#missing': 'missing',
              '#other': 'other',
            },
            ExpressionAttributeValues: { ':n': 10, ':zero': 0, ':h': 'h', ':more': new Set(['y']) },
          },
        },
        {
          Update: {
            TableName: accounts,
            Key: { id: 'b' },
            UpdateExpression: 'ADD #b :n',
            ExpressionAttributeNames: { '#b': 'balance' },
            ExpressionAttributeValues: { ':n': 10 },
          },
        },
        {
          Delete: {
            TableName: accounts,
            Key: { id: 'gone' },
            ConditionExpression: '#b BETWEEN :lo AND :hi',
            ExpressionAttributeNames: { '#b': 'balance' },
            ExpressionAttributeValues: { ':lo': 0, ':hi': 5 },
          },
        },
        {
          ConditionCheck: {
            TableName: accounts,
            Key: { id: 'c' },
            ConditionExpression: '#note IN (:h, :hi)',
            ExpressionAttributeNames: { '#note': 'note' },
            ExpressionAttributeValues: { ':h': 'hi', ':hi': 'ho' },
          },
        },
        {
          Put: {
            TableName: ledger,
            Item: { pk: 'a', sk: 't1:2', amount: -10 },
            ConditionExpression: 'attribute_not_exists(#pk)',
            ExpressionAttributeNames: { '#pk': 'pk' },
          },
        },
      ]);
      expect(await tables.get(accounts, { id: 'a' })).toEqual({
        id: 'a',
        balance: 15,
        seen: 0,
        tags: new Set(['x', 'y']),
      });
      expect(await tables.get(accounts, { id: 'b' })).toEqual({ id: 'b', balance: 10 });
      expect(await tables.get(accounts, { id: 'gone' })).toBeUndefined();
      expect(await tables.get(ledger, { pk: 'a', sk: 't1:2' })).toEqual({ pk: 'a', sk: 't1:2', amount: -10 });
      expect((await s.store.getOperation('t1', '2'))?.Status).toBe('SUCCEEDED');
    });

    test('a failed user condition writes nothing (no write, no operation) and names the write', async () => {
      const fence = await leased('t2');
      const { accounts } = names;
      await commit('t2', fence, '1', [{ Put: { TableName: accounts, Item: { id: 'a', balance: 5 } } }]);
      const refused = commit(
        't2',
        fence,
        '2',
        [
          {
            Update: {
              TableName: accounts,
              Key: { id: 'b' },
              UpdateExpression: 'ADD #b :n',
              ExpressionAttributeNames: { '#b': 'balance' },
              ExpressionAttributeValues: { ':n': 10 },
            },
          },
          { Put: { TableName: accounts, Item: { id: 'c', balance: 1 } } },
          {
            Update: {
              TableName: accounts,
              Key: { id: 'a' },
              UpdateExpression: 'SET #b = #b - :n',
              ConditionExpression: '#b >= :n',
              ExpressionAttributeNames: { '#b': 'balance' },
              ExpressionAttributeValues: { ':n': 10 },
            },
          },
        ],
        { run: { status: 'SUCCEEDED', endedAt: T0 + 1, leaseExpiresAt: null, dueAt: null } },
      );
      await expect(refused).rejects.toBeInstanceOf(TransactConditionFailedError);
      await expect(refused).rejects.toMatchObject({
        code: 'transact_condition_failed',
        operationId: '2',
        writeIndex: 2,
        write: { kind: 'Update', tableName: accounts },
      });
      expect(await tables.get(accounts, { id: 'a' })).toEqual({ id: 'a', balance: 5 });
      expect(await tables.get(accounts, { id: 'b' })).toBeUndefined();
      expect(await tables.get(accounts, { id: 'c' })).toBeUndefined();
      expect(await s.store.getOperation('t2', '2')).toBeUndefined();
      expect((await s.store.getRun('t2'))?.status).toBe('RUNNING');
      // The run is still the invocation's: its next commit goes through.
      await commit('t2', fence, '3', [{ Put: { TableName: accounts, Item: { id: 'c', balance: 1 } } }]);
      expect(await tables.get(accounts, { id: 'c' })).toEqual({ id: 'c', balance: 1 });
    });

    test('a commit at a stale fence writes none of its user writes', async () => {
      const fence = await leased('t3');
      await s.store.acquireLease('t3', T0 + 120_000, T0 + 180_000, leaseToken());
      const stale = commit('t3', fence, '1', [{ Put: { TableName: names.accounts, Item: { id: 'z', balance: 1 } } }]);
      await expect(stale).rejects.toBeInstanceOf(FencedError);
      expect(await tables.get(names.accounts, { id: 'z' })).toBeUndefined();
    });

    test('comparisons by type: a number never equals a string, a missing attribute is only unequal', async () => {
      const fence = await leased('t4');
      const { accounts } = names;
      await commit('t4', fence, '1', [{ Put: { TableName: accounts, Item: { id: 'a', n: 1, s: 'b' } } }]);
      const check = (expression: string, values: Record<string, unknown>, id: string) => {
        const names = Object.fromEntries(
          ['#n', '#s', '#m']
            .filter((n) => expression.includes(n))
            .map((n) => [n, ({ '#n': 'n', '#s': 's', '#m': 'missing' } as Record<string, string>)[n] as string]),
        );
        return commit('t4', fence, id, [
          {
            ConditionCheck: {
              TableName: accounts,
              Key: { id: 'a' },
              ConditionExpression: expression,
              ExpressionAttributeNames: names,
              ExpressionAttributeValues: values,
            },
          },
        ]);
      };
      await expect(check('#n = :one', { ':one': '1' }, '2')).rejects.toBeInstanceOf(TransactConditionFailedError);
      await expect(check('#s < :v', { ':v': 'a' }, '3')).rejects.toBeInstanceOf(TransactConditionFailedError);
      await expect(check('#m > :v', { ':v': 0 }, '4')).rejects.toBeInstanceOf(TransactConditionFailedError);
      await check(
        '#m <> :v AND #s > :a AND (#n < :two OR #n = :one)',
        { ':v': 0, ':a': 'a', ':two': 2, ':one': 'x' },
        '5',
      );
      expect((await s.store.getOperation('t4', '5'))?.Status).toBe('SUCCEEDED');
    });

    test('two writes of one item in one transaction are refused, as DynamoDB refuses them', async () => {
      const fence = await leased('t5');
      const { accounts } = names;
      const twice = commit('t5', fence, '1', [
        { Put: { TableName: accounts, Item: { id: 'a', balance: 1 } } },
        {
          Update: {
            TableName: accounts,
            Key: { id: 'a' },
            UpdateExpression: 'ADD #b :n',
            ExpressionAttributeNames: { '#b': 'balance' },
            ExpressionAttributeValues: { ':n': 1 },
          },
        },
      ]);
      await expect(twice).rejects.toBeInstanceOf(TransactRejectedError);
      await expect(twice).rejects.toMatchObject({ code: 'transact_rejected', reason: 'invalid_write' });
      expect(await tables.get(accounts, { id: 'a' })).toBeUndefined();
    });

    test("keeps a run's unsent outbox events through commits and revisions, and finds the run due while any wait", async () => {
      const fence = await leased('t7');
      const entry = {
        id: 't7:1:0',
        at: T0,
        event: { kind: 'sqs' as const, queueUrl: 'https://q', body: 'b', groupId: 'g' },
      };
      await s.store.commit('t7', fence, {
        operations: [stepOp('1', '"ok"')],
        run: { outbox: [entry], status: 'SUCCEEDED', endedAt: T0, leaseExpiresAt: null, dueAt: T0 },
      });
      expect((await s.store.getRun('t7'))?.outbox).toEqual([entry]);
      expect((await s.store.findDueRuns(T0 + 1, 10)).map((d) => d.runId)).toContain('t7');
      const revised = await s.store.reviseRun('t7', 'SUCCEEDED', { outbox: null }, [], { fence });
      expect(revised?.outbox).toBeUndefined();
      expect((await s.store.getRun('t7'))?.outbox).toBeUndefined();
      expect((await s.store.findDueRuns(T0 + 1, 10)).map((d) => d.runId)).not.toContain('t7');
    });

    if (options.emulated) {
      test('what the local store cannot emulate is refused with a stable reason, not guessed', async () => {
        const fence = await leased('t6');
        const { accounts } = names;
        const nested = commit('t6', fence, '1', [
          {
            Update: {
              TableName: accounts,
              Key: { id: 'a' },
              UpdateExpression: 'SET #a.#c = :c',
              ExpressionAttributeNames: { '#a': 'address', '#c': 'city' },
              ExpressionAttributeValues: { ':c': 'x' },
            },
          },
        ]);
        await expect(nested).rejects.toMatchObject({
          code: 'transact_rejected',
          reason: 'unsupported_expression',
          field: 'transactWrites[0].Update.UpdateExpression',
        });
        const sized = commit('t6', fence, '2', [
          {
            ConditionCheck: {
              TableName: accounts,
              Key: { id: 'a' },
              ConditionExpression: 'size(#t) > :n',
              ExpressionAttributeNames: { '#t': 'tags' },
              ExpressionAttributeValues: { ':n': 1 },
            },
          },
        ]);
        await expect(sized).rejects.toMatchObject({
          reason: 'unsupported_expression',
          field: 'transactWrites[0].ConditionCheck.ConditionExpression',
        });
        const bare = commit('t6', fence, '4', [
          {
            ConditionCheck: { TableName: accounts, Key: { id: 'a' }, ConditionExpression: 'attribute_exists(balance)' },
          },
        ]);
        // DynamoDB refuses reserved words (`status`, `name`, …) as bare names; the local store names none bare.
        await expect(bare).rejects.toMatchObject({
          reason: 'unsupported_expression',
          field: 'transactWrites[0].ConditionCheck.ConditionExpression',
        });
        const unknown = commit('t6', fence, '3', [{ Put: { TableName: 'Nope', Item: { id: 'a' } } }]);
        await expect(unknown).rejects.toMatchObject({
          reason: 'unknown_table',
          field: 'transactWrites[0].Put.TableName',
        });
        expect(await s.store.getOperation('t6', '1')).toBeUndefined();
      });
    }
  });
}
