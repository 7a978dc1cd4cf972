/**
 * Store conformance, continued: large values (chunked, or rejected over 6 MB) and retention
 * (expired runs are invisible and may be created anew). Called by `describeStoreConformance`.
 */
import type { Store } from '@durable-lambda/engine';
import { FencedError, type Operation } from '@durable-lambda/protocol';
import { describe, expect } from 'vitest';
import {
  type ConformanceClock,
  type ConformanceOptions,
  callbackOp,
  executionOp,
  leaseToken,
  MB,
  payload,
  runRecord,
  stepOp,
  T0,
} from './fixtures';
import { conformanceTest, useStore } from './support';

export function describePayloadConformance(
  name: string,
  setup: () => Promise<{ store: Store; clock: ConformanceClock }>,
  options: ConformanceOptions = {},
): void {
  const test = conformanceTest(options);

  describe(`${name}: store conformance (payloads, retention)`, () => {
    const s = useStore(setup);

    describe('large payloads', () => {
      test('a 1 MB and a 5 MB step result round-trip exactly', async () => {
        const fence = await s.leased('r1');
        const oneMb = payload(MB, 'one');
        const fiveMb = payload(5 * MB, 'five');
        await s.store.commit('r1', fence, { operations: [stepOp('1', oneMb)] });
        await s.store.commit('r1', fence, { operations: [stepOp('2', fiveMb), stepOp('3', '"small"')] });
        expect(await s.store.getOperation('r1', '1')).toEqual(stepOp('1', oneMb));
        expect(await s.store.getOperation('r1', '2')).toEqual(stepOp('2', fiveMb));
        const loaded = await s.store.loadOperations('r1');
        expect(loaded.map((op) => op.StepDetails?.Result)).toEqual([undefined, oneMb, fiveMb, '"small"']);
      }, 60_000);

      test('a 1 MB run input round-trips through createRun, getRun, acquireLease and its EXECUTION', async () => {
        const input = JSON.stringify(payload(MB, 'input'));
        const created = await s.store.createRun(runRecord('r1', { input }), executionOp(input));
        expect(created.run.input).toBe(input);
        expect((await s.store.getRun('r1'))?.input).toBe(input);
        const grant = await s.store.acquireLease('r1', T0, T0 + 60_000, leaseToken());
        expect(grant?.run.input).toBe(input);
        expect(await s.store.loadOperations('r1')).toEqual([executionOp(input)]);
        const again = await s.store.createRun(runRecord('r1', { input }), executionOp(input));
        expect(again.created).toBe(false);
        expect(again.run.input).toBe(input);
      });

      test('a large run result and error, and a large operation error, round-trip', async () => {
        const fence = await s.leased('r1');
        const result = payload(2 * MB, 'result');
        const error = { ErrorType: 'Big', ErrorMessage: 'large', ErrorData: payload(MB, 'data'), StackTrace: ['a'] };
        const failed: Operation = {
          ...stepOp('1', ''),
          Status: 'FAILED',
          StepDetails: { Attempt: 3, Error: error },
        };
        await s.store.commit('r1', fence, { operations: [failed], run: { status: 'SUCCEEDED', result, endedAt: T0 } });
        expect(await s.store.getOperation('r1', '1')).toEqual(failed);
        expect((await s.store.getRun('r1'))?.result).toBe(result);
        await s.store.commit('r1', fence, { operations: [], run: { status: 'FAILED', result: null, error } });
        const run = await s.store.getRun('r1');
        expect(run?.error).toEqual(error);
        expect(run && 'result' in run).toBe(false);
        await s.store.commit('r1', fence, { operations: [], run: { result: '"small again"', error: null } });
        expect(await s.store.getRun('r1')).toMatchObject({ result: '"small again"' });
      });

      test('a value over 6 MB is rejected with payload_too_large and nothing is written', async () => {
        const fence = await s.leased('r1');
        const tooBig = payload(6 * MB + 100, 'big');
        const attempt = s.store.commit('r1', fence, {
          operations: [stepOp('1', '"fine"'), stepOp('2', tooBig)],
          run: { handledEventSeq: 3 },
        });
        await expect(attempt).rejects.toMatchObject({ code: 'payload_too_large' });
        expect(await s.store.loadOperations('r1')).toEqual([executionOp()]);
        expect((await s.store.getRun('r1'))?.handledEventSeq).toBe(0);
      });
    });

    describe('retention', () => {
      test('a run past expiresAt is invisible everywhere, and can be created anew', async () => {
        const fence = await s.leased('r1', { expiresAt: T0 + 5_000 });
        await s.store.commit('r1', fence, { operations: [stepOp('1', '"old"'), callbackOp('2')] });
        s.clock.set(T0 + 4_999);
        expect(await s.store.getRun('r1')).toBeDefined();
        s.clock.set(T0 + 5_000);
        expect(await s.store.getRun('r1')).toBeUndefined();
        expect(await s.store.loadOperations('r1')).toEqual([]);
        expect(await s.store.getOperation('r1', '1')).toBeUndefined();
        s.clock.set(T0 + 70_000);
        expect(await s.store.acquireLease('r1', T0 + 70_000, T0 + 80_000, leaseToken())).toBeUndefined();
        await expect(s.store.commit('r1', fence, { operations: [stepOp('3', '3')] })).rejects.toBeInstanceOf(
          FencedError,
        );
        const done = { ...callbackOp('2'), Status: 'SUCCEEDED' as const };
        expect(await s.store.writeOutsideEvent('r1', done, { Status: 'STARTED' }, true)).toBe(false);

        const fresh = await s.store.createRun(
          runRecord('r1', { input: '"new"', createdAt: T0 + 70_000 }),
          executionOp('"new"'),
        );
        expect(fresh.created).toBe(true);
        expect(fresh.run.input).toBe('"new"');
        expect((await s.store.getRun('r1'))?.input).toBe('"new"');
        expect(await s.store.loadOperations('r1')).toEqual([executionOp('"new"')]);
        expect(await s.store.getOperation('r1', '1')).toBeUndefined();
        expect(await s.store.acquireLease('r1', T0 + 70_000, T0 + 80_000, leaseToken())).toBeDefined();
      });

      test('a fence of an expired run never writes into the run created anew under its id', async () => {
        // Only an id derived from a key names a run again: such runs carry an incarnation.
        const stale = await s.leased('r1', { runKey: 'k', incarnation: 'aaaaaaaaaaaaaaaa', expiresAt: T0 + 5_000 });
        s.clock.set(T0 + 5_000);
        const again = { runKey: 'k', incarnation: 'bbbbbbbbbbbbbbbb', input: '"new"', createdAt: T0 + 5_000 };
        await s.store.createRun(runRecord('r1', again), executionOp('"new"'));
        const grant = await s.store.acquireLease('r1', T0 + 5_000, T0 + 60_000, leaseToken());
        expect(grant).toBeDefined();
        await expect(s.store.commit('r1', stale, { operations: [stepOp('1', '"stale"')] })).rejects.toBeInstanceOf(
          FencedError,
        );
        expect(await s.store.loadOperations('r1')).toEqual([executionOp('"new"')]);
      });

      test('retention set by a commit applies the same way', async () => {
        const fence = await s.leased('r1');
        await s.store.commit('r1', fence, {
          operations: [],
          run: { status: 'SUCCEEDED', endedAt: T0, leaseExpiresAt: null, expiresAt: T0 + 1_000 },
        });
        expect((await s.store.getRun('r1'))?.expiresAt).toBe(T0 + 1_000);
        s.clock.set(T0 + 1_000);
        expect(await s.store.getRun('r1')).toBeUndefined();
        expect(await s.store.loadOperations('r1')).toEqual([]);
      });
    });
  });
}
