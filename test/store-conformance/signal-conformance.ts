/**
 * Store conformance, continued: a run's signal inbox (`ctx.waitForSignal`, issue 27). A signal is
 * stored with the next seq of its run in one atomic write with the run's `signalSeq` and (for a
 * RUNNING run) `eventSeq`, which makes the run due; a dedupe key stores once; an ended or unknown
 * run stores nothing; concurrent sends get distinct seqs; a run created again starts with an empty
 * inbox; the cursor a commit writes reads back. Called by `describeStoreConformance`.
 */
import type { SignalAppend, SignalSend, Store } from '@durable-lambda/engine';
import { describe, expect } from 'vitest';
import { type ConformanceClock, type ConformanceOptions, executionOp, runRecord, T0 } from './fixtures';
import { conformanceTest, useStore } from './support';

function send(name: string, payload?: unknown, dedupeKey?: string): SignalSend {
  return {
    name,
    sentAt: T0,
    ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    ...(dedupeKey === undefined ? {} : { dedupeKey }),
  };
}

function stored(answer: SignalAppend | undefined) {
  if (answer?.kind !== 'stored') throw new Error(`not stored: ${JSON.stringify(answer)}`);
  return answer;
}

export function describeSignalConformance(
  name: string,
  setup: () => Promise<{ store: Store; clock: ConformanceClock }>,
  options: ConformanceOptions = {},
): void {
  const test = conformanceTest(options);

  describe(`${name}: store conformance (signals)`, () => {
    const s = useStore(setup);

    test('a signal takes the next seq, grows eventSeq and signalSeq, and makes a waiting run due', async () => {
      await s.store.createRun(runRecord('s1', { nextWakeAt: undefined }), executionOp());
      expect((await s.store.findDueRuns(T0 + 1, 10)).map((d) => d.runId)).not.toContain('s1');
      const first = stored(await s.store.appendSignal?.('s1', send('go', { n: 'ü' })));
      const second = stored(await s.store.appendSignal?.('s1', send('go')));
      const third = stored(await s.store.appendSignal?.('s1', send('other', 'x'.repeat(60_000))));
      expect([first.signal.seq, second.signal.seq, third.signal.seq]).toEqual([1, 2, 3]);
      expect(first).toMatchObject({ created: true, status: 'RUNNING', functionName: 'fn' });
      const run = await s.store.getRun('s1');
      expect(run).toMatchObject({ signalSeq: 3, eventSeq: 3, handledEventSeq: 0 });
      expect((await s.store.findDueRuns(T0 + 1, 10)).map((d) => d.runId)).toContain('s1');
      const inbox = await s.store.listSignals?.('s1');
      expect(inbox?.map((x) => [x.seq, x.name, x.payload])).toEqual([
        [1, 'go', JSON.stringify({ n: 'ü' })],
        [2, 'go', undefined],
        [3, 'other', JSON.stringify('x'.repeat(60_000))],
      ]);
      expect(await s.store.listSignals?.('s1', run?.createdAt)).toEqual(inbox);
    });

    test('a signal landing while a lease is held leaves the run due at once when the lease is released', async () => {
      const fence = await s.leased('s2');
      stored(await s.store.appendSignal?.('s2', send('go')));
      // The invocation handled the events it saw at its lease (none): the signal's is unhandled.
      await s.store.commit('s2', fence, {
        operations: [],
        run: { leaseExpiresAt: null, nextWakeAt: null, handledEventSeq: 0, dueAt: null },
      });
      const run = await s.store.getRun('s2');
      expect(run?.eventSeq).toBe(1);
      expect((await s.store.findDueRuns(s.clock.now() + 1, 10)).map((d) => d.runId)).toContain('s2');
    });

    test('a signal sent again with the same dedupe key is stored once', async () => {
      await s.store.createRun(runRecord('s3'), executionOp());
      const first = stored(await s.store.appendSignal?.('s3', send('pay', 5, 'key-1')));
      const again = stored(await s.store.appendSignal?.('s3', send('pay', 5, 'key-1')));
      const other = stored(await s.store.appendSignal?.('s3', send('pay', 6, 'key-2')));
      expect(again).toMatchObject({ created: false, signal: first.signal });
      expect(other.signal.seq).toBe(2);
      expect(await s.store.listSignals?.('s3')).toHaveLength(2);
      expect((await s.store.getRun('s3'))?.eventSeq).toBe(2);
    });

    test('an ended run stores no signal, yet answers a keyed signal it stored before', async () => {
      const fence = await s.leased('s4');
      stored(await s.store.appendSignal?.('s4', send('pay', 1, 'key-1')));
      await s.store.commit('s4', fence, {
        operations: [],
        run: { status: 'SUCCEEDED', endedAt: T0, leaseExpiresAt: null, nextWakeAt: null, dueAt: null },
      });
      expect(await s.store.appendSignal?.('s4', send('pay', 2))).toEqual({ kind: 'ended', status: 'SUCCEEDED' });
      expect(await s.store.appendSignal?.('s4', send('pay', 1, 'key-1'))).toMatchObject({
        kind: 'stored',
        created: false,
        signal: { seq: 1 },
      });
      expect(await s.store.appendSignal?.('nobody', send('pay'))).toEqual({ kind: 'not_found' });
      expect(await s.store.listSignals?.('nobody')).toEqual([]);
      expect(await s.store.listSignals?.('s4')).toHaveLength(1);
    });

    test('a QUEUED run keeps a signal without being made due by it', async () => {
      await s.store.createRun(runRecord('s5', { status: 'QUEUED', queuedAt: T0 }), executionOp());
      expect(stored(await s.store.appendSignal?.('s5', send('go'))).status).toBe('QUEUED');
      expect(await s.store.getRun('s5')).toMatchObject({ signalSeq: 1, eventSeq: 0 });
    });

    test('signals sent at once get distinct seqs, none lost', async () => {
      await s.store.createRun(runRecord('s6'), executionOp());
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) => s.store.appendSignal?.('s6', send('n', i))),
      );
      expect(answers.map((a) => stored(a).signal.seq).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
      const inbox = (await s.store.listSignals?.('s6')) ?? [];
      expect(inbox.map((x) => JSON.parse(x.payload ?? 'null')).sort()).toEqual([0, 1, 2, 3, 4, 5]);
      expect((await s.store.getRun('s6'))?.eventSeq).toBe(6);
    });

    test("a commit stores the run's signal cursor", async () => {
      const fence = await s.leased('s7');
      await s.store.commit('s7', fence, { operations: [], run: { signalCursor: { go: 2, 'a.b:c-d': 5 } } });
      expect((await s.store.getRun('s7'))?.signalCursor).toEqual({ go: 2, 'a.b:c-d': 5 });
    });

    test('a run created again under its id starts with an empty inbox', async () => {
      await s.store.createRun(runRecord('s8', { expiresAt: T0 + 1_000 }), executionOp());
      stored(await s.store.appendSignal?.('s8', send('go', 'old')));
      s.clock.set(T0 + 5_000);
      const { created } = await s.store.createRun(
        runRecord('s8', { createdAt: T0 + 5_000, updatedAt: T0 + 5_000 }),
        executionOp(),
      );
      expect(created).toBe(true);
      expect(await s.store.listSignals?.('s8')).toEqual([]);
      expect(stored(await s.store.appendSignal?.('s8', send('go', 'new'))).signal.seq).toBe(1);
      expect((await s.store.listSignals?.('s8'))?.map((x) => x.payload)).toEqual([JSON.stringify('new')]);
    });
  });
}
