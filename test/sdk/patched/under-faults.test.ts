/**
 * The patch marker is written behind (the answer is synchronous): under killed invocations,
 * lost store responses and racing invocations, a run on the new code still takes the new path
 * exactly once, with one marker at the patch's position. `PATCHED_FAULT_SEEDS` runs more seeds.
 */
import { LocalDurableTestRunner } from '@durable-lambda/local';
import { type DurableContext, PATCH_SUBTYPE, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

const SEEDS = Number(process.env.PATCHED_FAULT_SEEDS ?? 6);

const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
  await ctx.step('reserve', async () => 'reserved');
  const taken = ctx.patched('fraud-check');
  if (taken) await ctx.step('fraud-check', async () => 'clean');
  await ctx.wait('cool-off', { seconds: 10 });
  const again = ctx.patched('fraud-check');
  await ctx.step('charge', async () => 'charged');
  return { taken, again };
});

const shape = (
  ops: ReadonlyArray<{ getId(): string | undefined; getType(): string | undefined; getName(): string | undefined }>,
) => ops.map((op) => `${op.getId()} ${op.getType()} ${op.getName() ?? '-'}`);

describe('context.patched under faults', () => {
  it('records one marker and takes the new path on every seed, as without faults', async () => {
    const clean = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(clean.getResult()).toEqual({ taken: true, again: true });
    const expected = shape(clean.getOperations());
    expect(expected).toEqual([
      '1 STEP reserve',
      '2 STEP fraud-check',
      '3 STEP fraud-check',
      '4 WAIT cool-off',
      '5 STEP charge',
    ]);
    let faults = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      const result = await new LocalDurableTestRunner({
        handlerFunction: handler,
        faults: {
          seed,
          defaultProbability: 0,
          killInCheckpoint: 0.25,
          storeLostResponse: 0.25,
          killAfterStep: 0.2,
          race: 0.1,
          maxFaults: 6,
        },
      }).run();
      faults += result.getFaults().length;
      const where = `seed ${seed}: ${JSON.stringify(result.getFaults().map((f) => `${f.kind}@${f.operationId}`))}`;
      expect(result.getStatus(), where).toBe('SUCCEEDED');
      expect(result.getResult(), where).toEqual({ taken: true, again: true });
      expect(shape(result.getOperations()), where).toEqual(expected);
      const markers = result.getOperations().filter((op) => op.getSubType() === PATCH_SUBTYPE);
      expect(
        markers.map((op) => op.getId()),
        where,
      ).toEqual(['2']);
    }
    // The seeds did inject faults: the test proves something.
    expect(faults).toBeGreaterThan(0);
  });
});
