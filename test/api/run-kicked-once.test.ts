/**
 * Every control-API route that sets a run in motion does so once. Deployed, the API's waker is an
 * asynchronous invoke of the run's function (the control API's Lambda entry; the dev server's timer
 * waker invokes in-process likewise), and so is its invoker: a route that asked both (the engine's
 * retry wakes the run, then the route invoked it again) cost a second invocation that could only
 * find the run busy or with nothing due. Counted here per run, on a real engine and memory store.
 */
import { createControlApi } from '@durable-lambda/api';
import { Engine, type Invoker, MemoryStore, type WakeEvent, wakeEvent } from '@durable-lambda/engine';
import { VirtualClock } from '@durable-lambda/local';
import {
  type DurableHandler,
  type DurableLambdaHandler,
  finishOpened,
  getDurableEntry,
  withDurableExecution,
} from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

const durable = <E, R>(handler: DurableHandler<E, R>): DurableLambdaHandler =>
  withDurableExecution(handler, { logSink: () => {} });

/** A control API whose waker invokes, as deployed; invocations are counted and never run. */
function deployedShape() {
  const clock = new VirtualClock(Date.UTC(2026, 0, 1));
  const store = new MemoryStore(clock);
  const invoked: string[] = [];
  const invoker: Invoker = {
    invoke: async (_functionName, event) => {
      invoked.push((event as WakeEvent).durableLambda.runId);
    },
  };
  const engine = new Engine({
    store,
    clock,
    invoker,
    waker: { wakeAt: (request) => invoker.invoke(request.functionName, wakeEvent(request.runId)) },
  });
  const api = createControlApi({ engine, functions: ['fn'], invoker });
  const call = async (path: string, body?: unknown) => {
    const answer = await api.handle({
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: answer.status, json: JSON.parse(answer.body) };
  };
  const invocationsOf = (runId: string) => invoked.filter((id) => id === runId).length;
  /** Lambda's `Invoke` of the function, as AWS's SDKs send it to the API. */
  const lambdaInvoke = async () => {
    const answer = await api.handle({
      method: 'POST',
      path: '/2015-03-31/functions/fn/invocations',
      headers: { 'x-amz-invocation-type': 'Event', 'content-type': 'application/json' },
      body: '{"n":2}',
    });
    return answer.status;
  };
  /** Runs one invocation of the run with `handler`, at its wake-up time. */
  const drive = async (runId: string, handler: DurableLambdaHandler) => {
    const run = await engine.getRun(runId);
    if (run?.nextWakeAt !== undefined) clock.advanceTo(run.nextWakeAt);
    const session = await engine.openRun(runId);
    if (!session) throw new Error('nothing to invoke');
    const result = await getDurableEntry(handler).execute(
      session,
      { functionName: 'fn' },
      { inProcessWaitMs: 0, logSink: () => {} },
    );
    await finishOpened(session, result).catch(() => undefined);
  };
  return { call, invocationsOf, drive, engine, lambdaInvoke, invoked };
}

const failing = durable(async (_e, ctx) => {
  await ctx.step(
    'boom',
    async () => {
      throw new Error('gateway down');
    },
    { retry: { maxAttempts: 1 } },
  );
  return 'never';
});

const sleeping = durable(async (_e, ctx) => {
  await ctx.wait('nap', { hours: 1 });
  return 'rested';
});

describe('a route sets a run in motion once', () => {
  it('starts a run with one invoke (POST /v1/runs and Lambda Invoke alike)', async () => {
    const w = deployedShape();
    const started = await w.call('/v1/runs', { function: 'fn', input: { n: 1 } });
    expect(started.status).toBe(201);
    expect(w.invocationsOf(started.json.runId)).toBe(1);
    expect(await w.lambdaInvoke()).toBe(202);
    expect(w.invoked).toHaveLength(2);
    expect(new Set(w.invoked).size).toBe(2);
  });

  it('retries a failed run with one invoke', async () => {
    const w = deployedShape();
    const { json } = await w.call('/v1/runs', { function: 'fn' });
    await w.drive(json.runId, failing);
    const before = w.invocationsOf(json.runId);
    const retried = await w.call(`/v1/runs/${json.runId}/retry`);
    expect(retried).toMatchObject({ status: 200, json: { status: 'RUNNING' } });
    expect(w.invocationsOf(json.runId) - before).toBe(1);
  });

  it('skips a failed step with one invoke', async () => {
    const w = deployedShape();
    const { json } = await w.call('/v1/runs', { function: 'fn' });
    await w.drive(json.runId, failing);
    const before = w.invocationsOf(json.runId);
    const op = (await w.engine.getOperations(json.runId)).find((o) => o.Type === 'STEP');
    const skipped = await w.call(`/v1/runs/${json.runId}/operations/${op?.Id}/skip`, { result: 'fine' });
    expect(skipped).toMatchObject({ status: 200, json: { status: 'RUNNING' } });
    expect(w.invocationsOf(json.runId) - before).toBe(1);
  });

  it('wakes a waiting run now with one invoke', async () => {
    const w = deployedShape();
    const { json } = await w.call('/v1/runs', { function: 'fn' });
    await w.drive(json.runId, sleeping);
    const before = w.invocationsOf(json.runId);
    const woken = await w.call(`/v1/runs/${json.runId}/wake`);
    expect(woken.status).toBe(200);
    expect(w.invocationsOf(json.runId) - before).toBe(1);
  });
});
