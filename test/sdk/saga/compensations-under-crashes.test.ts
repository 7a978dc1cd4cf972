/**
 * Every compensation is a checkpointed step, and the set a round undoes is checkpointed too: an
 * invocation killed while compensating is resumed by the next one, which skips what was undone
 * and undoes the rest, the same under injected faults as without them.
 */
import { LocalDurableTestRunner } from '@durable-lambda/local';
import { type DurableContext, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';
import { Harness, until } from '../../support/harness';

const SEEDS = Number(process.env.SAGA_FAULT_SEEDS ?? 6);

describe('sagas under crashes', () => {
  it('resumes a round killed mid-compensation without running the finished compensations again', async () => {
    const runs: Record<string, number> = {};
    let hangOnce = true;
    const undo = (name: string) => () => {
      runs[name] = (runs[name] ?? 0) + 1;
      if (name === 'charge' && hangOnce) {
        hangOnce = false;
        return new Promise<never>(() => {}); // this invocation dies here
      }
    };
    const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
      await ctx.step('reserve', async () => 'r', { compensate: undo('reserve') });
      await ctx.step('charge', async () => 'c', { compensate: undo('charge') });
      await ctx.step('ship', async () => 's', { compensate: undo('ship') });
      throw new Error('customer cancelled');
    });
    const h = new Harness(handler, { lazyStartMs: 0 });
    await h.start();
    void h.invoke(60_000); // killed while undoing the charge: never closes
    const named = async (name: string) => (await h.operations()).find((o) => o.Name === name);
    await until(async () => (await named('compensate charge'))?.Status === 'STARTED');
    expect((await named('compensate ship'))?.Status).toBe('SUCCEEDED');

    h.clock.advanceTo((await h.run())?.leaseExpiresAt ?? 0);
    await h.runToEnd();
    const run = await h.run();
    expect(run?.status).toBe('FAILED');
    expect(runs).toEqual({ ship: 1, charge: 2, reserve: 1 });
    expect(JSON.parse(run?.error?.ErrorData ?? 'null')).toEqual({
      compensated: ['ship', 'charge', 'reserve'],
      failed: [],
    });
    // The lost attempt of the charge's undo was retried under a new idempotency key.
    expect((await named('compensate charge'))?.StepDetails?.Attempt).toBe(2);
    expect((await h.operations()).filter((o) => o.Name === 'saga plan')).toHaveLength(1);
  });

  it('undoes the same steps once each, in the same order, under killed invocations, lost writes and races', async () => {
    const handlerFor = (effects: string[]) =>
      withDurableExecution(
        async (_e: unknown, ctx: DurableContext) => {
          // An idempotent undo, as a real one must be (a killed attempt may have done it already).
          const undo = (name: string) => () => {
            if (!effects.includes(name)) effects.push(name);
          };
          await ctx.step('reserve', async () => 'r', { compensate: undo('reserve') });
          await ctx.runInChildContext('pay', async (child) => {
            await child.step('charge', async () => 'c', { compensate: undo('charge') });
          });
          await ctx.wait('settle', { seconds: 10 });
          await ctx.step('ship', async () => 's', { compensate: undo('ship') });
          throw new Error('address invalid');
          // Killed attempts spend retry budget: more attempts than the faults can kill (30 at most).
        },
        { retry: { maxAttempts: 40, initialMs: 1000 } },
      );
    const shape = (result: {
      getOperations(): ReadonlyArray<{ getId(): string | undefined; getName(): string | undefined }>;
    }) => result.getOperations().map((op) => `${op.getId()} ${op.getName() ?? '-'}`);

    const cleanEffects: string[] = [];
    const clean = await new LocalDurableTestRunner({ handlerFunction: handlerFor(cleanEffects) }).run();
    expect(cleanEffects).toEqual(['ship', 'charge', 'reserve']);
    expect(shape(clean).slice(5)).toEqual([
      '5 saga plan',
      '6 compensate ship',
      '7 compensate charge',
      '8 compensate reserve',
    ]);
    const expectedData = clean.getError().errorData;
    expect(JSON.parse(expectedData ?? 'null')).toEqual({ compensated: ['ship', 'charge', 'reserve'], failed: [] });

    // Operations 5 to 8: the plan and the three undo steps.
    const compensationIds = ['5', '6', '7', '8'];
    let faults = 0;
    let whileCompensating = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      const effects: string[] = [];
      const result = await new LocalDurableTestRunner({
        handlerFunction: handlerFor(effects),
        faults: {
          seed,
          defaultProbability: 0,
          killInCheckpoint: 0.25,
          storeLostResponse: 0.25,
          killAfterStep: 0.2,
          race: 0.1,
          maxFaults: 30,
        },
      }).run();
      faults += result.getFaults().length;
      whileCompensating += result.getFaults().filter((f) => compensationIds.includes(f.operationId ?? '')).length;
      const where = `seed ${seed}: ${JSON.stringify(result.getFaults().map((f) => `${f.kind}@${f.operationId}`))}`;
      expect(result.getStatus(), where).toBe('FAILED');
      expect(result.getError().errorMessage, where).toBe('address invalid');
      expect(result.getError().errorData, where).toBe(expectedData);
      expect(effects, where).toEqual(['ship', 'charge', 'reserve']);
      expect(shape(result), where).toEqual(shape(clean));
    }
    expect(faults).toBeGreaterThan(0);
    expect(whileCompensating).toBeGreaterThan(0);
  });
});
