import {
  Engine,
  EngineInputError,
  type EngineOptions,
  isWakeEvent,
  type LeaseGrant,
  MemoryStore,
  type RunKeyConflictError,
  type RunPatch,
  type RunRecord,
  runIdFor,
  type Store,
  type WakeRequest,
  type Waker,
  wakeEvent,
} from '@durable-lambda/engine';
import { CheckpointRejectedError, FencedError, type Operation, type OperationUpdate } from '@durable-lambda/protocol';
import { describe, expect, it } from 'vitest';

const T0 = 1_700_000_000_000;
/** Remaining time handed to openRun in these tests, and the engine's default lease grace. */
const REMAINING_MS = 60_000;
const GRACE_MS = 10_000;
const LEASE_MS = REMAINING_MS + GRACE_MS;
const ERR = { ErrorType: 'Error', ErrorMessage: 'boom' };

/** Counts commits reaching the wrapped store. */
class CountingStore implements Store {
  readonly commits: { runId: string; fence: number; operations: readonly Operation[]; run?: RunPatch }[] = [];
  constructor(readonly inner: Store) {}
  createRun(run: RunRecord, execution: Operation) {
    return this.inner.createRun(run, execution);
  }
  getRun(runId: string) {
    return this.inner.getRun(runId);
  }
  acquireLease(runId: string, now: number, leaseExpiresAt: number, token: string): Promise<LeaseGrant | undefined> {
    return this.inner.acquireLease(runId, now, leaseExpiresAt, token);
  }
  findDueRuns(before: number, limit: number) {
    return this.inner.findDueRuns(before, limit);
  }
  loadOperations(runId: string) {
    return this.inner.loadOperations(runId);
  }
  getOperation(runId: string, operationId: string) {
    return this.inner.getOperation(runId, operationId);
  }
  writeOutsideEvent(...args: Parameters<Store['writeOutsideEvent']>) {
    return this.inner.writeOutsideEvent(...args);
  }
  listRuns(...args: Parameters<Store['listRuns']>) {
    return this.inner.listRuns(...args);
  }
  reviseRun(...args: Parameters<Store['reviseRun']>) {
    return this.inner.reviseRun(...args);
  }
  claimIdempotencyKey(...args: Parameters<Store['claimIdempotencyKey']>) {
    return this.inner.claimIdempotencyKey(...args);
  }
  completeIdempotencyKey(...args: Parameters<Store['completeIdempotencyKey']>) {
    return this.inner.completeIdempotencyKey(...args);
  }
  releaseIdempotencyKey(...args: Parameters<Store['releaseIdempotencyKey']>) {
    return this.inner.releaseIdempotencyKey(...args);
  }
  commit(runId: string, fence: number, write: { operations: readonly Operation[]; run?: RunPatch }) {
    this.commits.push({ runId, fence, ...structuredClone(write) });
    return this.inner.commit(runId, fence, write);
  }
}

function setup(options: Partial<EngineOptions> = {}) {
  const clock = { t: T0, now: () => clock.t };
  const memory = new MemoryStore(clock);
  const store = new CountingStore(memory);
  const wakes: WakeRequest[] = [];
  const waker: Waker = {
    wakeAt: async (request) => {
      wakes.push({ ...request });
    },
  };
  const engine = new Engine({ store, waker, clock, ...options });
  const open = (runId: string) => engine.openRun(runId, { remainingTimeMs: () => REMAINING_MS });
  /** Starts a run and opens its first invocation. */
  const startAndOpen = async (input = '{"n":1}') => {
    const { run } = await engine.startRun({ functionName: 'fn', input });
    const session = await open(run.runId);
    if (!session) throw new Error('first openRun returned undefined');
    return { runId: run.runId, session };
  };
  /** Everything the store holds about a run. */
  const snapshot = async (runId: string) => ({
    run: await memory.getRun(runId),
    operations: await memory.loadOperations(runId),
  });
  return { clock, memory, store, wakes, engine, open, startAndOpen, snapshot };
}

