/**
 * Store conformance, continued: outside events (a callback completed or heartbeated, a child run
 * ended), written without the lease while the operation is as expected. Called by
 * `describeStoreConformance`.
 */
import type { Store } from '@durable-lambda/engine';
import type { Operation } from '@durable-lambda/protocol';
import { describe, expect } from 'vitest';
import { type ConformanceClock, type ConformanceOptions, callbackOp, stepOp, T0 } from './fixtures';
import { conformanceTest, useStore } from './support';

export function describeOutsideEventConformance(
  name: string,
  setup: () => Promise<{ store: Store; clock: ConformanceClock }>,
  options: ConformanceOptions = {},
): void {
  const test = conformanceTest(options);

  describe(`${name}: store conformance (outside events)`, () => {
    const s = useStore(setup);

    async function withCallback(details: Partial<NonNullable<Operation['CallbackDetails']>> = {}) {
      const fence = await s.leased('r1');
      await s.store.commit('r1', fence, { operations: [callbackOp('1', details)] });
      return fence;
    }
    const done = (details: Partial<NonNullable<Operation['CallbackDetails']>> = {}): Operation => ({
      ...callbackOp('1', details),
      Status: 'SUCCEEDED',
      EndTimestamp: T0 + 5,
      CallbackDetails: { CallbackId: 'cb-1', Result: '"ok"', ...details },
    });

    test('applies while the operation is as expected; with event it grows eventSeq', async () => {
      await withCallback();
      s.clock.set(T0 + 5);
      expect(await s.store.writeOutsideEvent('r1', done(), { Status: 'STARTED' }, true)).toBe(true);
      expect(await s.store.getOperation('r1', '1')).toEqual(done());
      expect(await s.store.getRun('r1')).toMatchObject({ eventSeq: 1, updatedAt: T0 + 5 });
    });

    test('eventSeq grows only with event', async () => {
      await withCallback({ HeartbeatTimeoutSeconds: 10, HeartbeatDeadline: T0 + 10_000 });
      const beat = callbackOp('1', { HeartbeatTimeoutSeconds: 10, HeartbeatDeadline: T0 + 20_000 });
      const expected = { Status: 'STARTED' as const, deadlines: { HeartbeatDeadline: T0 + 10_000 } };
      expect(await s.store.writeOutsideEvent('r1', beat, expected, false)).toBe(true);
      expect((await s.store.getRun('r1'))?.eventSeq).toBe(0);
      expect(await s.store.getOperation('r1', '1')).toEqual(beat);
    });

    test('refuses (false, nothing written) when the status differs', async () => {
      await withCallback();
      expect(await s.store.writeOutsideEvent('r1', done(), { Status: 'STARTED' }, true)).toBe(true);
      const again = { ...done(), CallbackDetails: { CallbackId: 'cb-1', Result: '"second"' } };
      expect(await s.store.writeOutsideEvent('r1', again, { Status: 'STARTED' }, true)).toBe(false);
      expect(await s.store.getOperation('r1', '1')).toEqual(done());
      expect((await s.store.getRun('r1'))?.eventSeq).toBe(1);
    });

    test('deadlines must be equal when given, absent matching absent only', async () => {
      await withCallback({ TimeoutTimestamp: T0 + 1_000 });
      const write = (deadlines: { TimeoutTimestamp?: number; HeartbeatDeadline?: number }) =>
        s.store.writeOutsideEvent('r1', done({ TimeoutTimestamp: T0 + 1_000 }), { Status: 'STARTED', deadlines }, true);
      expect(await write({ TimeoutTimestamp: T0 + 999 })).toBe(false);
      expect(await write({})).toBe(false);
      expect(await write({ TimeoutTimestamp: T0 + 1_000, HeartbeatDeadline: T0 + 5 })).toBe(false);
      expect((await s.store.getOperation('r1', '1'))?.Status).toBe('STARTED');
      expect((await s.store.getRun('r1'))?.eventSeq).toBe(0);
      expect(await write({ TimeoutTimestamp: T0 + 1_000 })).toBe(true);
      expect((await s.store.getOperation('r1', '1'))?.Status).toBe('SUCCEEDED');
    });

    test('deadlines given as absent match an operation without them', async () => {
      await withCallback();
      expect(await s.store.writeOutsideEvent('r1', done(), { Status: 'STARTED', deadlines: {} }, false)).toBe(true);
    });

    test('an unknown operation or run is false', async () => {
      await withCallback();
      expect(await s.store.writeOutsideEvent('r1', { ...done(), Id: '9' }, { Status: 'STARTED' }, true)).toBe(false);
      expect(await s.store.writeOutsideEvent('nope', done(), { Status: 'STARTED' }, true)).toBe(false);
      expect(await s.store.getOperation('r1', '9')).toBeUndefined();
      expect((await s.store.getRun('r1'))?.eventSeq).toBe(0);
    });

    test('concurrent writers with the same expectation: exactly one applies', async () => {
      await withCallback();
      const outcomes = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          s.store.writeOutsideEvent(
            'r1',
            { ...done(), CallbackDetails: { CallbackId: 'cb-1', Result: `"${i}"` } },
            { Status: 'STARTED' },
            true,
          ),
        ),
      );
      expect(outcomes.filter(Boolean)).toHaveLength(1);
      const winner = outcomes.indexOf(true);
      expect((await s.store.getOperation('r1', '1'))?.CallbackDetails?.Result).toBe(`"${winner}"`);
      expect((await s.store.getRun('r1'))?.eventSeq).toBe(1);
    });

    test('an outside write does not need, nor disturb, the lease', async () => {
      const fence = await withCallback();
      expect(await s.store.writeOutsideEvent('r1', done(), { Status: 'STARTED' }, true)).toBe(true);
      await s.store.commit('r1', fence, { operations: [stepOp('2', '2')], run: { handledEventSeq: 1 } });
      expect(await s.store.getRun('r1')).toMatchObject({ fence, eventSeq: 1, handledEventSeq: 1 });
    });
  });
}
