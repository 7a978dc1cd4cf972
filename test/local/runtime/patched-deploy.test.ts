/**
 * A deploy on the embedded runtime: a process running v1 records runs in a SQLite file and
 * stops while they wait for an approval callback; a new process with v2 code under the same
 * function name opens the file and the runs resume there. With `patched()`, the old run keeps
 * v1's path and a run started on v2 takes the new one; without it, the old run cannot replay.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { operationToWire, waitingFor } from '@durable-lambda/api';
import type { RunRecord } from '@durable-lambda/engine';
import { LocalRuntime, SqliteStore } from '@durable-lambda/local';
import type { Operation } from '@durable-lambda/protocol';
import {
  type DurableContext,
  type DurableLambdaHandler,
  PATCH_SUBTYPE,
  withDurableExecution,
} from '@durable-lambda/sdk';
import { afterAll, afterEach, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'durable-patched-deploy-'));
const cleanup: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Bounds a wait for the runtime; no assertion on how long it took. */
const BOUND_MS = 20_000;
const FUNCTION = 'checkout';

/** v1: reserve, wait for approval, charge. */
const v1 = () =>
  withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
    await ctx.step('reserve', async () => 'reserved');
    const [approval] = await ctx.createCallback<string>('approval');
    const approved = await approval;
    const charged = await ctx.step('charge', async () => `charged:${approved}`);
    return { path: 'old', charged };
  });

/** v2: a fraud check before the approval, behind a patch (or, broken, for every run). */
const v2 = (patched: boolean) =>
  withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
    await ctx.step('reserve', async () => 'reserved');
    const fraudCheck = patched ? ctx.patched('fraud-check') : true;
    if (fraudCheck) await ctx.step('fraud-check', async () => 'clean');
    const [approval] = await ctx.createCallback<string>('approval');
    const approved = await approval;
    const charged = await ctx.step('charge', async () => `charged:${approved}`);
    return { path: fraudCheck ? 'new' : 'old', charged };
  });

/** One process: the runtime on the SQLite file with this code deployed as `checkout`. */
async function processWith(path: string, handler: DurableLambdaHandler) {
  const store = new SqliteStore({ path });
  const errors: unknown[] = [];
  const runtime = new LocalRuntime({
    store,
    functions: new Map([[FUNCTION, handler]]),
    overrides: { logSink: () => {} },
    onError: (error) => errors.push(error),
  });
  await runtime.start();
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await runtime.stop();
    store.close();
  };
  cleanup.push(stop);
  return { runtime, store, errors, stop };
}

type Process = Awaited<ReturnType<typeof processWith>>;

/** Resolves with the callback id once the run's invocation has ended waiting for its approval. */
async function waitingForApproval(p: Process, runId: string): Promise<string> {
  const end = Date.now() + BOUND_MS;
  for (;;) {
    const run = await p.store.getRun(runId);
    const callback = (await p.runtime.engine.getOperations(runId)).find((op) => op.Type === 'CALLBACK');
    const id = callback?.CallbackDetails?.CallbackId;
    if (run?.leaseExpiresAt === undefined && run?.nextWakeAt === undefined && id !== undefined) return id;
    if (Date.now() > end) throw new Error(`run ${runId} never waited for its approval`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function approve(p: Process, runId: string, callbackId: string) {
  await p.runtime.engine.sendCallbackSuccess(callbackId, 'yes');
  return p.runtime.waitForRun(runId, { timeoutMs: BOUND_MS });
}

/** Records `count` runs with v1 in a new file and stops the process with them waiting. */
async function v1RunsWaiting(count: number) {
  const path = join(dir, `deploy-${Math.random().toString(36).slice(2)}.sqlite`);
  const first = await processWith(path, v1());
  const runs: Array<{ runId: string; callbackId: string }> = [];
  for (let i = 0; i < count; i++) {
    const { runId } = await first.runtime.startRun(FUNCTION, { order: i });
    runs.push({ runId, callbackId: await waitingForApproval(first, runId) });
  }
  const recorded = await first.runtime.engine.getOperations(runs[0]?.runId ?? '');
  expect(recorded.filter((op) => op.Type !== 'EXECUTION').map((op) => `${op.Id} ${op.Type} ${op.Name}`)).toEqual([
    '1 STEP reserve',
    '2 CALLBACK approval',
  ]);
  expect(first.errors).toEqual([]);
  await first.stop();
  return { path, runs };
}

describe('a deploy with context.patched on the embedded runtime (SQLite)', () => {
  it('finishes the run v1 recorded on the old path, and runs a new one on the new path, replayed by v2', async () => {
    const { path, runs } = await v1RunsWaiting(1);
    const old = runs[0] as { runId: string; callbackId: string };
    const second = await processWith(path, v2(true));

    const oldDone = await approve(second, old.runId, old.callbackId);
    expect(oldDone.status).toBe('SUCCEEDED');
    expect(JSON.parse(oldDone.result ?? 'null')).toEqual({ path: 'old', charged: 'charged:yes' });
    const oldOps = await second.runtime.engine.getOperations(old.runId);
    expect(oldOps.some((op) => op.SubType === PATCH_SUBTYPE || op.Name === 'fraud-check')).toBe(false);

    const { runId } = await second.runtime.startRun(FUNCTION, { order: 'new' });
    const callbackId = await waitingForApproval(second, runId);
    const marker = (await second.runtime.engine.getOperations(runId)).find((op) => op.Id === '2');
    expect(marker).toMatchObject({ Type: 'STEP', SubType: PATCH_SUBTYPE, Name: 'fraud-check', Status: 'SUCCEEDED' });
    // The control API's views take the marker as any step: the run waits for its approval only.
    expect(operationToWire(marker as Operation)).toMatchObject({ type: 'STEP', subType: PATCH_SUBTYPE });
    const waiting = await second.store.getRun(runId);
    const views = waitingFor(waiting as RunRecord, await second.runtime.engine.getOperations(runId), Date.now());
    expect(views.map((w) => `${w.kind} ${w.name}`)).toEqual(['callback approval']);
    // The approval resumes it in a new invocation, which replays the marker.
    const newDone = await approve(second, runId, callbackId);
    expect(newDone.status).toBe('SUCCEEDED');
    expect(newDone.invocations).toBeGreaterThanOrEqual(2);
    expect(JSON.parse(newDone.result ?? 'null')).toEqual({ path: 'new', charged: 'charged:yes' });
    expect(second.errors).toEqual([]);
  });

  it('fails the run v1 recorded with non_deterministic when v2 ships the change without patched()', async () => {
    const { path, runs } = await v1RunsWaiting(1);
    const old = runs[0] as { runId: string; callbackId: string };
    const second = await processWith(path, v2(false));
    const done = await approve(second, old.runId, old.callbackId);
    expect(done.status).toBe('FAILED');
    expect(done.error?.ErrorCode).toBe('non_deterministic');
  });
});