const waitStart = (id: string, seconds: number): OperationUpdate => ({
  Id: id,
  Type: 'WAIT',
  Action: 'START',
  WaitOptions: { WaitSeconds: seconds },
});
const stepStart = (id: string): OperationUpdate => ({ Id: id, Name: id, Type: 'STEP', Action: 'START' });
const stepSucceed = (id: string, payload: string): OperationUpdate => ({
  Id: id,
  Name: id,
  Type: 'STEP',
  Action: 'SUCCEED',
  Payload: payload,
});
const stepRetry = (id: string, seconds: number): OperationUpdate => ({
  Id: id,
  Name: id,
  Type: 'STEP',
  Action: 'RETRY',
  Error: ERR,
  StepOptions: { NextAttemptDelaySeconds: seconds },
});

const byId = (ops: readonly Operation[], id: string) => ops.find((op) => op.Id === id);

/** The error `promise` rejects with. */
async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection, the promise resolved');
}

describe('Engine.startRun', () => {
  it('creates a RUNNING run with its EXECUTION operation, due at once', async () => {
    const { engine, memory } = setup();
    const { run, created } = await engine.startRun({ functionName: 'fn', input: '{"a":1}', runKey: 'k1' });
    expect(created).toBe(true);
    expect(run).toMatchObject({
      runId: runIdFor('k1'),
      functionName: 'fn',
      runKey: 'k1',
      status: 'RUNNING',
      input: '{"a":1}',
      fence: 0,
      nextWakeAt: T0,
      invocations: 0,
      lostInvocations: 0,
    });
    expect(await memory.loadOperations(run.runId)).toEqual([
      {
        Id: '0',
        Type: 'EXECUTION',
        Status: 'STARTED',
        StartTimestamp: T0,
        ExecutionDetails: { InputPayload: '{"a":1}' },
        // Its ExecutionStarted is the run's first history event (issue 23).
        HistoryOrder: [1],
      },
    ]);
  });

  it('is idempotent by runKey: the same function and input find the same run', async () => {
    const { engine, memory, clock } = setup();
    const first = await engine.startRun({ functionName: 'fn', input: '{"a":1}', runKey: 'order-7' });
    clock.t += 5000;
    const second = await engine.startRun({ functionName: 'fn', input: '{"a":1}', runKey: 'order-7' });
    expect(second.created).toBe(false);
    expect(second.run.runId).toBe(first.run.runId);
    expect(second.run.createdAt).toBe(T0);
    expect(memory.runIds()).toEqual([first.run.runId]);
  });

  it('rejects a runKey reused with a different input', async () => {
    const { engine, memory } = setup();
    const first = await engine.startRun({ functionName: 'fn', input: '{"a":1}', runKey: 'order-7' });
    const error = (await failure(
      engine.startRun({ functionName: 'fn', input: '{"a":2}', runKey: 'order-7' }),
    )) as RunKeyConflictError;
    expect(error.name).toBe('RunKeyConflictError');
    expect(error.code).toBe('run_key_conflict');
    expect(error.runKey).toBe('order-7');
    expect(error.runId).toBe(first.run.runId);
    expect((await memory.getRun(first.run.runId))?.input).toBe('{"a":1}');
  });

  it('rejects a runKey reused with input omitted after it was given', async () => {
    const { engine } = setup();
    await engine.startRun({ functionName: 'fn', input: '{"a":1}', runKey: 'order-7' });
    const error = await failure(engine.startRun({ functionName: 'fn', runKey: 'order-7' }));
    expect(error).toMatchObject({ code: 'run_key_conflict' });
  });

  it('rejects a runKey reused with a different function', async () => {
    const { engine, memory } = setup();
    await engine.startRun({ functionName: 'fn', input: '{"a":1}', runKey: 'order-7' });
    const error = await failure(engine.startRun({ functionName: 'other-fn', input: '{"a":1}', runKey: 'order-7' }));
    expect(error).toMatchObject({ name: 'RunKeyConflictError', code: 'run_key_conflict', runKey: 'order-7' });
    expect(memory.runIds()).toHaveLength(1);
  });

  it('starts a new run for each start without a runKey', async () => {
    const { engine, memory } = setup();
    const a = await engine.startRun({ functionName: 'fn', input: '1' });
    const b = await engine.startRun({ functionName: 'fn', input: '1' });
    expect(a.created).toBe(true);
    expect(b.created).toBe(true);
    expect(a.run.runId).not.toBe(b.run.runId);
    expect(a.run.runId).toMatch(/^[0-9a-z]+$/);
    expect(memory.runIds()).toHaveLength(2);
  });

  const invalidStarts: [string, string, unknown][] = [
    ['an empty functionName', 'functionName', { functionName: '' }],
    ['a missing functionName', 'functionName', {}],
    ['a non-string functionName', 'functionName', { functionName: 42 }],
    ['an empty runKey', 'runKey', { functionName: 'fn', runKey: '' }],
    ['a 257-character runKey', 'runKey', { functionName: 'fn', runKey: 'k'.repeat(257) }],
    ['a non-string runKey', 'runKey', { functionName: 'fn', runKey: 7 }],
    ['a non-string input', 'input', { functionName: 'fn', input: { a: 1 } }],
  ];
  for (const [label, field, request] of invalidStarts) {
    it(`rejects ${label} with EngineInputError on ${field}, creating nothing`, async () => {
      const { engine, memory } = setup();
      const error = await failure(engine.startRun(request as never));
      expect(error).toBeInstanceOf(EngineInputError);
      expect((error as EngineInputError).field).toBe(field);
      expect((error as EngineInputError).code).toBe('invalid_argument');
      expect(memory.runIds()).toEqual([]);
    });
  }

  it('accepts a 256-character runKey', async () => {
    const { engine } = setup();
    const { created } = await engine.startRun({ functionName: 'fn', runKey: 'k'.repeat(256) });
    expect(created).toBe(true);
  });
});

