import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WakeRequest } from '@durable-lambda/engine';
import { SqliteStore, TimerWaker } from '@durable-lambda/local';
import { afterAll, afterEach, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'durable-timer-waker-'));
let files = 0;
const cleanup: Array<() => void> = [];

afterEach(() => {
  for (const fn of cleanup.splice(0).reverse()) fn();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function openStore(path = join(dir, `waker-${++files}.sqlite`)) {
  const store = new SqliteStore({ path });
  cleanup.push(() => store.close());
  return { store, path };
}

/** A waker recording when each wake-up fired. */
function recordingWaker(store: SqliteStore, fire?: (request: WakeRequest) => Promise<void>) {
  const fired: Array<{ request: WakeRequest; at: number }> = [];
  const errors: unknown[] = [];
  const waker = new TimerWaker({
    wakeUps: store.wakeUps,
    fire: async (request) => {
      fired.push({ request, at: Date.now() });
      await fire?.(request);
    },
    onError: (error) => errors.push(error),
  });
  cleanup.push(() => waker.stop());
  return { waker, fired, errors };
}

const request = (runId: string, at: number, reason: WakeRequest['reason'] = 'due'): WakeRequest => ({
  runId,
  functionName: 'fn',
  at,
  reason,
});

async function until(condition: () => boolean, timeoutMs = 3_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(5);
  }
}

describe('TimerWaker', () => {
  it('fires each wake-up on time, in order, and forgets it once fired', async () => {
    const { store } = openStore();
    const { waker, fired } = recordingWaker(store);
    waker.start();
    const t = Date.now();
    await waker.wakeAt(request('late', t + 250));
    await waker.wakeAt(request('early', t + 80));
    await waker.wakeAt(request('now', t - 1_000));
    expect(store.wakeUps.list().map((r) => r.runId)).toEqual(['now', 'early', 'late']);
    await until(() => fired.length === 3);
    expect(fired.map((f) => f.request.runId)).toEqual(['now', 'early', 'late']);
    expect(fired[1]?.at).toBeGreaterThanOrEqual(t + 80);
    expect(fired[2]?.at).toBeGreaterThanOrEqual(t + 250);
    expect(fired[2]?.at).toBeLessThan(t + 1_000);
    expect(fired[2]?.request).toEqual(request('late', t + 250));
    await until(() => store.wakeUps.list().length === 0);
  });

  it('stores wake-ups asked for before start, and fires them only once started', async () => {
    const { store } = openStore();
    const { waker, fired } = recordingWaker(store);
    await waker.wakeAt(request('r1', Date.now() - 5));
    await sleep(50);
    expect(fired).toHaveLength(0);
    expect(store.wakeUps.list()).toHaveLength(1);
    waker.start();
    await until(() => fired.length === 1);
  });

  it('persists wake-ups: a new waker on the same file fires them (past-due ones at once)', async () => {
    const { store, path } = openStore();
    const first = recordingWaker(store);
    first.waker.start();
    const t = Date.now();
    await first.waker.wakeAt(request('soon', t + 150));
    await first.waker.wakeAt(request('overdue', t + 20));
    first.waker.stop();
    store.close();
    await sleep(60);
    expect(first.fired).toHaveLength(0);

    const { store: reopened } = openStore(path);
    expect(reopened.wakeUps.list().map((r) => r.runId)).toEqual(['overdue', 'soon']);
    const second = recordingWaker(reopened);
    const started = Date.now();
    second.waker.start();
    await until(() => second.fired.length === 2);
    expect(second.fired[0]?.request.runId).toBe('overdue');
    expect((second.fired[0]?.at ?? Infinity) - started).toBeLessThan(100);
    expect(second.fired[1]?.at).toBeGreaterThanOrEqual(t + 150);
    await until(() => reopened.wakeUps.list().length === 0);
  });

  it('cancel withdraws a pending wake-up, stored or armed', async () => {
    const { store } = openStore();
    const { waker, fired } = recordingWaker(store);
    const t = Date.now();
    await waker.wakeAt(request('stored', t + 50));
    await waker.cancel(request('stored', t + 50));
    waker.start();
    await waker.wakeAt(request('armed', t + 80));
    await waker.wakeAt(request('kept', t + 80, 'lease'));
    await waker.cancel(request('armed', t + 80));
    await waker.cancel(request('never-asked', t));
    await sleep(200);
    expect(fired.map((f) => f.request.runId)).toEqual(['kept']);
    expect(store.wakeUps.list()).toEqual([]);
  });

  it('stores and fires a duplicate wake-up (same run, time and reason) once', async () => {
    const { store } = openStore();
    const { waker, fired } = recordingWaker(store);
    const t = Date.now() + 60;
    await waker.wakeAt(request('r1', t));
    waker.start();
    await waker.wakeAt(request('r1', t));
    await waker.wakeAt({ ...request('r1', t), functionName: 'fn' });
    await waker.wakeAt(request('r1', t, 'lease'));
    await waker.wakeAt(request('r1', t + 1));
    expect(store.wakeUps.list()).toHaveLength(3);
    await sleep(250);
    expect(fired.map((f) => `${f.request.reason}@${f.request.at - t}`).sort()).toEqual(['due@0', 'due@1', 'lease@0']);
  });

  it('a wake-up asked again while it fires fires once more; one that fails is reported and forgotten', async () => {
    const { store } = openStore();
    let release: () => void = () => {};
    let calls = 0;
    const { waker, fired, errors } = recordingWaker(store, async (r) => {
      calls++;
      if (r.runId === 'bad') throw new Error('boom');
      if (calls === 1) await new Promise<void>((resolve) => (release = resolve));
    });
    waker.start();
    const t = Date.now();
    await waker.wakeAt(request('r1', t));
    await until(() => fired.length === 1);
    await waker.wakeAt(request('r1', t));
    release();
    await until(() => fired.length === 2);
    await until(() => store.wakeUps.list().length === 0);

    await waker.wakeAt(request('bad', t));
    await until(() => errors.length === 1);
    expect((errors[0] as Error).message).toBe('boom');
    await until(() => store.wakeUps.list().length === 0);
  });

  it("a delay beyond setTimeout's limit neither fires early nor overflows", async () => {
    const { store } = openStore();
    const { waker, fired } = recordingWaker(store);
    waker.start();
    await waker.wakeAt(request('far', Date.now() + 2 ** 31 + 5_000));
    await waker.wakeAt(request('year', Date.now() + 365 * 86_400_000));
    await sleep(100);
    expect(fired).toHaveLength(0);
    expect(store.wakeUps.list()).toHaveLength(2);
  });
});
