import { dueAtOf, MemoryStore, type RunRecord } from '@durable-lambda/engine';
import { FencedError, type Operation } from '@durable-lambda/protocol';
import { describe, expect, it } from 'vitest';
import { runRecord as conformanceRunRecord, T0 } from '../store-conformance/conformance';

function setup() {
  const clock = { t: T0, now: () => clock.t };
  const store = new MemoryStore(clock);
  return { clock, store };
}

/** The conformance suites' run record, as `run1` (the only run most tests here need). */
const runRecord = (overrides: Partial<RunRecord> = {}): RunRecord => conformanceRunRecord('run1', overrides);

const execution = (): Operation => ({
  Id: '0',
  Type: 'EXECUTION',
  Status: 'STARTED',
  StartTimestamp: T0,
  ExecutionDetails: { InputPayload: '{"n":1}' },
});

const stepOp = (id: string, result: string): Operation => ({
  Id: id,
  Type: 'STEP',
  Status: 'SUCCEEDED',
  StartTimestamp: T0,
  EndTimestamp: T0,
  StepDetails: { Attempt: 1, Result: result },
});

/** A store with run1 created and leased once (fence 1). */
async function leased() {
  const ctx = setup();
  await ctx.store.createRun(runRecord(), execution());
  const grant = await ctx.store.acquireLease('run1', T0, T0 + 1000, 'token');
  if (!grant) throw new Error('lease not granted');
  return { ...ctx, fence: grant.run.fence };
}

describe('MemoryStore: createRun', () => {
  it('creates a run with its EXECUTION operation once; a second create returns the stored run', async () => {
    const { store } = setup();
    const first = await store.createRun(runRecord(), execution());
    expect(first.created).toBe(true);
    // The store adds the due-index key: a new run is due at once.
    expect(first.run).toEqual({ ...runRecord(), dueAt: dueAtOf(runRecord()) });
    const second = await store.createRun(runRecord({ input: '"other"', createdAt: T0 + 5 }), execution());
    expect(second.created).toBe(false);
    expect(second.run.input).toBe('{"n":1}');
    expect(second.run.createdAt).toBe(T0);
    expect(await store.loadOperations('run1')).toEqual([execution()]);
    expect(store.runIds()).toEqual(['run1']);
  });

  it('re-creates a run whose retention has passed', async () => {
    const { store, clock } = setup();
    await store.createRun(runRecord({ expiresAt: T0 + 100 }), execution());
    clock.t = T0 + 100;
    const again = await store.createRun(runRecord({ input: '"fresh"' }), execution());
    expect(again.created).toBe(true);
    expect((await store.getRun('run1'))?.input).toBe('"fresh"');
  });
});

describe('MemoryStore: copies in and out', () => {
  it('mutating the run passed to createRun does not change the store', async () => {
    const { store } = setup();
    const run = runRecord();
    const exec = execution();
    await store.createRun(run, exec);
    run.status = 'FAILED';
    run.fence = 99;
    exec.Status = 'FAILED';
    expect((await store.getRun('run1'))?.status).toBe('RUNNING');
    expect((await store.getRun('run1'))?.fence).toBe(0);
    expect((await store.loadOperations('run1'))[0]?.Status).toBe('STARTED');
  });

  it('mutating a returned run does not change the store', async () => {
    const { store } = setup();
    const created = await store.createRun(runRecord(), execution());
    created.run.status = 'FAILED';
    const got = await store.getRun('run1');
    got!.fence = 42;
    got!.status = 'STOPPED';
    const grant = await store.acquireLease('run1', T0, T0 + 1000, 'token');
    expect(grant?.run.fence).toBe(1);
    grant!.run.fence = 77;
    grant!.run.leaseExpiresAt = undefined;
    const after = await store.getRun('run1');
    expect(after?.status).toBe('RUNNING');
    expect(after?.fence).toBe(1);
    expect(after?.leaseExpiresAt).toBe(T0 + 1000);
  });

  it('mutating returned operations does not change the store', async () => {
    const { store, fence } = await leased();
    await store.commit('run1', fence, { operations: [stepOp('s1', '"a"')] });
    const ops = await store.loadOperations('run1');
    ops[1]!.StepDetails!.Result = '"tampered"';
    ops[1]!.Status = 'FAILED';
    ops.pop();
    const again = await store.loadOperations('run1');
    expect(again).toHaveLength(2);
    expect(again[1]).toEqual(stepOp('s1', '"a"'));
  });

  it('mutating committed operations afterwards does not change the store', async () => {
    const { store, fence } = await leased();
    const op = stepOp('s1', '"a"');
    await store.commit('run1', fence, { operations: [op] });
    op.StepDetails!.Result = '"tampered"';
    expect((await store.loadOperations('run1'))[1]?.StepDetails?.Result).toBe('"a"');
  });

  it('mutating a committed run patch afterwards does not change the store', async () => {
    const { store, fence } = await leased();
    const error = { ErrorType: 'Error', ErrorMessage: 'original' };
    await store.commit('run1', fence, { operations: [], run: { status: 'FAILED', error } });
    error.ErrorMessage = 'tampered';
    expect((await store.getRun('run1'))?.error?.ErrorMessage).toBe('original');
  });
});