describe('Engine.openRun: leases', () => {
  it('takes the lease: the fence grows and a safety wake-up is requested at the lease expiry', async () => {
    const { engine, wakes, memory, open } = setup();
    const { run } = await engine.startRun({ functionName: 'fn', input: '{"n":1}' });
    const session = await open(run.runId);
    expect(session).toBeDefined();
    expect(session?.runId).toBe(run.runId);
    expect(session?.functionName).toBe('fn');
    expect(session?.input).toBe('{"n":1}');
    expect(session?.previousInvocationLost).toBe(false);
    expect(session?.operations.map((op) => op.Id)).toEqual(['0']);
    const stored = await memory.getRun(run.runId);
    expect(stored).toMatchObject({ fence: 1, invocations: 1, leaseExpiresAt: T0 + LEASE_MS });
    expect(wakes).toEqual([{ runId: run.runId, functionName: 'fn', at: T0 + LEASE_MS, reason: 'lease' }]);
  });

  it('sizes the lease from the remaining time plus leaseGraceMs', async () => {
    const { engine, wakes } = setup({ leaseGraceMs: 1234 });
    const { run } = await engine.startRun({ functionName: 'fn' });
    await engine.openRun(run.runId, { remainingTimeMs: () => 5000 });
    expect(wakes.at(-1)).toMatchObject({ reason: 'lease', at: T0 + 5000 + 1234 });
  });

  it('returns undefined while another invocation holds the lease, with no side effects', async () => {
    const { startAndOpen, open, wakes, clock, snapshot } = setup();
    const { runId } = await startAndOpen();
    const before = await snapshot(runId);
    const wakesBefore = wakes.length;
    clock.t += LEASE_MS - 1;
    expect(await open(runId)).toBeUndefined();
    expect(await snapshot(runId)).toEqual(before);
    expect(wakes).toHaveLength(wakesBefore);
  });

  it('returns undefined for an unknown run', async () => {
    const { open } = setup();
    expect(await open('rnope')).toBeUndefined();
  });

  it('a taken-over session gets FencedError on checkpoint and writes nothing', async () => {
    const { startAndOpen, open, clock, snapshot, memory } = setup();
    const { runId, session: first } = await startAndOpen();
    await first.checkpoint([waitStart('w1', 1)]);

    clock.t += LEASE_MS; // the first lease lapses: the first invocation is presumed lost
    const second = await open(runId);
    expect(second).toBeDefined();
    expect(second?.previousInvocationLost).toBe(true);
    expect(await memory.getRun(runId)).toMatchObject({ fence: 2, invocations: 2, lostInvocations: 1 });

    const before = await snapshot(runId);
    const error = await failure(first.checkpoint([stepSucceed('s1', '"stale"')]));
    expect(error).toBeInstanceOf(FencedError);
    expect((error as FencedError).code).toBe('fenced');
    expect(await snapshot(runId)).toEqual(before);
  });

  it('a taken-over session cannot close the run', async () => {
    const { startAndOpen, open, clock, snapshot, wakes } = setup();
    const { runId, session: first } = await startAndOpen();
    clock.t += LEASE_MS;
    await open(runId);
    const before = await snapshot(runId);
    const wakesBefore = wakes.length;
    expect(await failure(first.close({ Status: 'SUCCEEDED', Result: '"stale"' }))).toBeInstanceOf(FencedError);
    expect(await snapshot(runId)).toEqual(before);
    expect(wakes).toHaveLength(wakesBefore);
  });

  it('a PENDING close after a wait ended during the invocation leaves the run due at once (never stranded)', async () => {
    const { startAndOpen, clock, memory, wakes, engine } = setup();
    const { runId, session } = await startAndOpen();
    await session.checkpoint([waitStart('w1', 1)]);
    // The invocation outlives its wait: the SDK said PENDING, but time alone has ended the wait.
    clock.t += 2000;
    await session.close({ Status: 'PENDING' });
    const run = await memory.getRun(runId);
    expect(run).toMatchObject({ status: 'RUNNING', nextWakeAt: T0 + 2000, dueAt: T0 + 2000 });
    expect(wakes.at(-1)).toMatchObject({ runId, at: T0 + 2000, reason: 'due' });
    expect(byId(await memory.loadOperations(runId), 'w1')?.Status).toBe('SUCCEEDED');
    // And the reconciler finds it, even if that wake-up was lost.
    clock.t += 300_000;
    const report = await engine.reconcile();
    expect(report.woken.map((w) => w.runId)).toContain(runId);
  });

  it('a PENDING close after a retry backoff ended during the invocation leaves the run due at once', async () => {
    const { startAndOpen, clock, memory } = setup();
    const { runId, session } = await startAndOpen();
    await session.checkpoint([stepStart('s1')]);
    await session.checkpoint([stepRetry('s1', 1)]);
    clock.t += 1500;
    await session.close({ Status: 'PENDING' });
    const run = await memory.getRun(runId);
    expect(run?.status).toBe('RUNNING');
    expect(run?.dueAt).toBeLessThanOrEqual(clock.t);
    expect(run?.nextWakeAt).toBeLessThanOrEqual(clock.t);
  });

  it('previousInvocationLost is false after a clean close', async () => {
    const { startAndOpen, open, clock, memory } = setup();
    const { runId, session } = await startAndOpen();
    await session.checkpoint([waitStart('w1', 10)]);
    await session.close({ Status: 'PENDING' });
    clock.t += 10_000;
    const next = await open(runId);
    expect(next?.previousInvocationLost).toBe(false);
    expect(await memory.getRun(runId)).toMatchObject({ fence: 2, invocations: 2, lostInvocations: 0 });
  });

  it('a closed session cannot checkpoint any more', async () => {
    const { startAndOpen, snapshot } = setup();
    const { runId, session } = await startAndOpen();
    await session.checkpoint([waitStart('w1', 10)]);
    await session.close({ Status: 'PENDING' });
    const before = await snapshot(runId);
    await expect(session.checkpoint([stepSucceed('late', '"x"')])).rejects.toThrow();
    expect(await snapshot(runId)).toEqual(before);
  });

  it('a session cannot be closed twice', async () => {
    const { startAndOpen } = setup();
    const { session } = await startAndOpen();
    await session.close({ Status: 'SUCCEEDED' });
    await expect(session.close({ Status: 'SUCCEEDED' })).rejects.toThrow(/already ended/);
  });
});

