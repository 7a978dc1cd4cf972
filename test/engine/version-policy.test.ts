/**
 * The engine's version policy port (`EngineOptions.versions`), on the memory store and without
 * AWS: the name a run starts under, a start found again after its run was pinned, a run recorded
 * on other code handed there unopened (one invoke, no lease), a run pinned at its first lease by
 * the store's `pinRun`, and a run whose pin write failed released unrun. Without a policy nothing
 * of this happens (runs are recorded as asked, opened wherever they are).
 */
import {
  Engine,
  type Invoker,
  MemoryStore,
  RunKeyConflictError,
  type VersionPolicy,
  type WakeEvent,
  type WakeRequest,
} from '@durable-lambda/engine';
import { VirtualClock } from '@durable-lambda/local';
import { describe, expect, it } from 'vitest';

/** `app:<qualifier>`: code of version `running` runs `app:<running>` and pins bare runs there. */
function policyRunning(running: string): VersionPolicy {
  const base = (name: string) => name.split(':')[0] as string;
  const qualifier = (name: string) => name.split(':')[1];
  return {
    nameAtStart: (name, origin) => (origin === 'event' ? `${base(name)}:${running}` : name),
    sameFunction: (recorded, asked) => base(recorded) === base(asked),
    runsElsewhere: (recorded) => {
      const q = qualifier(recorded);
      return q === undefined || q === running ? undefined : recorded;
    },
    pinAtLease: (recorded) => (qualifier(recorded) === undefined ? `${recorded}:${running}` : undefined),
  };
}

function world(versions?: VersionPolicy, store = new MemoryStore(new VirtualClock(Date.UTC(2026, 0, 1)))) {
  const invoked: Array<{ functionName: string; runId: string }> = [];
  const wakes: WakeRequest[] = [];
  const invoker: Invoker = {
    invoke: async (functionName, event) => {
      invoked.push({ functionName, runId: (event as WakeEvent).durableLambda.runId });
    },
  };
  const engine = new Engine({
    store,
    invoker,
    waker: { wakeAt: async (request) => void wakes.push(request) },
    ...(versions ? { versions } : {}),
  });
  return { engine, store, invoked, wakes };
}

describe('the engine enforces the version policy it is given', () => {
  it('records a start event where it runs, and a repeated start finds the run pinned since', async () => {
    const { engine } = world(policyRunning('7'));
    const opened = await engine.open({ n: 1 }, { functionName: 'app', awsRequestId: 'req-1' });
    expect(opened.opened?.functionName).toBe('app:7');
    const again = await engine.startRun({ functionName: 'app', runKey: 'req-1', input: '{"n":1}' });
    expect(again.created).toBe(false);
    expect(again.run.functionName).toBe('app:7');
    await expect(engine.startRun({ functionName: 'other', runKey: 'req-1', input: '{"n":1}' })).rejects.toThrow(
      RunKeyConflictError,
    );
  });

  it('hands a run recorded on other code there with one invoke, without taking its lease', async () => {
    const { engine, store, invoked } = world(policyRunning('8'));
    const { run } = await engine.startRun({ functionName: 'app:7', input: '{}' });
    expect(await engine.openRun(run.runId)).toBeUndefined();
    expect(invoked).toEqual([{ functionName: 'app:7', runId: run.runId }]);
    const stored = await store.getRun(run.runId);
    expect(stored?.leaseToken).toBeUndefined();
    expect(stored?.fence).toBe(run.fence);
  });

  it('pins a run not pinned yet at its first lease', async () => {
    const { engine, store, invoked } = world(policyRunning('7'));
    const { run } = await engine.startRun({ functionName: 'app', input: '{}' });
    const session = await engine.openRun(run.runId);
    expect(session?.functionName).toBe('app:7');
    expect((await store.getRun(run.runId))?.functionName).toBe('app:7');
    expect(invoked).toEqual([]);
  });

  it('releases a run unrun when its pin write fails, due again in a moment', async () => {
    const memory = new MemoryStore(new VirtualClock(Date.UTC(2026, 0, 1)));
    const refusing = Object.assign(Object.create(memory) as MemoryStore, { pinRun: async () => false });
    const { engine, store, wakes } = world(policyRunning('7'), refusing);
    const { run } = await engine.startRun({ functionName: 'app', input: '{}' });
    expect(await engine.openRun(run.runId)).toBeUndefined();
    const stored = await store.getRun(run.runId);
    expect(stored?.functionName).toBe('app');
    // Released (no live lease), still running, with nothing of it run (no invocation counted as done).
    expect(stored?.leaseExpiresAt).toBeUndefined();
    expect(stored?.status).toBe('RUNNING');
    expect(await store.loadOperations(run.runId)).toHaveLength(1);
    expect(wakes.some((wake) => wake.runId === run.runId && wake.reason === 'due')).toBe(true);
  });

  it('without a policy, records runs as asked and opens them wherever', async () => {
    const { engine, invoked } = world();
    const opened = await engine.open({ n: 1 }, { functionName: 'app', awsRequestId: 'req-2' });
    expect(opened.opened?.functionName).toBe('app');
    const { run } = await engine.startRun({ functionName: 'app:7', input: '{}' });
    expect((await engine.openRun(run.runId))?.functionName).toBe('app:7');
    expect(invoked).toEqual([]);
    await expect(engine.startRun({ functionName: 'app:7', runKey: 'req-2', input: '{"n":1}' })).rejects.toThrow(
      RunKeyConflictError,
    );
  });
});
