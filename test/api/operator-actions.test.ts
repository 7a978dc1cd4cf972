import { DurableClient, toNodeListener } from '@durable-lambda/api';
import type { DurableLambdaHandler } from '@durable-lambda/sdk';
import { afterAll, describe, expect, it } from 'vitest';
import { idempotencyRecordKey } from '../../packages/api/src/server/idempotency';
import type { CommandLine } from '../../packages/cli/src/args';
import { runApiCommand } from '../../packages/cli/src/commands';
import { until } from '../support/harness';
import { ApiFixture, durable, listen } from './support';

/** A handler whose `charge` step fails for good, after which `hold` keeps the invocation running. */
function heldAfterFailure() {
  const state = { charges: 0, release: undefined as (() => void) | undefined };
  const handler = durable(async (_e, ctx) => {
    let charge: string;
    try {
      charge = await ctx.step(
        'charge',
        async () => {
          state.charges += 1;
          throw new Error('gateway down');
        },
        { retry: { maxAttempts: 1 } },
      );
    } catch {
      await ctx.step('hold', () => new Promise<void>((r) => (state.release = r)));
      return 'gave up';
    }
    return `charged:${charge}`;
  });
  return { state, handler };
}

/** Drives the run until it ends (a few invocations at most). */
async function driveToEnd(fixture: ApiFixture, runId: string, handler: DurableLambdaHandler) {
  for (let i = 0; i < 10; i++) {
    const run = await fixture.engine.getRun(runId);
    if (run?.status !== 'RUNNING') return run;
    await fixture.drive(runId, handler);
  }
  throw new Error('runaway');
}

const servers: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const server of servers) await server.close();
});