describe('EngineSession.close(PENDING)', () => {
  it('releases the lease, stores nextWakeAt and requests a due wake-up at the earliest due time', async () => {
    const { startAndOpen, memory, wakes, clock } = setup();
    const { runId, session } = await startAndOpen();
    await session.checkpoint([waitStart('w-long', 30), waitStart('w-short', 10), stepRetry('s1', 20)]);
    clock.t += 1000;
    const out = await session.close({ Status: 'PENDING' });
    expect(out).toEqual({ Status: 'PENDING' });
    const run = await memory.getRun(runId);
    expect(run).not.toHaveProperty('leaseExpiresAt');
    expect(run?.nextWakeAt).toBe(T0 + 10_000);
    expect(run?.status).toBe('RUNNING');
    expect(wakes.at(-1)).toEqual({ runId, functionName: 'fn', at: T0 + 10_000, reason: 'due' });
  });

  it('picks a retry when it is due before any wait', async () => {
    const { startAndOpen, memory, wakes } = setup();
    const { runId, session } = await startAndOpen();
    await session.checkpoint([waitStart('w1', 30), stepRetry('s1', 2.5)]);
    await session.close({ Status: 'PENDING' });
    expect((await memory.getRun(runId))?.nextWakeAt).toBe(T0 + 2500);
    expect(wakes.at(-1)).toMatchObject({ at: T0 + 2500, reason: 'due' });
  });

  it('with nothing due on time, clears nextWakeAt and requests no due wake-up', async () => {
    const { startAndOpen, memory, wakes } = setup();
    const { runId, session } = await startAndOpen();
    await session.close({ Status: 'PENDING' });
    const run = await memory.getRun(runId);
    expect(run).not.toHaveProperty('nextWakeAt');
    expect(run).not.toHaveProperty('leaseExpiresAt');
    expect(wakes.filter((w) => w.reason === 'due')).toEqual([]);
  });

  it('an early or duplicate wake-up before nextWakeAt opens nothing and changes nothing', async () => {
    const { startAndOpen, open, clock, snapshot, wakes, store } = setup();
    const { runId, session } = await startAndOpen();
    await session.checkpoint([waitStart('w1', 60)]);
    await session.close({ Status: 'PENDING' });
    const before = await snapshot(runId);
    const wakesBefore = wakes.length;
    const commitsBefore = store.commits.length;

    clock.t = T0 + 59_999;
    expect(await open(runId)).toBeUndefined();
    expect(await open(runId)).toBeUndefined();
    expect(await snapshot(runId)).toEqual(before);
    expect(wakes).toHaveLength(wakesBefore);
    expect(store.commits).toHaveLength(commitsBefore);

    clock.t = T0 + 60_000;
    expect(await open(runId)).toBeDefined();
  });

  it('the lease safety wake-up after a clean close has no side effects', async () => {
    const { startAndOpen, open, clock, snapshot, wakes } = setup();
    const { runId, session } = await startAndOpen();
    await session.checkpoint([waitStart('w1', 3600)]);
    await session.close({ Status: 'PENDING' });
    const lease = wakes.find((w) => w.reason === 'lease');
    const before = await snapshot(runId);
    clock.t = lease!.at;
    expect(await open(runId)).toBeUndefined();
    expect(await snapshot(runId)).toEqual(before);
  });
});

