import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  FunctionNotFoundError,
  InProcessInvoker,
  LocalRuntime,
  type LocalRuntimeOptions,
  SqliteStore,
} from '@durable-lambda/local';
import { type DurableLambdaHandler, getDurableEntry, StepSemantics, withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, afterEach, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'durable-local-runtime-'));
let files = 0;
const cleanup: Array<() => void | Promise<void>> = [];

afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const quiet = { logSink: () => {} };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(probe: () => Promise<T | undefined | false>, timeoutMs = 5_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(10);
  }
}

function openStore(path = join(dir, `runtime-${++files}.sqlite`)) {
  const store = new SqliteStore({ path });
  cleanup.push(() => store.close());
  return { store, path };
}

function runtimeOn(
  store: SqliteStore,
  functions: Record<string, DurableLambdaHandler>,
  options: Partial<LocalRuntimeOptions> = {},
) {
  const errors: unknown[] = [];
  const runtime = new LocalRuntime({
    store,
    functions: new Map(Object.entries(functions)),
    overrides: quiet,
    onError: (error) => errors.push(error),
    ...options,
  });
  cleanup.push(() => runtime.stop());
  return { runtime, errors };
}

describe('LocalRuntime', () => {
  it('runs a workflow with a 1-second wait to completion on the real clock', async () => {
    const workflow = withDurableExecution(async (event: { n: number }, ctx) => {
      const doubled = await ctx.step('double', async () => event.n * 2);
      await ctx.wait('pause', { seconds: 1 });
      return { doubled };
    });
    const { store } = openStore();
    const { runtime, errors } = runtimeOn(store, { workflow });
    await runtime.start();
    const started = Date.now();
    const run = await runtime.startRun('workflow', { n: 21 });
    const done = await runtime.waitForRun(run.runId, { timeoutMs: 5_000 });
    const elapsed = Date.now() - started;
    expect(done).toMatchObject({ status: 'SUCCEEDED', result: JSON.stringify({ doubled: 42 }) });
    expect(elapsed).toBeGreaterThanOrEqual(1_000);
    expect(elapsed).toBeLessThan(3_000);
    const ops = await runtime.engine.getOperations(run.runId);
    expect(ops.map((op) => [op.Type, op.Status])).toEqual([
      ['EXECUTION', 'SUCCEEDED'],
      ['STEP', 'SUCCEEDED'],
      ['WAIT', 'SUCCEEDED'],
    ]);
    expect(errors).toEqual([]);
    // The lease's safety wake-up is withdrawn at close, the fired ones forgotten.
    await runtime.stop();
    expect(store.wakeUps.list()).toEqual([]);
  });

  it('resumes a run waiting for a callback once it is completed through the engine', async () => {
    const approval = withDurableExecution(async (_event, ctx) => {
      const [answer, callbackId] = await ctx.createCallback<string>('approval', { timeout: { minutes: 5 } });
      return { answer: await answer, callbackId };
    });
    const { store } = openStore();
    const { runtime, errors } = runtimeOn(store, { approval });
    await runtime.start();
    const run = await runtime.startRun('approval', {});
    const callbackId = await until(async () => {
      const current = await runtime.engine.getRun(run.runId);
      const op = (await runtime.engine.getOperations(run.runId)).find((o) => o.Type === 'CALLBACK');
      return current?.leaseExpiresAt === undefined && op?.CallbackDetails?.CallbackId;
    });
    expect((await runtime.engine.getRun(run.runId))?.status).toBe('RUNNING');
    await runtime.engine.sendCallbackSuccess(callbackId, 'approved');
    const done = await runtime.waitForRun(run.runId, { timeoutMs: 5_000 });
    expect(done.status).toBe('SUCCEEDED');
    expect(JSON.parse(done.result as string)).toEqual({ answer: 'approved', callbackId });
    expect(done.invocations).toBe(2);
    expect(errors).toEqual([]);
  });

  it('runs a child run started by invoke, and resumes the parent with its result', async () => {
    const square = withDurableExecution(async (event: { x: number }, ctx) =>
      ctx.step('square', async () => event.x ** 2),
    );
    const parent = withDurableExecution(async (event: { x: number }, ctx) => {
      const squared = await ctx.invoke<{ x: number }, number>('call-square', 'square', { x: event.x });
      return { squared };
    });
    const { store } = openStore();
    const { runtime, errors } = runtimeOn(store, { parent, square });
    await runtime.start();
    const run = await runtime.startRun('parent', { x: 7 });
    const done = await runtime.waitForRun(run.runId, { timeoutMs: 5_000 });
    expect(done).toMatchObject({ status: 'SUCCEEDED', result: JSON.stringify({ squared: 49 }) });
    const children = await runtime.engine.listRuns({ functionName: 'square' });
    expect(children.runs).toHaveLength(1);
    expect(children.runs[0]).toMatchObject({
      status: 'SUCCEEDED',
      result: '49',
      parent: { runId: run.runId, operationId: '1' },
    });
    expect(errors).toEqual([]);
  });

  it('resumes a run after a restart: stopped during a 2-second wait, started anew on the same file', async () => {
    const napper = withDurableExecution(
      async (_event, ctx) => {
        const before = await ctx.step('before', async () => Date.now());
        await ctx.wait('nap', { seconds: 2 });
        const after = await ctx.step('after', async () => Date.now());
        return { slept: after - before };
      },
      // Suspend on every wait, as a longer one would: the wait outlives the first process.
      { inProcessWaitMs: 0 },
    );
    const { store, path } = openStore();
    const first = runtimeOn(store, { napper });
    await first.runtime.start();
    const run = await first.runtime.startRun('napper', {});
    await until(async () => {
      const current = await store.getRun(run.runId);
      return current?.leaseExpiresAt === undefined && current?.nextWakeAt !== undefined && current.invocations === 1;
    });
    await first.runtime.stop();
    store.close();
    await sleep(100);

    const { store: reopened } = openStore(path);
    expect(reopened.wakeUps.list()).toEqual([
      expect.objectContaining({ runId: run.runId, reason: 'due', functionName: 'napper' }),
    ]);
    const second = runtimeOn(reopened, { napper });
    await second.runtime.start();
    const done = await second.runtime.waitForRun(run.runId, { timeoutMs: 5_000 });
    expect(done.status).toBe('SUCCEEDED');
    expect(JSON.parse(done.result as string).slept).toBeGreaterThanOrEqual(2_000);
    expect(done).toMatchObject({ invocations: 2, lostInvocations: 0 });
    expect([...first.errors, ...second.errors]).toEqual([]);
  });

  it('reclaims the lease of a dead process at start: the run lost mid-step resumes at once, with invocation_lost', async () => {
    const fragile = withDurableExecution(async (_event, ctx) => {
      try {
        await ctx.step(
          'charge',
          async () => {
            await new Promise(() => {}); // the process dies here
            return 'charged';
          },
          { semantics: StepSemantics.AtMostOncePerRetry, retry: { maxAttempts: 1 } },
        );
        return { outcome: 'charged' };
      } catch (error) {
        return { outcome: 'lost', code: (error as { code?: string }).code };
      }
    });
    // The first process: it starts the run and an invocation that never ends, whose lease (15
    // minutes, the default) is held by a process that is gone.
    const { store, path } = openStore();
    const first = runtimeOn(store, { fragile });
    const run = await first.runtime.startRun('fragile', {});
    const session = await first.runtime.engine.openRun(run.runId);
    if (!session) throw new Error('the run did not open');
    void getDurableEntry(fragile).execute(session, { functionName: 'fragile' }, quiet);
    await until(async () => (await store.getOperation(run.runId, '1'))?.Status === 'STARTED');
    expect(store.wakeUps.list()).toContainEqual(expect.objectContaining({ runId: run.runId, reason: 'lease' }));

    const held = await store.getRun(run.runId);
    expect(held?.leaseExpiresAt).toBeGreaterThan(Date.now() + 10 * 60_000);

    // The second process, on the same file: it finishes the run long before the lease would lapse.
    const { store: reopened } = openStore(path);
    const second = runtimeOn(reopened, { fragile });
    await second.runtime.start();
    const done = await second.runtime.waitForRun(run.runId, { timeoutMs: 30_000 });
    expect(done.status).toBe('SUCCEEDED');
    expect(JSON.parse(done.result as string)).toEqual({ outcome: 'lost', code: 'invocation_lost' });
    expect(done).toMatchObject({ invocations: 2, lostInvocations: 1 });
    const step = await reopened.getOperation(run.runId, '1');
    expect(step).toMatchObject({ Status: 'FAILED', StepDetails: { Error: { ErrorCode: 'invocation_lost' } } });
    expect(second.errors).toEqual([]);
  });

  it('refuses to start a run of an unknown function, and reports failures instead of throwing', async () => {
    const { store } = openStore();
    const { runtime, errors } = runtimeOn(store, {});
    await runtime.start();
    await expect(runtime.startRun('nope', {})).rejects.toBeInstanceOf(FunctionNotFoundError);
    // A run of a function this process does not have (started elsewhere) is left alone, reported.
    const { run } = await runtime.engine.startRun({ functionName: 'elsewhere' });
    await runtime.waker.wakeAt({ runId: run.runId, functionName: 'elsewhere', at: Date.now(), reason: 'event' });
    await until(async () => errors.length > 0);
    expect(errors[0]).toBeInstanceOf(FunctionNotFoundError);
    expect((await store.getRun(run.runId))?.status).toBe('RUNNING');
  });

  it('never overlaps invocations of one run: wake-ups during an invocation make one more, after it', async () => {
    let bodies = 0;
    const slow = withDurableExecution(async (_event, ctx) => {
      bodies++;
      await ctx.step('work', async () => sleep(300));
      return 'done';
    });
    const { store } = openStore();
    let leases = 0;
    const acquire = store.acquireLease.bind(store);
    store.acquireLease = (...args) => {
      leases++;
      return acquire(...args);
    };
    const { runtime, errors } = runtimeOn(store, { slow });
    await runtime.start();
    const run = await runtime.startRun('slow', {});
    await until(async () => bodies === 1);
    for (let i = 1; i <= 5; i++) {
      await runtime.waker.wakeAt({ runId: run.runId, functionName: 'slow', at: Date.now() - i, reason: 'event' });
    }
    expect((await runtime.waitForRun(run.runId, { timeoutMs: 5_000 })).status).toBe('SUCCEEDED');
    await runtime.stop();
    expect(leases).toBe(1);
    expect(bodies).toBe(1);
    expect(errors).toEqual([]);
  });
});

