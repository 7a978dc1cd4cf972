/**
 * "Wake now" (`POST /v1/runs/{runId}/wake`, `Engine.wakeRun`): a pending durable wait ends at
 * once and a retry's backoff is skipped (the next attempt is due now), the run is woken, and a
 * lost wake-up is left to the reconciler; nothing that waits on time is refused with a stable
 * code; a write that lost a race with an invocation changes nothing. On a real engine and
 * MemoryStore with a virtual clock: the clock never moves, so only the wake ends the wait.
 */
import { randomUUID } from 'node:crypto';
import { Engine, MemoryStore, type Store } from '@durable-lambda/engine';
import { VirtualClock } from '@durable-lambda/local';
import { RetryAfterError } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';
import { NothingToWakeError, RunBusyError } from '../../packages/engine/src/wake-now';
import { ApiFixture, durable, runWaitingOnCallback } from './support';

const waiter = durable(async (_event, ctx) => {
  const before = await ctx.step('before', async () => 'ready');
  await ctx.wait('two-days', { days: 2 });
  return { before, after: await ctx.step('after', async () => 'done') };
});

let attempts = 0;
const backingOff = durable(async (_event, ctx) =>
  ctx.step('charge', async (step) => {
    attempts++;
    if (step.attempt === 1) throw new RetryAfterError('rate limited', { hours: 1 });
    return { attempt: step.attempt };
  }),
);

const post = (f: ApiFixture, runId: string, body?: unknown, key: string = randomUUID()) =>
  f.call('POST', `/v1/runs/${runId}/wake`, {
    headers: { 'idempotency-key': key },
    ...(body === undefined ? {} : { body }),
  });

describe('POST /v1/runs/{runId}/wake', () => {
  it('ends a pending durable wait now and wakes the run, which then finishes without the clock moving', async () => {
    const f = new ApiFixture();
    const runId = await f.start('fn');
    await f.drive(runId, waiter);
    const before = f.clock.now();
    const wait = (await f.engine.getOperations(runId)).find((op) => op.Name === 'two-days');
    expect(wait?.Status).toBe('STARTED');
    f.wakeUps.length = 0;

    const answer = await post(f, runId);
    expect(answer.status).toBe(200);
    expect(answer.json.woken).toEqual([
      {
        operationId: wait?.Id,
        name: 'two-days',
        kind: 'wait',
        dueAt: new Date(wait?.WaitDetails?.ScheduledEndTimestamp as number).toISOString(),
      },
    ]);
    expect(answer.json.run).toMatchObject({ runId, status: 'RUNNING' });
    // Woken now, and in the due index so a lost wake-up is found again.
    expect(f.wakeUps).toEqual([{ runId, functionName: 'fn', at: before, reason: 'event' }]);
    expect((await f.store.findDueRuns(before, 10)).map((d) => d.runId)).toContain(runId);

    await f.drive(runId, waiter);
    expect(f.clock.now()).toBe(before);
    expect(await f.engine.getRun(runId)).toMatchObject({ status: 'SUCCEEDED' });
    const history = await f.call('GET', `/v1/runs/${runId}/operations`);
    expect(history.json.operations.find((op: { name?: string }) => op.name === 'two-days')).toMatchObject({
      status: 'SUCCEEDED',
      endedEarly: true,
      endedAt: new Date(before).toISOString(),
    });
  });

  it("skips a retry's backoff: the step's next attempt runs now", async () => {
    const f = new ApiFixture();
    attempts = 0;
    const runId = await f.start('fn');
    await f.drive(runId, backingOff);
    const step = (await f.engine.getOperations(runId)).find((op) => op.Name === 'charge');
    expect(step).toMatchObject({ Status: 'PENDING', StepDetails: { Attempt: 1 } });
    const now = f.clock.now();
    expect(step?.StepDetails?.NextAttemptTimestamp).toBe(now + 3_600_000);

    const answer = await post(f, runId);
    expect(answer.status).toBe(200);
    expect(answer.json.woken).toMatchObject([{ name: 'charge', kind: 'retry' }]);
    await f.drive(runId, backingOff);
    expect(f.clock.now()).toBe(now);
    expect(await f.engine.getRun(runId)).toMatchObject({ status: 'SUCCEEDED', result: JSON.stringify({ attempt: 2 }) });
    expect(attempts).toBe(2);
  });

  it('refuses with a stable code when nothing waits on time, and names what the run waits for', async () => {
    const f = new ApiFixture();
    const { runId, callbackId } = await runWaitingOnCallback(f);
    const refused = await post(f, runId);
    expect(refused.status).toBe(409);
    expect(refused.json.error.code).toBe('nothing_to_wake');
    expect(refused.json.error.message).toContain('callback "approval"');

    const unknownOp = await post(f, runId, { operationId: '99' });
    expect(unknownOp.json.error).toMatchObject({
      code: 'nothing_to_wake',
      message: expect.stringContaining('no operation 99'),
    });
    const badBody = await post(f, runId, { operationId: 5 });
    expect(badBody.status).toBe(400);
    expect(badBody.json.error).toMatchObject({
      code: 'invalid_argument',
      message: expect.stringMatching(/^operationId:/),
    });
    const extra = await post(f, runId, { when: 'now' });
    expect(extra.json.error).toMatchObject({ code: 'invalid_argument', message: expect.stringMatching(/^when:/) });

    await f.engine.sendCallbackSuccess(callbackId, '"ok"');
    const ops = await f.engine.getOperations(runId);
    expect(ops.find((op) => op.Type === 'CALLBACK')?.Status).toBe('SUCCEEDED');
    const missing = await post(f, 'r-missing');
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe('run_not_found');
  });

  it('refuses a run that is not RUNNING with run_state_conflict', async () => {
    const f = new ApiFixture();
    const runId = await f.start('fn');
    await f.drive(runId, waiter);
    await f.engine.cancelRun(runId);
    const refused = await post(f, runId);
    expect(refused.status).toBe(409);
    expect(refused.json.error.code).toBe('run_state_conflict');
  });

  it('answers a repeated Idempotency-Key with the first answer and writes nothing again', async () => {
    const f = new ApiFixture();
    const runId = await f.start('fn');
    await f.drive(runId, waiter);
    const key = randomUUID();
    const first = await post(f, runId, undefined, key);
    const fenceAfter = (await f.engine.getRun(runId))?.fence;
    const again = await post(f, runId, undefined, key);
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json).toEqual(first.json);
    expect((await f.engine.getRun(runId))?.fence).toBe(fenceAfter);
    // A new request finds nothing left to wake.
    expect((await post(f, runId)).json.error.code).toBe('nothing_to_wake');
  });

  it('wakes only the operation asked for', async () => {
    const f = new ApiFixture();
    const twoWaits = durable(async (_event, ctx) => {
      await ctx.parallel('both', [(c) => c.wait('short', { hours: 1 }), (c) => c.wait('long', { days: 3 })]);
      return 'done';
    });
    const runId = await f.start('fn');
    await f.drive(runId, twoWaits);
    const ops = await f.engine.getOperations(runId);
    const long = ops.find((op) => op.Name === 'long');
    const answer = await post(f, runId, { operationId: long?.Id });
    expect(answer.json.woken.map((w: { name: string }) => w.name)).toEqual(['long']);
    const after = await f.engine.getOperations(runId);
    expect(after.find((op) => op.Name === 'long')?.Status).toBe('SUCCEEDED');
    expect(after.find((op) => op.Name === 'short')?.Status).toBe('STARTED');
  });
});