describe('EngineSession.close(SUCCEEDED | FAILED)', () => {
  it('stores the outcome, marks the EXECUTION operation and sets retention', async () => {
    const { startAndOpen, memory, clock, open } = setup({ retentionMs: 86_400_000 });
    const { runId, session } = await startAndOpen();
    await session.checkpoint([waitStart('w1', 30)]);
    clock.t = T0 + 5000;
    const out = await session.close({ Status: 'SUCCEEDED', Result: '{"ok":true}' });
    expect(out).toEqual({ Status: 'SUCCEEDED', Result: '{"ok":true}' });

    const run = await memory.getRun(runId);
    expect(run).toMatchObject({
      status: 'SUCCEEDED',
      result: '{"ok":true}',
      endedAt: T0 + 5000,
      expiresAt: T0 + 5000 + 86_400_000,
    });
    expect(run).not.toHaveProperty('leaseExpiresAt');
    expect(run).not.toHaveProperty('nextWakeAt');
    const execution = byId(await memory.loadOperations(runId), '0');
    expect(execution).toMatchObject({ Type: 'EXECUTION', Status: 'SUCCEEDED', EndTimestamp: T0 + 5000 });

    clock.t = T0 + 60_000; // the wait would be due and the lease lapsed: still nothing to open
    expect(await open(runId)).toBeUndefined();
    clock.t = T0 + 5000 + 86_400_000;
    expect(await memory.getRun(runId)).toBeUndefined();
  });

  it('without retentionMs keeps the run forever', async () => {
    const { startAndOpen, memory } = setup();
    const { runId, session } = await startAndOpen();
    await session.close({ Status: 'SUCCEEDED' });
    expect(await memory.getRun(runId)).not.toHaveProperty('expiresAt');
  });

  it('FAILED stores the error and the run cannot be opened again', async () => {
    const { startAndOpen, memory, open, clock } = setup();
    const { runId, session } = await startAndOpen();
    await session.close({ Status: 'FAILED', Error: ERR });
    const run = await memory.getRun(runId);
    expect(run).toMatchObject({ status: 'FAILED', error: ERR, endedAt: T0 });
    expect(run).not.toHaveProperty('result');
    expect(byId(await memory.loadOperations(runId), '0')?.Status).toBe('FAILED');
    clock.t += LEASE_MS * 2;
    expect(await open(runId)).toBeUndefined();
  });
});

