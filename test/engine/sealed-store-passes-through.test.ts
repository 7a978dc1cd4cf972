/**
 * `sealedStore` (issue 27) seals payloads and passes everything else through: a commit's other
 * fields (a tag move's `tagged`), the methods that carry no payload, and the optional methods the
 * store has or lacks, as they are; and it checks the 6 MB limit on the payload as written.
 */
import { type CommitWrite, MemoryStore, type PayloadCodec, type Store, sealedStore } from '@durable-lambda/engine';
import { describe, expect, it } from 'vitest';
import { executionOp, runRecord, T0 } from '../store-conformance/fixtures';

/** A codec that marks what it sealed, so a test sees what went through it. */
const marking: PayloadCodec = {
  seal: async (runId, text) => `sealed(${runId}):${text}`,
  open: async (runId, stored) => stored.replace(`sealed(${runId}):`, ''),
};

class RecordingStore extends MemoryStore {
  readonly commits: CommitWrite[] = [];
  override async commit(runId: string, fence: number, write: CommitWrite): Promise<void> {
    this.commits.push(write);
    return super.commit(runId, fence, write);
  }
}

describe('sealedStore', () => {
  it('passes a commit through with every field it carries, its payloads sealed', async () => {
    const inner = new RecordingStore();
    const store = sealedStore(inner, marking);
    await store.createRun(runRecord('r1'), executionOp());
    const grant = await store.acquireLease('r1', T0, T0 + 60_000, 'lease');
    const tagged = { before: { customer: 'c-1' }, createdAt: T0 };
    await store.commit('r1', grant?.run.fence ?? 1, { operations: [], run: { result: '"done"' }, tagged });
    expect(inner.commits.at(-1)).toMatchObject({ tagged, run: { result: 'sealed(r1):"done"' } });
    expect((await inner.getRun('r1'))?.result).toBe('sealed(r1):"done"');
    expect((await store.getRun('r1'))?.result).toBe('"done"');
  });

  it("seals a signal's payload in the store, and opens it when the run lists its signals", async () => {
    const inner = new MemoryStore();
    const store = sealedStore(inner, marking);
    await store.createRun(runRecord('r2'), executionOp());
    const sent = await store.appendSignal?.('r2', { name: 'approve', payload: '{"by":"ana"}', sentAt: T0 });
    expect(sent).toMatchObject({ kind: 'stored', signal: { payload: '{"by":"ana"}' } });
    expect((await inner.listSignals?.('r2'))?.map((s) => s.payload)).toEqual(['sealed(r2):{"by":"ana"}']);
    expect((await store.listSignals?.('r2'))?.map((s) => s.payload)).toEqual(['{"by":"ana"}']);
  });

  it('keeps the optional methods the store has, and lacks those it lacks', () => {
    const inner = new MemoryStore();
    const store: Store = sealedStore(inner, marking);
    expect(typeof store.loadOperationPage).toBe(typeof inner.loadOperationPage);
    expect(typeof store.takeSlot).toBe(typeof inner.takeSlot);
    expect(typeof store.pinRun).toBe(typeof inner.pinRun);
    const bare = {} as unknown as Store;
    expect(sealedStore(bare, marking).loadReplayOperations).toBeUndefined();
  });

  it('refuses a payload over 6 MB as written, before sealing grows it, and writes nothing', async () => {
    const inner = new MemoryStore();
    const store = sealedStore(inner, marking);
    const tooBig = 'x'.repeat(6 * 1024 * 1024 + 1);
    await expect(store.createRun(runRecord('big', { input: tooBig }), executionOp(tooBig))).rejects.toMatchObject({
      code: 'payload_too_large',
    });
    expect(await inner.getRun('big')).toBeUndefined();
  });
});
