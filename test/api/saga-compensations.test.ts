/**
 * A run's compensations (sagas, issue 27) through the control API, the typed client and the CLI:
 * `GET /v1/runs/{id}/compensations` derives from the run's operations which steps registered an
 * undo, each round's plan, each compensation's status and attempts, and what the run's error says
 * was undone; `durable show` prints the same. A compensation killed mid-round reads as running,
 * the ones after it as pending.
 */
import { createControlApi, DurableClient, runCompensations, toNodeListener } from '@durable-lambda/api';
import { type DurableContext, withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDurableCli } from '../support/durable-cli';
import { Harness, until } from '../support/harness';
import { LiveBackend, listen } from './support';

const backend = new LiveBackend();
backend.register('order', async (_event, ctx) => {
  await ctx.step('reserve', async () => 'r-1', { compensate: async () => {} });
  await ctx.step('note', async () => 'no undo');
  await ctx.step('charge', async () => 'ch-1', {
    compensate: {
      run: async () => {
        throw new Error('gateway refused the refund');
      },
      retryStrategy: (_error, attempt) => ({ shouldRetry: attempt < 2, delay: { seconds: 1 } }),
    },
  });
  // Registered an undo, but failed: nothing to undo.
  await ctx
    .step(
      'hold',
      async () => {
        throw new Error('no hold');
      },
      { compensate: async () => {}, retry: { maxAttempts: 1 } },
    )
    .catch(() => undefined);
  await ctx.step(
    'ship',
    async () => {
      throw new Error('courier down');
    },
    { retry: { maxAttempts: 1 } },
  );
});
backend.register('plain', async (_event, ctx) => ctx.step('only', async () => 1));

let url = '';
let close: () => Promise<void> = async () => {};
beforeAll(async () => {
  const api = createControlApi({ engine: backend.engine, functions: [...backend.handlers.keys()] });
  const server = await listen(toNodeListener(api));
  url = server.url;
  close = server.close;
});
afterAll(() => close());