describe('time-driven completion', () => {
  it('a wait that came due is seen as SUCCEEDED and persisted by the next commit', async () => {
    const { startAndOpen, open, clock, memory } = setup();
    const { runId, session } = await startAndOpen();
    await session.checkpoint([waitStart('w1', 5)]);
    await session.close({ Status: 'PENDING' });

    clock.t = T0 + 5000 + 42;
    const next = await open(runId);
    expect(byId(next!.operations, 'w1')).toMatchObject({ Status: 'SUCCEEDED', EndTimestamp: T0 + 5000 });
    // Not yet written: opening a run has no side effects on its operations.
    expect(byId(await memory.loadOperations(runId), 'w1')?.Status).toBe('STARTED');

    await next!.checkpoint([stepStart('s1')]);
    const stored = byId(await memory.loadOperations(runId), 'w1');
    expect(stored).toMatchObject({ Status: 'SUCCEEDED', EndTimestamp: T0 + 5000 });
  });

  it('a wait that comes due during an invocation is persisted by its next checkpoint', async () => {
    const { startAndOpen, clock, memory, store } = setup();
    const { runId, session } = await startAndOpen();
    await session.checkpoint([waitStart('w1', 1)]);
    clock.t += 1000;
    const commitsBefore = store.commits.length;
    await session.checkpoint([stepSucceed('s1', '1')]);
    expect(store.commits.length - commitsBefore).toBe(1);
    expect(byId(await memory.loadOperations(runId), 'w1')?.Status).toBe('SUCCEEDED');
  });

  it('a wait that came due is persisted by close(PENDING) too', async () => {
    const { startAndOpen, clock, memory } = setup();
    const { runId, session } = await startAndOpen();
    await session.checkpoint([waitStart('w1', 1), waitStart('w2', 100)]);
    clock.t += 1000;
    await session.close({ Status: 'PENDING' });
    expect(byId(await memory.loadOperations(runId), 'w1')?.Status).toBe('SUCCEEDED');
    // The SDK never saw w1 end: the run comes back now to go on from it, not when w2 ends.
    expect((await memory.getRun(runId))?.nextWakeAt).toBe(T0 + 1000);
  });

  it('a retry that came due is READY for the next invocation', async () => {
    const { startAndOpen, open, clock } = setup();
    const { runId, session } = await startAndOpen();
    await session.checkpoint([stepStart('s1'), stepRetry('s1', 2)]);
    await session.close({ Status: 'PENDING' });
    clock.t = T0 + 2000;
    const next = await open(runId);
    expect(byId(next!.operations, 's1')).toMatchObject({ Status: 'READY', StepDetails: { Attempt: 1 } });
    const [op] = await next!.checkpoint([stepStart('s1')]);
    expect(op).toMatchObject({ Status: 'STARTED', StepDetails: { Attempt: 2 } });
  });

  it('getOperations shows due waits as SUCCEEDED and due retries as READY without writing', async () => {
    const { startAndOpen, engine, clock, memory, store } = setup();
    const { runId, session } = await startAndOpen();
    await session.checkpoint([waitStart('w1', 5), waitStart('w2', 50), stepRetry('s1', 5)]);
    await session.close({ Status: 'PENDING' });
    const commits = store.commits.length;
    clock.t = T0 + 5000;
    const ops = await engine.getOperations(runId);
    expect(byId(ops, 'w1')).toMatchObject({ Status: 'SUCCEEDED', EndTimestamp: T0 + 5000 });
    expect(byId(ops, 'w2')?.Status).toBe('STARTED');
    expect(byId(ops, 's1')?.Status).toBe('READY');
    expect(byId(await memory.loadOperations(runId), 'w1')?.Status).toBe('STARTED');
    expect(store.commits).toHaveLength(commits);
  });
});

