/**
 * The operator actions through the `durable` CLI against a real API server: `skip`,
 * `retry --operation` and `cancel-tree` reach the API (the argument parser accepts them) and
 * are recorded with the CLI's actor.
 */
import { createControlApi, toNodeListener } from '@durable-lambda/api';
import { NonRetriableError } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveBackend, listen } from '../api/support';
import { type CliExit, runDurableCli } from '../support/durable-cli';

/** Real time bounds for runs to settle (generous: the machine may be loaded). */
const SETTLE_MS = 30_000;

const backend = new LiveBackend();
const state = { chargeUp: false, countedA: 0 };
backend.register('pay', async (_e, ctx) => {
  const charge = await ctx.step('charge', async () => {
    throw new NonRetriableError('gateway down');
  });
  return `charged:${charge}`;
});
backend.register('twice', async (_e, ctx) => {
  const a = await ctx.step('a', async () => ++state.countedA);
  const b = await ctx.step('b', async () => {
    if (!state.chargeUp) throw new NonRetriableError('b is down');
    return 'b';
  });
  return { a, b };
});
backend.register('parent', async (_e, ctx) => ctx.invoke('kid', 'child'));
backend.register('child', async (_e, ctx) => {
  const [promise] = await ctx.createCallback('approval');
  return promise;
});

let url = '';
let close: () => Promise<void> = async () => {};
beforeAll(async () => {
  const server = await listen(
    toNodeListener(createControlApi({ engine: backend.engine, functions: [...backend.handlers.keys()] })),
  );
  url = server.url;
  close = server.close;
});
afterAll(() => close());

/** `durable <args>` in this process (runCli, what the binary calls), acting as `ops-cli`. */
function durable(args: string[]): Promise<CliExit> {
  return runDurableCli([...args, '--url', url], { DURABLE_ACTOR: 'ops-cli' });
}

/** Starts a run through the API, which invokes its function. */
async function start(fn: string, extra: Record<string, unknown> = {}): Promise<string> {
  const response = await fetch(`${url}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ function: fn, ...extra }),
  });
  return ((await response.json()) as { runId: string }).runId;
}

async function operationId(runId: string, name: string): Promise<string> {
  const op = (await backend.engine.getOperations(runId)).find((o) => o.Name === name);
  if (!op) throw new Error(`run ${runId} has no operation ${name}`);
  return op.Id;
}

describe('operator actions through the durable CLI', { timeout: 120_000 }, () => {
  it('skip <runId> <operationId> --result stores the step with that result; the run goes on past it', async () => {
    const runId = await start('pay');
    await backend.waitForStatus(runId, 'FAILED', SETTLE_MS);
    const charge = await operationId(runId, 'charge');
    const unknown = await durable(['skip', runId, 'nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/\[operation_not_found, HTTP 404\]/);
    const notAStep = await durable(['skip', runId, '0']);
    expect(notAStep.code).toBe(1);
    expect(notAStep.stderr).toMatch(/\[operation_state_conflict, HTTP 409\]/);

    const skipped = await durable(['skip', runId, charge, '--result', '"manual"']);
    expect(skipped).toMatchObject({ code: 0, stderr: '', stdout: `Run ${runId} is now RUNNING.\n` });
    await backend.waitForStatus(runId, 'SUCCEEDED', SETTLE_MS);
    const run = await backend.engine.getRun(runId);
    expect(run?.result).toBe(JSON.stringify('charged:manual'));
    expect(run?.actions).toEqual([
      expect.objectContaining({ action: 'skip_step', actor: 'ops-cli', operationId: charge }),
    ]);
  });

  it('retry <runId> --operation runs that operation and every later one again', async () => {
    const runId = await start('twice');
    await backend.waitForStatus(runId, 'FAILED', SETTLE_MS);
    expect(state.countedA).toBe(1);
    state.chargeUp = true;
    const a = await operationId(runId, 'a');
    const retried = await durable(['retry', runId, '--operation', a, '--json']);
    expect(retried.code, retried.stderr).toBe(0);
    expect(JSON.parse(retried.stdout)).toMatchObject({
      runId,
      status: 'RUNNING',
      action: { action: 'retry', actor: 'ops-cli', operationId: a },
    });
    await backend.waitForStatus(runId, 'SUCCEEDED', SETTLE_MS);
    // `a` ran again (a retry from the failures alone would have replayed it).
    expect(state.countedA).toBe(2);
    expect(JSON.parse((await backend.engine.getRun(runId))?.result ?? 'null')).toEqual({ a: 2, b: 'b' });
  });

  it('cancel-tree <runId> cancels the run and the child run it waits on', async () => {
    const parentId = await start('parent');
    const childId = await (async () => {
      const end = Date.now() + SETTLE_MS;
      for (;;) {
        const op = (await backend.engine.getOperations(parentId)).find((o) => o.Type === 'CHAINED_INVOKE');
        const id = op?.ChainedInvokeDetails?.ChildRunId;
        if (id && (await backend.engine.getRun(id))) return id;
        if (Date.now() > end) throw new Error('the child run did not start');
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    await backend.waitForCallback(childId, SETTLE_MS);
    const cancelled = await durable(['cancel-tree', parentId]);
    expect(cancelled).toMatchObject({ code: 0, stderr: '', stdout: `Run ${parentId} is now CANCELLED.\n` });
    expect(await backend.engine.getRun(childId)).toMatchObject({
      status: 'CANCELLED',
      actions: [expect.objectContaining({ action: 'cancel_tree', actor: 'ops-cli', viaRunId: parentId })],
    });
    expect((await backend.engine.getRun(parentId))?.actions).toEqual([
      expect.objectContaining({ action: 'cancel_tree', actor: 'ops-cli' }),
    ]);
  });

  it("show prints the run's execution deadline (deadlineAt in --json)", async () => {
    const runId = await start('child', { executionTimeout: 3600 });
    const run = await backend.engine.getRun(runId);
    const deadline = new Date(run?.deadlineAt ?? Number.NaN).toISOString();
    expect(JSON.parse((await durable(['show', runId, '--json'])).stdout)).toMatchObject({
      runId,
      deadlineAt: deadline,
    });
    expect((await durable(['show', runId])).stdout).toMatch(new RegExp(`^deadline\\s+${deadline}$`, 'm'));
    await durable(['cancel', runId]);
  });
});
