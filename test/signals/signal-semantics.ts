/**
 * Named signals (`ctx.waitForSignal`, issue 27), end to end through the engine on one store: a
 * signal sent before the run waits is kept for it; signals of one name are delivered in order,
 * each exactly once, and a replay gives each wait the same one; a signal arriving while the run
 * waits wakes it; a signal landing while an invocation runs is not lost; a key sends once; an
 * ended run refuses; a wait times out with `SignalTimeoutError`. Called once per store.
 */
import type { Clock, Store } from '@durable-lambda/engine';
import { TestDriver } from '@durable-lambda/local';
import { type DurableContext, SignalTimeoutError, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

/** Builds a fresh store over the driver's clock. */
export type StoreFactory = (clock: Clock) => Store;

const START = Date.UTC(2026, 0, 1);

function driverFor(handler: unknown, makeStore: StoreFactory): TestDriver {
  return new TestDriver({ fn: handler as never }, { store: makeStore, startTime: START });
}

/** Waits (real time, briefly) until `check` holds. */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

export function describeSignalSemantics(name: string, makeStore: StoreFactory): void {
  describe(`${name}: named signals through the engine`, () => {
    it('keeps a signal sent before the run waits, and the wait takes it at once', async () => {
      const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
        await ctx.step('first', async () => 1);
        return ctx.waitForSignal<{ by: string }>('approved');
      });
      const driver = driverFor(handler, makeStore);
      const run = await driver.start('fn', {});
      const receipt = await driver.sendSignal(run.runId, 'approved', { by: 'ana' });
      expect(receipt).toMatchObject({ runId: run.runId, name: 'approved', seq: 1, created: true });
      const ended = await driver.runUntilDone(run.runId);
      expect(ended.status).toBe('SUCCEEDED');
      expect(JSON.parse(ended.result ?? 'null')).toEqual({ by: 'ana' });
    });

    it('delivers signals of one name in order, each once, the same one to each wait on replay', async () => {
      let bodies = 0;
      const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
        bodies += 1;
        const got: unknown[] = [];
        for (let i = 0; i < 3; i++) {
          got.push(await ctx.waitForSignal<number>('item'));
          // A durable wait between takes: each ends the invocation, so every take is replayed after.
          await ctx.wait(`gap-${i}`, { seconds: 5 });
        }
        const other = await ctx.waitForSignal<string>('other');
        try {
          got.push(await ctx.waitForSignal<number>('item', { timeout: { minutes: 10 } }));
        } catch (error) {
          got.push(error instanceof SignalTimeoutError ? `timeout:${error.code}` : String(error));
        }
        return { got, other };
      });
      const driver = driverFor(handler, makeStore);
      const run = await driver.start('fn', {});
      for (const n of [10, 20]) await driver.sendSignal(run.runId, 'item', n);
      await driver.sendSignal(run.runId, 'other', 'x');
      await driver.sendSignal(run.runId, 'item', 30);
      const ended = await driver.runUntilDone(run.runId);
      expect(ended.status).toBe('SUCCEEDED');
      expect(JSON.parse(ended.result ?? 'null')).toEqual({ got: [10, 20, 30, 'timeout:signal_timeout'], other: 'x' });
      // Replayed at least once per gap: the replays took nothing more.
      expect(bodies).toBeGreaterThanOrEqual(4);
      const view = await driver.engine.runSignals(run.runId);
      expect(view.signals.map((s) => [s.name, s.seq, s.state])).toEqual([
        ['item', 1, 'delivered'],
        ['item', 2, 'delivered'],
        ['other', 3, 'delivered'],
        ['item', 4, 'delivered'],
      ]);
      expect(new Set(view.signals.map((s) => s.operationId)).size).toBe(4);
      expect(view.waiting).toEqual([]);
    });

    it('wakes a run that waits when its signal arrives', async () => {
      const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
        const go = await ctx.waitForSignal<{ n: number }>('go');
        return go.n * 2;
      });
      const driver = driverFor(handler, makeStore);
      const run = await driver.start('fn', {});
      const done = driver.runUntilDone(run.runId);
      await until(async () => (await driver.engine.runSignals(run.runId)).waiting.length === 1, 'the wait');
      const waiting = await driver.engine.runSignals(run.runId);
      expect(waiting.waiting[0]).toMatchObject({ name: 'go' });
      expect((await driver.store.getRun(run.runId))?.status).toBe('RUNNING');
      await driver.sendSignal(run.runId, 'go', { n: 21 });
      const ended = await done;
      expect(ended.status).toBe('SUCCEEDED');
      expect(ended.result).toBe('42');
    });

    it('does not lose a signal that lands while an invocation runs', async () => {
      let driver: TestDriver | undefined;
      let runId = '';
      let sent = false;
      const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
        // The signal lands mid-invocation: after the lease read the run, before the wait starts.
        await ctx.step('send-meanwhile', async () => {
          if (!sent && driver) {
            sent = true;
            await driver.sendSignal(runId, 'late', 'here');
          }
          return 'sent';
        });
        return ctx.waitForSignal<string>('late');
      });
      driver = driverFor(handler, makeStore);
      const run = await driver.start('fn', {});
      runId = run.runId;
      const ended = await driver.runUntilDone(run.runId);
      expect(sent).toBe(true);
      expect(ended.status).toBe('SUCCEEDED');
      expect(ended.result).toBe('"here"');
    });

    it('stores a signal sent twice with one idempotency key once', async () => {
      const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
        const a = await ctx.waitForSignal<number>('pay');
        const b = await ctx.waitForSignal<number>('pay', { timeout: { minutes: 1 } }).catch(() => 'none');
        return [a, b];
      });
      const driver = driverFor(handler, makeStore);
      const run = await driver.start('fn', {});
      const first = await driver.sendSignal(run.runId, 'pay', 5, { dedupeKey: 'k-1' });
      const again = await driver.sendSignal(run.runId, 'pay', 5, { dedupeKey: 'k-1' });
      expect(first.created).toBe(true);
      expect(again).toMatchObject({ created: false, seq: first.seq });
      expect(await driver.store.listSignals?.(run.runId)).toHaveLength(1);
      const ended = await driver.runUntilDone(run.runId);
      expect(JSON.parse(ended.result ?? 'null')).toEqual([5, 'none']);
    });

    it('stores a send whose response was lost once when it is sent again with its key', async () => {
      let lose = true;
      // The store's write lands, then its answer is lost (as a DynamoDB response after the SDK gave up).
      const losing: StoreFactory = (clock) => {
        const inner = makeStore(clock);
        return new Proxy(inner, {
          get(target, prop) {
            if (prop === 'appendSignal') {
              return async (...args: Parameters<NonNullable<Store['appendSignal']>>) => {
                const answer = await target.appendSignal?.(...args);
                if (lose) {
                  lose = false;
                  throw new Error('response lost');
                }
                return answer;
              };
            }
            const value = Reflect.get(target, prop, target);
            return typeof value === 'function' ? value.bind(target) : value;
          },
        });
      };
      const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
        const a = await ctx.waitForSignal<number>('pay');
        const b = await ctx.waitForSignal<number>('pay', { timeout: { minutes: 1 } }).catch(() => 'none');
        return [a, b];
      });
      const driver = driverFor(handler, losing);
      const run = await driver.start('fn', {});
      await expect(driver.sendSignal(run.runId, 'pay', 7, { dedupeKey: 'k-9' })).rejects.toThrow('response lost');
      expect(await driver.sendSignal(run.runId, 'pay', 7, { dedupeKey: 'k-9' })).toMatchObject({
        created: false,
        seq: 1,
      });
      const ended = await driver.runUntilDone(run.runId);
      expect(JSON.parse(ended.result ?? 'null')).toEqual([7, 'none']);
    });

    it('refuses a signal to an ended run, an unknown run, a bad name and a payload too large', async () => {
      const handler = withDurableExecution(async () => 'done');
      const driver = driverFor(handler, makeStore);
      const run = await driver.start('fn', {});
      await driver.runUntilDone(run.runId);
      await expect(driver.sendSignal(run.runId, 'late', 1)).rejects.toMatchObject({
        code: 'run_ended',
        name: 'RunEndedError',
      });
      await expect(driver.sendSignal('no-such-run', 'x', 1)).rejects.toMatchObject({ code: 'run_not_found' });
      await expect(driver.sendSignal(run.runId, 'bad name!', 1)).rejects.toMatchObject({
        code: 'invalid_argument',
        field: 'name',
      });
      await expect(driver.sendSignal(run.runId, 'x'.repeat(129), 1)).rejects.toMatchObject({ field: 'name' });
      await expect(driver.sendSignal(run.runId, 'big', 'x'.repeat(70_000))).rejects.toMatchObject({
        code: 'payload_too_large',
        field: 'payload',
      });
    });

    it('times a wait out with SignalTimeoutError when no signal comes', async () => {
      const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
        try {
          await ctx.waitForSignal('never', { timeout: { hours: 2 } });
          return 'signalled';
        } catch (error) {
          const e = error as SignalTimeoutError;
          return { type: e.errorType, code: e.code, cls: e instanceof SignalTimeoutError, message: e.message };
        }
      });
      const driver = driverFor(handler, makeStore);
      const run = await driver.start('fn', {});
      const ended = await driver.runUntilDone(run.runId);
      expect(JSON.parse(ended.result ?? 'null')).toEqual({
        type: 'SignalTimeoutError',
        code: 'signal_timeout',
        cls: true,
        message: 'no signal "never" arrived within the wait\'s timeout',
      });
      // The virtual clock moved to the timeout, not beyond a moment after it.
      expect((ended.endedAt ?? 0) - START).toBeGreaterThanOrEqual(2 * 3600_000);
    });
  });
}