describe('EngineSession.checkpoint', () => {
  it('writes a batch of updates in one store commit and returns the changed operations', async () => {
    const { startAndOpen, store, memory } = setup();
    const { runId, session } = await startAndOpen();
    const before = store.commits.length;
    const changed = await session.checkpoint([stepStart('s1'), stepSucceed('s1', '"r"'), waitStart('w1', 3)]);
    expect(store.commits.length - before).toBe(1);
    expect(
      store.commits
        .at(-1)
        ?.operations.map((op) => op.Id)
        .sort(),
    ).toEqual(['s1', 'w1']);
    expect(changed.map((op) => op.Id).sort()).toEqual(['s1', 'w1']);
    expect(byId(changed, 's1')).toMatchObject({ Status: 'SUCCEEDED', StepDetails: { Attempt: 1, Result: '"r"' } });
    expect(byId(await memory.loadOperations(runId), 's1')?.Status).toBe('SUCCEEDED');
    expect(byId(session.operations, 'w1')?.WaitDetails?.ScheduledEndTimestamp).toBe(T0 + 3000);
  });

  it('a rejected update writes none of its batch', async () => {
    const { startAndOpen, store, snapshot } = setup();
    const { runId, session } = await startAndOpen();
    await session.checkpoint([waitStart('w0', 10)]);
    const before = await snapshot(runId);
    const commits = store.commits.length;
    const seen = session.operations;

    const error = await failure(session.checkpoint([stepStart('s1'), stepSucceed('s1', '1'), waitStart('bad', 0)]));
    expect(error).toBeInstanceOf(CheckpointRejectedError);
    expect((error as CheckpointRejectedError).operationId).toBe('bad');
    expect(store.commits).toHaveLength(commits);
    expect(await snapshot(runId)).toEqual(before);
    expect(session.operations).toEqual(seen);

    // The session is still usable, and the refused batch left no trace.
    const [op] = await session.checkpoint([stepStart('s1')]);
    expect(op).toMatchObject({ Status: 'STARTED', StepDetails: { Attempt: 1 } });
  });

  it('validates against the run: a parent created earlier in the same batch counts', async () => {
    const { startAndOpen } = setup();
    const { session } = await startAndOpen();
    const ctx: OperationUpdate = { Id: 'c1', Type: 'CONTEXT', Action: 'START' };
    const child: OperationUpdate = { ...stepStart('c1-s1'), ParentId: 'c1' };
    const changed = await session.checkpoint([ctx, child]);
    expect(byId(changed, 'c1-s1')?.ParentId).toBe('c1');
    await expect(session.checkpoint([{ ...stepStart('x'), ParentId: 'nope' }])).rejects.toBeInstanceOf(
      CheckpointRejectedError,
    );
  });

  it('enforces the engine maxPayloadBytes', async () => {
    const { startAndOpen } = setup({ maxPayloadBytes: 8 });
    const { session } = await startAndOpen();
    await expect(session.checkpoint([stepSucceed('s1', '"123456"')])).resolves.toHaveLength(1);
    await expect(session.checkpoint([stepSucceed('s2', '"1234567"')])).rejects.toBeInstanceOf(CheckpointRejectedError);
  });
});