describe('Engine.wakeRun under faults and races', () => {
  it('leaves a lost wake-up to the reconciler: the run is due and the next pass wakes it', async () => {
    const clock = new VirtualClock(Date.UTC(2026, 0, 1));
    const store = new MemoryStore(clock);
    const woken: string[] = [];
    let failWakes = true;
    const engine = new Engine({
      store,
      clock,
      waker: {
        wakeAt: async (w) => {
          if (failWakes && w.reason !== 'lease') throw new Error('throttled');
          woken.push(`${w.reason}:${w.runId}`);
        },
      },
      reconcileGraceMs: 0,
    });
    const { run } = await engine.startRun({ functionName: 'fn' });
    const session = await engine.openRun(run.runId);
    const { getDurableEntry, finishOpened } = await import('@durable-lambda/sdk');
    const result = await getDurableEntry(waiter).execute(
      session as never,
      { functionName: 'fn' },
      { inProcessWaitMs: 0 },
    );
    await finishOpened(session as never, result);

    const report = await engine.wakeRun(run.runId);
    expect(report.woken.map((w) => w.kind)).toEqual(['wait']);
    failWakes = false;
    const pass = await engine.reconcile();
    expect(pass.woken).toContainEqual(expect.objectContaining({ runId: run.runId }));
    expect(woken).toContain(`reconcile:${run.runId}`);
  });

  it('writes nothing when an invocation took the run between the read and the write, and says the run is busy', async () => {
    const clock = new VirtualClock(Date.UTC(2026, 0, 1));
    const memory = new MemoryStore(clock);
    let raceOnce = false;
    // Between the wake's read of the run and its write, an invocation takes the lease.
    const store: Store = new Proxy(memory, {
      get(target, name, receiver) {
        if (name === 'loadOperations') {
          return async (runId: string) => {
            const ops = await target.loadOperations(runId);
            if (raceOnce) {
              raceOnce = false;
              await target.acquireLease(runId, clock.now(), clock.now() + 60_000, 'racer');
            }
            return ops;
          };
        }
        const value = Reflect.get(target, name, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const engine = new Engine({ store, clock, waker: { wakeAt: async () => {} } });
    const { run } = await engine.startRun({ functionName: 'fn' });
    const session = await engine.openRun(run.runId);
    const { getDurableEntry, finishOpened } = await import('@durable-lambda/sdk');
    attempts = 0;
    const result = await getDurableEntry(backingOff).execute(
      session as never,
      { functionName: 'fn' },
      {
        inProcessWaitMs: 0,
        logSink: () => {},
      },
    );
    await finishOpened(session as never, result);
    const before = (await memory.loadOperations(run.runId)).find((op) => op.Name === 'charge');
    expect(before?.Status).toBe('PENDING');

    raceOnce = true;
    await expect(engine.wakeRun(run.runId)).rejects.toBeInstanceOf(RunBusyError);
    // The step stands as the invocation left it: its backoff was not cut under it.
    expect((await memory.loadOperations(run.runId)).find((op) => op.Name === 'charge')).toEqual(before);
  });

  it('throws NothingToWakeError (code nothing_to_wake) for a run with nothing on time', async () => {
    const f = new ApiFixture();
    const { runId } = await runWaitingOnCallback(f);
    const error = await f.engine.wakeRun(runId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NothingToWakeError);
    expect((error as NothingToWakeError).code).toBe('nothing_to_wake');
  });
});