describe('compensations through the API, the client and the CLI', { timeout: 60_000 }, () => {
  it('shows the plan, each undo with its status and attempts, and what the run undid or failed to', async () => {
    const client = new DurableClient({ baseUrl: url, backoffMs: 1 });
    const { runId } = (await client.startRun({ function: 'order' })).run;
    await backend.waitForStatus(runId, 'FAILED', 20_000);

    const c = await client.getCompensations(runId);
    expect(c.runId).toBe(runId);
    expect(c.status).toBe('FAILED');
    expect(c.registered).toEqual([
      { stepId: '3', step: 'charge' },
      { stepId: '1', step: 'reserve' },
    ]);
    expect(c.rounds).toHaveLength(1);
    const [round] = c.rounds;
    expect(round?.status).toBe('planned');
    expect(round?.contextId).toBeUndefined();
    expect(round?.compensations.map((x) => [x.step, x.status, x.attempts, x.planId === round.planId])).toEqual([
      ['charge', 'failed', 2, true],
      ['reserve', 'succeeded', 1, true],
    ]);
    expect(round?.compensations[0]?.error?.message).toBe('gateway refused the refund');
    expect(c.summary).toEqual({
      compensated: ['reserve'],
      failed: [{ step: 'charge', error: 'gateway refused the refund' }],
    });
    // Each compensation names its own step, which is the history's `compensate <step>`.
    const ops = (await client.history(runId)).operations;
    for (const x of round?.compensations ?? []) {
      expect(ops.find((o) => o.id === x.operationId)?.name).toBe(`compensate ${x.step}`);
    }

    const shown = await runDurableCli(['show', runId, '--url', url]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^ {2}registered undo: charge \(3\), reserve \(1\)$/m);
    expect(shown.stdout).toMatch(/^ {4}1\s+charge\s+failed\s+2\s+\S+\s+\S+: gateway refused the refund$/m);
    expect(shown.stdout).toMatch(/^ {4}2\s+reserve\s+succeeded\s+1\s+\S+$/m);
    expect(shown.stdout).toMatch(/^ {2}undone: reserve$/m);
    expect(shown.stdout).toMatch(/^ {2}failed to undo: charge \(gateway refused the refund\)$/m);
    const json = JSON.parse((await runDurableCli(['show', runId, '--url', url, '--json'])).stdout);
    expect(json.compensations).toEqual(c);

    // A run without compensations: an empty answer, and no section in `durable show`.
    const plain = (await client.startRun({ function: 'plain' })).run.runId;
    await backend.waitForStatus(plain, 'SUCCEEDED');
    expect(await client.getCompensations(plain)).toEqual({
      runId: plain,
      status: 'SUCCEEDED',
      registered: [],
      rounds: [],
    });
    expect((await runDurableCli(['show', plain, '--url', url])).stdout).not.toMatch(/compensations/);
    await expect(client.getCompensations('no-such-run')).rejects.toMatchObject({ code: 'run_not_found' });
  });

  it('reads a round killed mid-compensation as running there and pending after, then settled', async () => {
    let hang = true;
    const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
      await ctx.step('reserve', async () => 'r', { compensate: async () => {} });
      await ctx.step('charge', async () => 'c', {
        compensate: () => {
          if (hang) {
            hang = false;
            return new Promise<never>(() => {}); // this invocation dies here
          }
        },
      });
      throw new Error('customer cancelled');
    });
    const h = new Harness(handler, { lazyStartMs: 0 });
    await h.start();
    void h.invoke(60_000);
    await until(async () => (await h.operations()).some((o) => o.Name === 'compensate charge'));
    const midway = runCompensations((await h.run())!, await h.operations());
    expect(midway.rounds[0]?.compensations.map((x) => [x.step, x.status, x.attempts])).toEqual([
      ['charge', 'running', 1],
      ['reserve', 'pending', 0],
    ]);
    expect(midway.summary).toBeUndefined();

    h.clock.advanceTo((await h.run())?.leaseExpiresAt ?? 0);
    await h.runToEnd();
    const done = runCompensations((await h.run())!, await h.operations());
    expect(done.rounds).toHaveLength(1);
    expect(done.rounds[0]?.compensations.map((x) => [x.step, x.status, x.attempts])).toEqual([
      ['charge', 'succeeded', 2],
      ['reserve', 'succeeded', 1],
    ]);
    expect(done.summary).toEqual({ compensated: ['charge', 'reserve'], failed: [] });
  });

  it('orders rounds planned in the same instant by their positions (plan 9 before plan 12)', async () => {
    const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
      for (let i = 1; i <= 7; i++) await ctx.step(`s${i}`, async () => i);
      await ctx.step('a', async () => 'a', { compensate: async () => {} });
      await ctx.compensate();
      await ctx.step('b', async () => 'b', { compensate: async () => {} });
      return ctx.compensate();
    });
    const h = new Harness(handler);
    await h.start();
    await h.runToEnd();
    const ops = await h.operations();
    const plans = ops.filter((o) => o.Name === 'saga plan');
    // The virtual clock stands still: both plans started at the same time.
    expect(plans.map((p) => [p.Id, p.StartTimestamp === plans[0]?.StartTimestamp])).toEqual([
      ['9', true],
      ['12', true],
    ]);
    const c = runCompensations((await h.run())!, [...ops].reverse());
    expect(c.rounds.map((r) => [r.planId, r.compensations.map((x) => x.step)])).toEqual([
      ['9', ['a']],
      ['12', ['b']],
    ]);
  });

  it("an operator's retry of the failed run runs its failed compensation again, and only that one", async () => {
    const undone: string[] = [];
    let refuse = true;
    const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
      await ctx.step('reserve', async () => 'r', { compensate: async () => void undone.push('reserve') });
      await ctx.step('charge', async () => 'c', {
        compensate: {
          run: async () => {
            undone.push('charge');
            if (refuse) throw new Error('refund refused');
          },
          retry: { maxAttempts: 1 },
        },
      });
      throw new Error('give up');
    });
    const h = new Harness(handler);
    await h.start();
    await h.runToEnd();
    expect(runCompensations((await h.run())!, await h.operations()).summary).toEqual({
      compensated: ['reserve'],
      failed: [{ step: 'charge', error: 'refund refused' }],
    });

    refuse = false;
    await h.engine.retryRun(h.runId, {});
    await h.runToEnd();
    expect(undone).toEqual(['charge', 'reserve', 'charge']);
    const after = runCompensations((await h.run())!, await h.operations());
    expect(after.status).toBe('FAILED');
    expect(after.rounds.map((r) => r.compensations.map((x) => [x.step, x.status, x.attempts]))).toEqual([
      [
        ['charge', 'succeeded', 2],
        ['reserve', 'succeeded', 1],
      ],
    ]);
    expect(after.summary).toEqual({ compensated: ['charge', 'reserve'], failed: [] });
  });
});