describe('InProcessInvoker', () => {
  const handler = withDurableExecution(async () => 'unused');

  it('knows its functions and refuses others at once with function_not_found', async () => {
    const invoker = new InProcessInvoker({ functions: new Map([['known', handler]]), dispatch: async () => {} });
    expect(invoker.knows('known')).toBe(true);
    expect(invoker.knows('other')).toBe(false);
    await expect(invoker.invoke('other', {})).rejects.toMatchObject({ code: 'function_not_found' });
  });

  it('queues a JSON copy of the event and runs it later, never inside the caller; failures are reported', async () => {
    const seen: Array<{ name: string; event: unknown }> = [];
    const errors: unknown[] = [];
    const invoker = new InProcessInvoker({
      functions: new Map([['known', handler]]),
      dispatch: async (name, event) => {
        seen.push({ name, event });
        if ((event as { fail?: boolean }).fail) throw new Error('handler failed');
      },
      onError: (error) => errors.push(error),
    });
    const event = { at: new Date(0), n: 1 };
    await invoker.invoke('known', event);
    await invoker.invoke('known', { fail: true });
    expect(seen).toEqual([]);
    event.n = 2;
    await invoker.idle();
    expect(seen).toEqual([
      { name: 'known', event: { at: '1970-01-01T00:00:00.000Z', n: 1 } },
      { name: 'known', event: { fail: true } },
    ]);
    expect(errors).toHaveLength(1);
  });
});