describe('MemoryStore: retention', () => {
  it('a run whose expiresAt has been reached is invisible to getRun, loadOperations and acquireLease', async () => {
    const { store, clock } = setup();
    await store.createRun(runRecord({ expiresAt: T0 + 1000 }), execution());
    clock.t = T0 + 999;
    expect(await store.getRun('run1')).toBeDefined();
    expect(await store.loadOperations('run1')).toHaveLength(1);

    clock.t = T0 + 1000;
    expect(await store.getRun('run1')).toBeUndefined();
    expect(await store.loadOperations('run1')).toEqual([]);
    expect(await store.acquireLease('run1', clock.t, clock.t + 1000, 'token')).toBeUndefined();
  });

  it('commit to an expired run is fenced', async () => {
    const { store, clock, fence } = await leased();
    await store.commit('run1', fence, { operations: [], run: { expiresAt: T0 + 10 } });
    clock.t = T0 + 10;
    await expect(store.commit('run1', fence, { operations: [stepOp('s1', '1')] })).rejects.toBeInstanceOf(FencedError);
  });

  it('unknown runs read as absent', async () => {
    const { store } = setup();
    expect(await store.getRun('nope')).toBeUndefined();
    expect(await store.loadOperations('nope')).toEqual([]);
    expect(await store.acquireLease('nope', T0, T0 + 1, 'token')).toBeUndefined();
  });
});

describe('MemoryStore: fenced commit', () => {
  it('writes operations and the run patch together under the current fence', async () => {
    const { store, clock, fence } = await leased();
    clock.t = T0 + 50;
    await store.commit('run1', fence, { operations: [stepOp('s1', '1')], run: { nextWakeAt: T0 + 500 } });
    expect((await store.loadOperations('run1')).map((op) => op.Id)).toEqual(['0', 's1']);
    const run = await store.getRun('run1');
    expect(run?.nextWakeAt).toBe(T0 + 500);
    expect(run?.updatedAt).toBe(T0 + 50);
  });

  it('a commit with a stale fence throws FencedError and writes nothing', async () => {
    const { store, clock, fence } = await leased();
    clock.t = T0 + 2000;
    const second = await store.acquireLease('run1', clock.t, clock.t + 1000, 'token');
    expect(second?.run.fence).toBe(fence + 1);
    const runBefore = await store.getRun('run1');
    const opsBefore = await store.loadOperations('run1');

    clock.t = T0 + 2500;
    const attempt = store.commit('run1', fence, {
      operations: [stepOp('s1', '"stale"')],
      run: { status: 'SUCCEEDED', result: '"stale"', leaseExpiresAt: null },
    });
    await expect(attempt).rejects.toBeInstanceOf(FencedError);
    await expect(attempt).rejects.toMatchObject({ code: 'fenced' });
    expect(await store.getRun('run1')).toEqual(runBefore);
    expect(await store.loadOperations('run1')).toEqual(opsBefore);
  });

  it('a commit with a fence from the future is fenced too', async () => {
    const { store, fence } = await leased();
    await expect(store.commit('run1', fence + 1, { operations: [] })).rejects.toBeInstanceOf(FencedError);
  });

  it('a commit to an unknown run is fenced', async () => {
    const { store } = setup();
    await expect(store.commit('nope', 0, { operations: [] })).rejects.toBeInstanceOf(FencedError);
    expect(store.runIds()).toEqual([]);
  });

  it('replaces an operation in place, keeping creation order', async () => {
    const { store, fence } = await leased();
    await store.commit('run1', fence, { operations: [stepOp('s1', '1'), stepOp('s2', '2')] });
    await store.commit('run1', fence, { operations: [stepOp('s1', '"one"')] });
    const ops = await store.loadOperations('run1');
    expect(ops.map((op) => op.Id)).toEqual(['0', 's1', 's2']);
    expect(ops[1]?.StepDetails?.Result).toBe('"one"');
  });
});