describe('operator actions through the API', () => {
  it('starts a run with an execution timeout, refusing one out of range by the field name', async () => {
    const fixture = new ApiFixture();
    const bad = await fixture.call('POST', '/v1/runs', {
      body: { function: 'fn', executionTimeout: 366 * 86_400 + 1 },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ code: 'invalid_argument' });
    expect(bad.json.error.message).toMatch(/^executionTimeout: /);
    const runId = await fixture.start('fn', undefined, { executionTimeout: 3600 });
    const actions = await fixture.call('GET', `/v1/runs/${runId}/actions`);
    expect(actions.json).toEqual({
      runId,
      actions: [],
      deadlineAt: new Date(fixture.clock.now() + 3_600_000).toISOString(),
    });
  });

  it('skips a failed step while an invocation runs: fenced, idempotent by key, recorded with its actor', async () => {
    const fixture = new ApiFixture();
    const { state, handler } = heldAfterFailure();
    const runId = await fixture.start('fn');
    const running = fixture.drive(runId, handler);
    await until(() => state.release !== undefined, 30_000);
    const path = `/v1/runs/${runId}/operations/1/skip`;
    const headers = { 'x-durable-actor': 'alice', 'idempotency-key': 'skip-1' };
    const first = await fixture.call('POST', path, { headers, body: { result: 'manual' } });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ status: 'RUNNING', action: { action: 'skip_step', actor: 'alice' } });
    const replayed = await fixture.call('POST', path, { headers, body: { result: 'manual' } });
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    // With the idempotency record gone (expired), the repeat still finds its own effect in the run.
    const fence = (await fixture.engine.getRun(runId))?.fence;
    await fixture.store.releaseIdempotencyKey(idempotencyRecordKey('POST', path, 'skip-1'));
    const again = await fixture.call('POST', path, { headers, body: { result: 'manual' } });
    expect(again.status).toBe(200);
    expect((await fixture.engine.getRun(runId))?.fence).toBe(fence);

    state.release?.();
    await running;
    // The fenced invocation's last step never landed.
    expect((await fixture.store.getOperation(runId, '2'))?.Status).toBe('STARTED');
    const run = await driveToEnd(fixture, runId, handler);
    expect(run).toMatchObject({ status: 'SUCCEEDED', result: '"charged:manual"' });
    expect(state.charges).toBe(1);
    const actions = await fixture.call('GET', `/v1/runs/${runId}/actions`);
    expect(actions.json.actions).toEqual([
      {
        id: expect.stringContaining('skip-1'),
        action: 'skip_step',
        actor: 'alice',
        at: first.json.action.at,
        operationId: '1',
        fromStatus: 'RUNNING',
      },
    ]);
  });

  it('retries from an operation while an invocation runs, recording the IAM principal over any header', async () => {
    const fixture = new ApiFixture();
    const calls = { a: 0, b: 0 };
    let release: (() => void) | undefined;
    let holds = 0;
    const handler = durable(async (_e, ctx) => {
      await ctx.step('a', async () => ++calls.a);
      await ctx.step('b', async () => ++calls.b);
      await ctx.step('hold', () => (++holds === 1 ? new Promise<void>((r) => (release = r)) : Promise.resolve()));
      return calls.b;
    });
    const runId = await fixture.start('fn');
    const running = fixture.drive(runId, handler);
    await until(() => release !== undefined, 30_000);
    const principal = 'arn:aws:iam::123456789012:user/ops';
    const response = await fixture.api.handle({
      method: 'POST',
      path: `/v1/runs/${runId}/retry`,
      headers: { 'x-durable-actor': 'someone-else', 'content-type': 'application/json' },
      body: JSON.stringify({ fromOperation: '2' }),
      principal,
    } as Parameters<typeof fixture.api.handle>[0]);
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body).action).toMatchObject({ action: 'retry', actor: principal, operationId: '2' });
    release?.();
    await running;
    expect(await driveToEnd(fixture, runId, handler)).toMatchObject({ status: 'SUCCEEDED', result: '2' });
    expect(calls).toEqual({ a: 1, b: 2 });
  });

  it('cancels a tree while its child runs, and refuses bad requests with stable codes', async () => {
    const fixture = new ApiFixture();
    let release: (() => void) | undefined;
    const child = durable(async (_e, ctx) => {
      await ctx.step('slow', () => new Promise<void>((r) => (release = r)));
      return 'kid';
    });
    const parent = durable(async (_e, ctx) => ctx.invoke('kid', 'other'));
    const runId = await fixture.start('fn');
    await fixture.drive(runId, parent);
    const childId = (await fixture.store.getOperation(runId, '1'))?.ChainedInvokeDetails?.ChildRunId as string;
    const running = fixture.drive(childId, child);
    await until(() => release !== undefined, 30_000);

    const badTree = await fixture.call('POST', `/v1/runs/${runId}/cancel`, { body: { tree: 'yes' } });
    expect(badTree.status).toBe(400);
    const cancelled = await fixture.call('POST', `/v1/runs/${runId}/cancel`, {
      body: { tree: true },
      headers: { 'x-durable-actor': 'erin' },
    });
    expect(cancelled.status).toBe(200);
    expect(cancelled.json).toMatchObject({ status: 'CANCELLED', action: { action: 'cancel_tree', actor: 'erin' } });
    release?.();
    await running;
    expect((await fixture.engine.getRun(childId))?.status).toBe('CANCELLED');
    expect((await fixture.store.getOperation(childId, '1'))?.Status).toBe('STARTED');
    const childActions = await fixture.call('GET', `/v1/runs/${childId}/actions`);
    expect(childActions.json.actions).toEqual([expect.objectContaining({ actor: 'erin', viaRunId: runId })]);

    const missing = await fixture.call('POST', `/v1/runs/${childId}/operations/9/skip`, { body: {} });
    expect([missing.status, missing.json.error.code]).toEqual([409, 'run_state_conflict']);
    const unknownField = await fixture.call('POST', `/v1/runs/${runId}/retry`, { body: { from: '1' } });
    expect([unknownField.status, unknownField.json.error.code]).toEqual([400, 'invalid_argument']);
    const noRun = await fixture.call('POST', '/v1/runs/nope/operations/1/skip', { body: {} });
    expect([noRun.status, noRun.json.error.code]).toEqual([404, 'run_not_found']);
  });

  it('answers operation_not_found and operation_state_conflict for a skip it cannot make', async () => {
    const fixture = new ApiFixture();
    const handler = durable(async (_e, ctx) => {
      await ctx.step('fine', async () => 1);
      throw new Error('boom');
    });
    const runId = await fixture.start('fn');
    await driveToEnd(fixture, runId, handler);
    const notFound = await fixture.call('POST', `/v1/runs/${runId}/operations/9/skip`, { body: {} });
    expect([notFound.status, notFound.json.error.code]).toEqual([404, 'operation_not_found']);
    const succeeded = await fixture.call('POST', `/v1/runs/${runId}/operations/1/skip`, { body: {} });
    expect([succeeded.status, succeeded.json.error.code]).toEqual([409, 'operation_state_conflict']);
  });

  it('the CLI skips, retries from an operation and cancels a tree, and its history shows who did what', async () => {
    const fixture = new ApiFixture();
    const server = await listen(toNodeListener(fixture.api));
    servers.push(server);
    const client = new DurableClient({ baseUrl: server.url });
    const lines: string[] = [];
    const io = {
      out: (t: string) => void lines.push(t),
      err: (t: string) => void lines.push(t),
      env: { DURABLE_ACTOR: 'cli-user' },
    };
    const cli = (command: string, args: string[], options: CommandLine['options'] = {}) =>
      runApiCommand(client, { command, args, options }, io);

    let healthy = false;
    const handler = durable(async (_e, ctx) => {
      const a = await ctx.step('a', async () => (healthy ? 'fixed' : 'broken'));
      if (a === 'broken') throw new Error('bad data');
      return a;
    });
    const runId = await fixture.start('fn');
    await driveToEnd(fixture, runId, handler);
    healthy = true;
    await cli('retry', [runId], { operation: '1' });
    expect(lines.at(-1)).toBe(`Run ${runId} is now RUNNING.`);
    expect(await driveToEnd(fixture, runId, handler)).toMatchObject({ status: 'SUCCEEDED', result: '"fixed"' });

    const failing = durable(async (_e, ctx) =>
      ctx.step(
        'charge',
        async () => {
          throw new Error('declined');
        },
        { retry: { maxAttempts: 1 } },
      ),
    );
    const second = await fixture.start('fn');
    await driveToEnd(fixture, second, failing);
    await cli('skip', [second, '1'], { result: '{"charged":false}' });
    expect(await driveToEnd(fixture, second, failing)).toMatchObject({
      status: 'SUCCEEDED',
      result: '{"charged":false}',
    });

    const waiting = durable(async (_e, ctx) => ctx.wait('long', { hours: 1 }));
    const third = await fixture.start('fn');
    await fixture.drive(third, waiting);
    await cli('cancel-tree', [third], { json: true });
    expect(JSON.parse(lines.at(-1) ?? '{}')).toMatchObject({
      status: 'CANCELLED',
      action: { action: 'cancel_tree', actor: 'cli-user' },
    });

    await cli('history', [second]);
    const history = lines.at(-1) ?? '';
    expect(history).toContain('Operator actions:');
    expect(history).toMatch(/skip_step\s+cli-user\s+1\s+FAILED/);
    await cli('history', [runId]);
    expect(lines.at(-1)).toMatch(/retry\s+cli-user\s+1\s+FAILED/);
  });
});
