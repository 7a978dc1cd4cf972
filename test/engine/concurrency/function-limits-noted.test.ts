/**
 * `noteFunctionLimits`: a function's limits reach the store once per process and change, so a
 * warm Lambda writes once per cold start at most (none while the stored limits equal the code's),
 * and a failed read or write never rejects (it is tried again at the next call).
 */
import { type FunctionLimitsRecord, MemoryStore, noteFunctionLimits } from '@durable-lambda/engine';
import { describe, expect, it } from 'vitest';

const clock = { now: () => 1_000 };

/** A memory store counting its limits writes, failing the next `failures` calls of either method. */
class CountingStore extends MemoryStore {
  puts = 0;
  gets = 0;
  failures = 0;

  override async putFunctionLimits(record: FunctionLimitsRecord): Promise<void> {
    if (this.failures > 0) {
      this.failures -= 1;
      throw new Error('throttled');
    }
    this.puts += 1;
    await super.putFunctionLimits(record);
  }

  override async getFunctionLimits(functionName: string): Promise<FunctionLimitsRecord | undefined> {
    this.gets += 1;
    return super.getFunctionLimits(functionName);
  }
}

describe('noteFunctionLimits', () => {
  it('writes a function’s limits once, then not again while they are the same', async () => {
    const store = new CountingStore(clock);
    expect(await noteFunctionLimits(store, 'jobs', { concurrency: { limit: 1 } }, clock, { version: '3' })).toBe(true);
    for (let i = 0; i < 5; i++) {
      expect(await noteFunctionLimits(store, 'jobs', { concurrency: { limit: 1 } }, clock)).toBe(false);
    }
    expect(store.puts).toBe(1);
    expect(store.gets).toBe(1);
    expect(await store.getFunctionLimits('jobs')).toEqual({
      functionName: 'jobs',
      limits: { concurrency: { limit: 1 } },
      recordedAt: 1_000,
      version: '3',
    });
  });

  it('writes again when the limits change, and each function on its own', async () => {
    const store = new CountingStore(clock);
    await noteFunctionLimits(store, 'jobs', { concurrency: { limit: 1 } }, clock);
    expect(await noteFunctionLimits(store, 'jobs', { concurrency: { limit: 4 } }, clock)).toBe(true);
    expect(await noteFunctionLimits(store, 'mail', { concurrency: { limit: 4 } }, clock)).toBe(true);
    expect(store.puts).toBe(3);
    expect((await store.listFunctionLimits()).map((r) => [r.functionName, r.limits.concurrency?.limit])).toEqual([
      ['jobs', 4],
      ['mail', 4],
    ]);
  });

  it('a cold start that finds the same limits stored writes nothing (one read)', async () => {
    const store = new CountingStore(clock);
    await store.putFunctionLimits({ functionName: 'jobs', limits: { concurrency: { limit: 2 } }, recordedAt: 5 });
    store.puts = 0;
    // Declared in another field order: the same limits.
    const limits = { throttle: { periodMs: 1_000, limit: 3 }, concurrency: { limit: 2 } };
    await store.putFunctionLimits({ functionName: 'mail', limits, recordedAt: 5 });
    store.puts = 0;
    expect(await noteFunctionLimits(store, 'jobs', { concurrency: { limit: 2 } }, clock)).toBe(false);
    expect(
      await noteFunctionLimits(
        store,
        'mail',
        { concurrency: { limit: 2 }, throttle: { limit: 3, periodMs: 1_000 } },
        clock,
      ),
    ).toBe(false);
    expect(store.puts).toBe(0);
    expect(store.gets).toBe(2);
  });

  it('calls racing in one process write once', async () => {
    const store = new CountingStore(clock);
    const results = await Promise.all(
      Array.from({ length: 10 }, () => noteFunctionLimits(store, 'jobs', { concurrency: { limit: 1 } }, clock)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(store.puts).toBe(1);
  });

  it('a failed write never rejects, is told to onError, and is tried again at the next call', async () => {
    const store = new CountingStore(clock);
    store.failures = 1;
    const errors: unknown[] = [];
    const onError = (error: unknown) => errors.push(error);
    await expect(noteFunctionLimits(store, 'jobs', { concurrency: { limit: 1 } }, clock, { onError })).resolves.toBe(
      false,
    );
    expect(errors).toHaveLength(1);
    expect(await store.getFunctionLimits('jobs')).toBeUndefined();
    expect(await noteFunctionLimits(store, 'jobs', { concurrency: { limit: 1 } }, clock, { onError })).toBe(true);
    expect(store.puts).toBe(1);
  });

  it('a reporter that throws does not make it reject; a store without limits methods is no work', async () => {
    const store = new CountingStore(clock);
    store.failures = 1;
    const onError = () => {
      throw new Error('reporter down');
    };
    await expect(noteFunctionLimits(store, 'jobs', { concurrency: { limit: 1 } }, clock, { onError })).resolves.toBe(
      false,
    );
    await expect(noteFunctionLimits({}, 'jobs', { concurrency: { limit: 1 } }, clock)).resolves.toBe(false);
  });

  it('two stores in one process each get the record', async () => {
    const a = new CountingStore(clock);
    const b = new CountingStore(clock);
    expect(await noteFunctionLimits(a, 'jobs', { concurrency: { limit: 1 } }, clock)).toBe(true);
    expect(await noteFunctionLimits(b, 'jobs', { concurrency: { limit: 1 } }, clock)).toBe(true);
  });
});