describe('MemoryStore: run patches', () => {
  it('null deletes a field, undefined leaves it, a value sets it', async () => {
    const { store, fence } = await leased();
    expect((await store.getRun('run1'))?.leaseExpiresAt).toBe(T0 + 1000);
    await store.commit('run1', fence, {
      operations: [],
      run: { leaseExpiresAt: null, nextWakeAt: undefined, result: '"r"' },
    });
    const run = await store.getRun('run1');
    expect(run).not.toHaveProperty('leaseExpiresAt');
    expect(run?.nextWakeAt).toBe(T0);
    expect(run?.result).toBe('"r"');
  });
});

describe('MemoryStore: acquireLease', () => {
  it('grants a free lease: fence and invocations grow by one, the lease lasts until leaseExpiresAt', async () => {
    const { store } = setup();
    await store.createRun(runRecord(), execution());
    const grant = await store.acquireLease('run1', T0 + 5, T0 + 1000, 'token');
    expect(grant?.previousLost).toBe(false);
    expect(grant?.run).toMatchObject({ fence: 1, invocations: 1, lostInvocations: 0, leaseExpiresAt: T0 + 1000 });
    expect(grant?.run.updatedAt).toBe(T0 + 5);
    expect(await store.getRun('run1')).toEqual(grant?.run);
  });

  it('refuses while the lease is held, without changing the run', async () => {
    const { store } = await leased();
    const before = await store.getRun('run1');
    expect(await store.acquireLease('run1', T0 + 999, T0 + 5000, 'token')).toBeUndefined();
    expect(await store.getRun('run1')).toEqual(before);
  });

  it('takes over a lapsed lease and counts the lost invocation', async () => {
    const { store } = await leased();
    const grant = await store.acquireLease('run1', T0 + 1000, T0 + 3000, 'token');
    expect(grant?.previousLost).toBe(true);
    expect(grant?.run).toMatchObject({ fence: 2, invocations: 2, lostInvocations: 1, leaseExpiresAt: T0 + 3000 });
  });

  it('does not count a released lease as lost', async () => {
    const { store, fence } = await leased();
    await store.commit('run1', fence, { operations: [], run: { leaseExpiresAt: null } });
    const grant = await store.acquireLease('run1', T0 + 10, T0 + 2000, 'token');
    expect(grant?.previousLost).toBe(false);
    expect(grant?.run).toMatchObject({ fence: 2, invocations: 2, lostInvocations: 0 });
  });

  it('counts across a sequence of clean and lost invocations', async () => {
    const { store } = setup();
    await store.createRun(runRecord(), execution());
    let t = T0;
    // lost, clean, lost, lost, clean
    const lostPattern = [true, false, true, true, false];
    for (const lost of lostPattern) {
      const grant = await store.acquireLease('run1', t, t + 100, 'token');
      if (!grant) throw new Error('lease not granted');
      if (lost) t += 100;
      else await store.commit('run1', grant.run.fence, { operations: [], run: { leaseExpiresAt: null } });
    }
    const final = await store.acquireLease('run1', t, t + 100, 'token');
    // Invocations 1..5 held the lease before; the losses are 1, 3 and 4.
    expect(final?.run).toMatchObject({ fence: 6, invocations: 6, lostInvocations: 3 });
    expect(final?.previousLost).toBe(false);
  });

  it('refuses a run that is not RUNNING', async () => {
    const { store, fence } = await leased();
    await store.commit('run1', fence, { operations: [], run: { status: 'SUCCEEDED', leaseExpiresAt: null } });
    expect(await store.acquireLease('run1', T0 + 5000, T0 + 6000, 'token')).toBeUndefined();
    expect((await store.getRun('run1'))?.fence).toBe(fence);
  });
});
