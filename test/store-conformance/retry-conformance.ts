/**
 * Store conformance, continued: writes sent again after their response was lost. A store whose
 * client retries writes (DynamoDB's SDK does) must take the retry for its own earlier success;
 * these tests make the same call twice, as the retry does, and hold every store to the answer.
 * (The lease's own-token recognition is DynamoDB's alone: a store that never retries refuses a
 * second acquire; its test with real lost responses is `test/aws/dynamodb/lost-responses.test.ts`.)
 * Called by `describeStoreConformance`.
 */
import type { IdempotencyRecord, Store } from '@durable-lambda/engine';
import type { Operation } from '@durable-lambda/protocol';
import { describe, expect } from 'vitest';
import {
  type ConformanceClock,
  type ConformanceOptions,
  callbackOp,
  executionOp,
  leaseToken,
  runRecord,
  T0,
} from './fixtures';
import { conformanceTest, useStore } from './support';

const record = (overrides: Partial<IdempotencyRecord> = {}): IdempotencyRecord => ({
  key: 'POST /runs#k1',
  requestHash: 'hash',
  state: 'IN_PROGRESS',
  createdAt: T0,
  expiresAt: T0 + 60_000,
  ...overrides,
});

export function describeRetryConformance(
  name: string,
  setup: () => Promise<{ store: Store; clock: ConformanceClock }>,
  options: ConformanceOptions = {},
): void {
  const test = conformanceTest(options);

  describe(`${name}: store conformance (retried writes)`, () => {
    const s = useStore(setup);

    test('a lease stores its token; another token is refused while the lease is held', async () => {
      await s.store.createRun(runRecord('r1'), executionOp());
      const token = leaseToken();
      const grant = await s.store.acquireLease('r1', T0, T0 + 60_000, token);
      expect(grant?.run.leaseToken).toBe(token);
      expect((await s.store.getRun('r1'))?.leaseToken).toBe(token);
      expect(await s.store.acquireLease('r1', T0 + 1, T0 + 60_001, leaseToken())).toBeUndefined();
      expect(await s.store.getRun('r1')).toMatchObject({ fence: 1, invocations: 1, leaseToken: token });
    });

    test('a claim that finds its own claimToken is claimed; another token gets the record', async () => {
      const mine = record({ claimToken: 'claim-1' });
      expect(await s.store.claimIdempotencyKey(mine)).toEqual({ claimed: true });
      expect(await s.store.claimIdempotencyKey(mine)).toEqual({ claimed: true });
      const other = await s.store.claimIdempotencyKey(record({ claimToken: 'claim-2', createdAt: T0 + 1 }));
      expect(other).toEqual({ claimed: false, existing: mine });
      const untokened = await s.store.claimIdempotencyKey(record());
      expect(untokened).toEqual({ claimed: false, existing: mine });
    });

    test('a claim is completed (and kept longer) or released only by its own token', async () => {
      const mine = record({ claimToken: 'claim-1' });
      expect(await s.store.claimIdempotencyKey(mine)).toEqual({ claimed: true });
      const response = { status: 201, body: '{"ok":true}' };
      // Another claim's token changes nothing.
      await s.store.completeIdempotencyKey(mine.key, response, { claimToken: 'claim-2', expiresAt: T0 + 86_400_000 });
      await s.store.releaseIdempotencyKey(mine.key, 'claim-2');
      expect(await s.store.claimIdempotencyKey(record({ claimToken: 'claim-3' }))).toEqual({
        claimed: false,
        existing: mine,
      });
      await s.store.completeIdempotencyKey(mine.key, response, { claimToken: 'claim-1', expiresAt: T0 + 86_400_000 });
      const completed = await s.store.claimIdempotencyKey(record({ claimToken: 'claim-4' }));
      expect(completed).toEqual({
        claimed: false,
        existing: { ...mine, state: 'COMPLETED', response, expiresAt: T0 + 86_400_000 },
      });
      // Past the claim's first lifetime, the completed record is still there.
      s.clock.set(T0 + 120_000);
      expect((await s.store.claimIdempotencyKey(record({ claimToken: 'claim-5' }))).claimed).toBe(false);
      await s.store.releaseIdempotencyKey(mine.key, 'claim-1');
      expect(await s.store.claimIdempotencyKey(record({ claimToken: 'claim-6', expiresAt: T0 + 999_999 }))).toEqual({
        claimed: true,
      });
    });

    test('a claim without a token never matches a record without one', async () => {
      expect(await s.store.claimIdempotencyKey(record())).toEqual({ claimed: true });
      expect(await s.store.claimIdempotencyKey(record())).toEqual({ claimed: false, existing: record() });
    });

    test('an outside write that finds the operation already as it would write it is true, once', async () => {
      const fence = await s.leased('r1');
      await s.store.commit('r1', fence, { operations: [callbackOp('1')] });
      const completed: Operation = {
        ...callbackOp('1'),
        Status: 'SUCCEEDED',
        EndTimestamp: T0 + 5,
        CallbackDetails: { CallbackId: 'cb-1', Result: '"ok"' },
      };
      expect(await s.store.writeOutsideEvent('r1', completed, { Status: 'STARTED' }, true)).toBe(true);
      expect(await s.store.writeOutsideEvent('r1', completed, { Status: 'STARTED' }, true)).toBe(true);
      expect((await s.store.getRun('r1'))?.eventSeq).toBe(1);
      const different = { ...completed, CallbackDetails: { CallbackId: 'cb-1', Result: '"other"' } };
      expect(await s.store.writeOutsideEvent('r1', different, { Status: 'STARTED' }, true)).toBe(false);
      expect(await s.store.getOperation('r1', '1')).toEqual(completed);
      expect((await s.store.getRun('r1'))?.eventSeq).toBe(1);
    });
  });
}