describe('Engine.open (the Lambda entry)', () => {
  const lambdaContext = (requestId: string) => ({
    awsRequestId: requestId,
    functionName: 'fn',
    getRemainingTimeInMillis: () => REMAINING_MS,
  });

  it('a plain event starts a run keyed by the request id and opens it', async () => {
    const { engine, wakes, memory } = setup();
    const result = await engine.open({ orderId: 7 }, lambdaContext('req-1'));
    expect(result.opened).toBeDefined();
    const invocation = result.opened!.invocation;
    expect(invocation.runId).toBe(runIdFor('req-1'));
    expect(invocation.input).toBe('{"orderId":7}');
    expect(invocation.remainingTimeMs()).toBe(REMAINING_MS);
    expect((await memory.getRun(invocation.runId))?.runKey).toBe('req-1');
    expect(wakes).toEqual([{ runId: invocation.runId, functionName: 'fn', at: T0 + LEASE_MS, reason: 'lease' }]);
  });

  it('a duplicate delivery with the same request id does not start a second run', async () => {
    const { engine, memory, snapshot } = setup();
    const first = await engine.open({ orderId: 7 }, lambdaContext('req-1'));
    const runId = first.opened!.invocation.runId;
    const before = await snapshot(runId);
    const duplicate = await engine.open({ orderId: 7 }, lambdaContext('req-1'));
    expect(duplicate.opened).toBeUndefined();
    expect(duplicate).toMatchObject({ response: { Status: 'PENDING', runId } });
    expect(memory.runIds()).toEqual([runId]);
    expect(await snapshot(runId)).toEqual(before);
  });

  it('a duplicate delivery after the run finished returns its outcome', async () => {
    const { engine } = setup();
    const first = await engine.open({ orderId: 7 }, lambdaContext('req-1'));
    await first.opened!.close({ Status: 'SUCCEEDED', Result: '"done"' });
    const duplicate = await engine.open({ orderId: 7 }, lambdaContext('req-1'));
    expect(duplicate.opened).toBeUndefined();
    expect(duplicate).toMatchObject({
      response: { Status: 'SUCCEEDED', runId: first.opened!.invocation.runId, Result: '"done"' },
    });
  });

  it('different request ids start different runs', async () => {
    const { engine, memory } = setup();
    await engine.open({ orderId: 7 }, lambdaContext('req-1'));
    await engine.open({ orderId: 7 }, lambdaContext('req-2'));
    expect(memory.runIds()).toHaveLength(2);
  });

  it('a wake event opens the run it names', async () => {
    const { engine, clock, memory } = setup();
    const first = await engine.open({ orderId: 7 }, lambdaContext('req-1'));
    const runId = first.opened!.invocation.runId;
    await first.opened!.invocation.checkpoint([waitStart('w1', 30)]);
    await first.opened!.close({ Status: 'PENDING' });

    clock.t = T0 + 30_000;
    const event = wakeEvent(runId);
    expect(isWakeEvent(event)).toBe(true);
    const woken = await engine.open(event, { awsRequestId: 'req-wake', getRemainingTimeInMillis: () => 1000 });
    expect(woken.opened?.invocation.runId).toBe(runId);
    expect(byId(woken.opened!.invocation.operations, 'w1')?.Status).toBe('SUCCEEDED');
    expect(memory.runIds()).toEqual([runId]);
  });

  it('a wake event for an unknown run opens nothing', async () => {
    const { engine, memory } = setup();
    const result = await engine.open(wakeEvent('rmissing'), { functionName: 'fn' });
    expect(result.opened).toBeUndefined();
    expect(result).toMatchObject({ response: { Status: 'NOT_FOUND', runId: 'rmissing' } });
    expect(memory.runIds()).toEqual([]);
  });

  it('a plain event without context.functionName is a clear error and starts nothing', async () => {
    const { engine, memory } = setup();
    const error = await failure(engine.open({ orderId: 7 }, { awsRequestId: 'req-1' }));
    expect(error).toBeInstanceOf(EngineInputError);
    expect((error as EngineInputError).field).toBe('context.functionName');
    expect((error as Error).message).toMatch(/functionName/);
    expect(memory.runIds()).toEqual([]);
  });
});
