/**
 * The outbox (issue 27): events a step emits (`context.emit`) are recorded with the step's
 * outcome, published after it, and by the reconciler when the invocation died first or the
 * publish failed; only the attempt that succeeded emits; each event keeps one stable id, so a
 * repeat (after a lost publish answer) is recognisable. Run by the test driver with its in-process
 * sink (`MemoryOutbox`), with seeded faults.
 */
import { MemoryOutbox, type OutboxEntry } from '@durable-lambda/engine';
import { type FaultOptions, TestDriver } from '@durable-lambda/local';
import { type DurableContext, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

const START = Date.UTC(2030, 0, 1);
const quiet = { logSink: () => {} };

const orders = withDurableExecution(async (_event: unknown, ctx: DurableContext) => {
  const id = await ctx.step('place', async (step) => {
    step.emit({ source: 'shop', detailType: 'OrderPlaced', detail: { order: 'o-1' } });
    step.emit({ queueUrl: 'https://sqs.eu-west-1.amazonaws.com/1/mail.fifo', body: 'o-1', groupId: 'o-1' });
    return 'o-1';
  });
  await ctx.wait('cool-off', { seconds: 30 });
  await ctx.step('ship', async (step) => step.emit({ source: 'shop', detailType: 'OrderShipped', detail: { id } }));
  return id;
}, quiet);

async function run(outbox: MemoryOutbox, faults?: FaultOptions) {
  const driver = new TestDriver({ orders }, { startTime: START, outbox, ...(faults ? { faults } : {}) });
  const started = await driver.start('orders', undefined);
  const done = await driver.runUntilDone(started.runId);
  return { driver, done, runId: started.runId };
}

const idsOf = (deliveries: readonly OutboxEntry[]) => [...new Set(deliveries.map((d) => d.id))].sort();

describe('events a step emits', () => {
  it('are published once each after their step, with stable ids, and leave the run', async () => {
    const outbox = new MemoryOutbox();
    const { driver, done, runId } = await run(outbox);
    expect(done.status).toBe('SUCCEEDED');
    expect(outbox.deliveries.map((d) => [d.id, d.event.kind])).toEqual([
      [`${runId}:1:0`, 'eventbridge'],
      [`${runId}:1:1`, 'sqs'],
      [`${runId}:3:0`, 'eventbridge'],
    ]);
    expect(outbox.deliveries[0]?.event).toEqual({
      kind: 'eventbridge',
      source: 'shop',
      detailType: 'OrderPlaced',
      detail: '{"order":"o-1"}',
    });
    expect((await driver.store.getRun(runId))?.outbox).toBeUndefined();
  });

  it('are delivered again after a lost publish answer, with the same id, and only then', async () => {
    let n = 0;
    const outbox = new MemoryOutbox(undefined, () => (++n === 2 ? 'lostResponse' : undefined));
    const { driver, done, runId } = await run(outbox);
    for (let i = 0; i < 5 && (await driver.store.getRun(runId))?.outbox; i++) {
      driver.clock.advanceTo(driver.clock.now() + 60_000);
      await driver.engine.reconcile({ graceMs: 0 });
    }
    expect(done.status).toBe('SUCCEEDED');
    expect(outbox.lostResponses).toBe(1);
    expect([...outbox.duplicates()]).toEqual([[`${runId}:1:1`, 2]]);
    expect((await driver.store.getRun(runId))?.outbox).toBeUndefined();
  });

  it('come only from the attempt that succeeded', async () => {
    const outbox = new MemoryOutbox();
    const flaky = withDurableExecution(
      async (_e: unknown, ctx: DurableContext) =>
        ctx.step(
          'try',
          async (step) => {
            step.emit({ source: 'shop', detailType: 'Attempt', detail: { attempt: step.attempt } });
            if (step.attempt < 3) throw new Error('not yet');
            return step.attempt;
          },
          { retry: { maxAttempts: 3, initialMs: 1000 } },
        ),
      quiet,
    );
    const driver = new TestDriver({ flaky }, { startTime: START, outbox });
    const done = await driver.runUntilDone((await driver.start('flaky', undefined)).runId);
    expect(done.status).toBe('SUCCEEDED');
    expect(outbox.deliveries.map((d) => d.event.kind === 'eventbridge' && d.event.detail)).toEqual(['{"attempt":3}']);
  });

  it('refuses a malformed event in the step, naming the field', async () => {
    const bad = withDurableExecution(
      async (_e: unknown, ctx: DurableContext) =>
        ctx.step('emit', async (step) => step.emit({ source: 'shop', detail: {} } as never), {
          retry: { maxAttempts: 1 },
        }),
      quiet,
    );
    const driver = new TestDriver({ bad }, { startTime: START });
    const done = await driver.runUntilDone((await driver.start('bad', undefined)).runId);
    expect(done.status).toBe('FAILED');
    expect(JSON.stringify(done.error)).toContain('emit[0].detailType');
  });

  it('a publish refused at first is published later by the reconciler, none lost', async () => {
    let refusals = 4;
    const outbox = new MemoryOutbox(undefined, () => (refusals-- > 0 ? 'refused' : undefined));
    const { driver, done, runId } = await run(outbox);
    expect(done.status).toBe('SUCCEEDED');
    // The reconciler's passes come round for what the run still holds (the deployed one every minute).
    for (let i = 0; i < 5 && (await driver.store.getRun(runId))?.outbox; i++) {
      driver.clock.advanceTo(driver.clock.now() + 60_000);
      await driver.engine.reconcile({ graceMs: 0 });
    }
    expect(idsOf(outbox.deliveries)).toEqual([`${runId}:1:0`, `${runId}:1:1`, `${runId}:3:0`]);
    expect(outbox.duplicates().size).toBe(0);
    expect((await driver.store.getRun(runId))?.outbox).toBeUndefined();
  });

  for (const [kind, seed] of [
    ['killBeforeStep', 20],
    ['killAfterStep', 21],
    ['killInCheckpoint', 22],
    ['storeLostResponse', 23],
    ['race', 24],
    ['wakeDropped', 25],
  ] as const) {
    it(`none is lost under ${kind}; repeats only after a lost publish answer or a death before it was recorded`, async () => {
      let injected = 0;
      let repeats = 0;
      let lost = 0;
      for (let s = seed; s < seed + 6; s++) {
        // Every second publish answer is lost: a repeat with the same id follows.
        let n = 0;
        const outbox = new MemoryOutbox(undefined, () => (++n % 2 === 0 ? 'lostResponse' : undefined));
        const { driver, done, runId } = await run(outbox, {
          seed: s,
          defaultProbability: 0,
          maxFaults: 2,
          [kind]: 0.7,
        });
        for (let i = 0; i < 5 && (await driver.store.getRun(runId))?.outbox; i++)
          await driver.engine.reconcile({ graceMs: 0 });
        injected += driver.faults.filter((f) => f.kind === kind).length;
        expect(done.status).toBe('SUCCEEDED');
        // The run part carries the run's incarnation (a keyed run): the same for every event.
        const ids = idsOf(outbox.deliveries);
        expect(ids.map((id) => id.split(':').slice(1).join(':'))).toEqual(['1:0', '1:1', '3:0']);
        expect(new Set(ids.map((id) => id.split(':')[0])).size).toBe(1);
        expect(ids[0]?.startsWith(runId)).toBe(true);
        repeats += outbox.deliveries.length - 3;
        lost += outbox.lostResponses;
        // A repeat follows a lost answer, or an invocation that died (or was fenced out) between
        // publishing and recording it: never more than those.
        expect(outbox.deliveries.length - 3).toBeLessThanOrEqual(outbox.lostResponses + driver.faults.length * 3);
      }
      console.log(`${kind}: ${injected} faults, ${lost} lost publish answers, ${repeats} repeated deliveries`);
      expect(injected).toBeGreaterThan(0);
      expect(repeats).toBeGreaterThanOrEqual(lost > 0 ? 1 : 0);
    });
  }
});
