/**
 * The flow section's measurements of the gates besides `concurrency` (flow-gate-rows.ts turns
 * them into rows), each on DynamoDB Local with the real store and engine (lib/flow-world.ts):
 * `throttle` (a start at once, a start that waits its turn), `rateLimit` (admitted, refused),
 * `debounce` (a burst of runs of one key), `singleton` (a free key, `skip` and `cancel` at a held
 * key), and a schedule's `bufferOne` overlap (a firing buffered behind its previous run, and the
 * hand-over when that run ends). Each function's first run is a warm-up, unmetered: admission
 * reads the function's declared limits once per process.
 */
import { type ScheduleFiringEvent, ScheduleReceiver } from '@durable-lambda/engine';
import type { DurableLambdaHandler } from '@durable-lambda/sdk';
import { type Cost, type FlowEvent, type FlowGates, type FlowWorld, sumCosts, tenantOf } from '../lib/flow-world';
import { progressLine } from './figure-rows';
import { endHolders, expectStatus, holders, nextId, nextKey, seedScheduleRun, unmetered } from './flow-scenarios';

/** Runs in a debounce burst. */
export const BURST = 5;

/** A gate's period in these figures: one minute (a waiting run is woken through SQS). */
const PERIOD = { minutes: 1 };

/** One run of `event` started and delivered until nothing is left: its start and its invocations. */
async function runOf(fw: FlowWorld, handler: DurableLambdaHandler, fn: string, event: FlowEvent) {
  let runId = '';
  const start = await fw.cost(async () => (runId = (await fw.start(fn, event)).runId));
  const run = await fw.cost(() => fw.drain(handler, fn));
  return { runId, start, run, total: sumCosts(start, run) };
}

/** A handler of `gates`, warmed up by one unmetered run at a key of its own. */
async function gated(fw: FlowWorld, fn: string, gates: FlowGates): Promise<DurableLambdaHandler> {
  const handler = fw.handler(gates);
  await unmetered(fw, () => runOf(fw, handler, fn, { tenant: nextKey(), id: nextId() }));
  return handler;
}

/** `throttle` of 1 start a minute: a start at a fresh key (at once), then a second (waits its turn). */
export async function throttled(fw: FlowWorld) {
  progressLine('flow: throttle, a start at once and one that waits its turn');
  const fn = 'flow-throttle';
  const handler = await gated(fw, fn, { throttle: { key: tenantOf, limit: 1, period: PERIOD } });
  const tenant = nextKey();
  const first = await runOf(fw, handler, fn, { tenant, id: nextId() });
  await expectStatus(fw, first.runId, 'SUCCEEDED', 'throttle at once');
  let runId = '';
  const start = await fw.cost(async () => (runId = (await fw.start(fn, { tenant, id: nextId() })).runId));
  const arrival = await fw.cost(() => fw.deliverOne(handler, fn));
  await expectStatus(fw, runId, 'QUEUED', 'throttled start');
  const woken = await fw.cost(() => fw.drain(handler, fn));
  if (woken.invocations !== 1) throw new Error(`throttle: ${woken.invocations} invocations after the wait`);
  await expectStatus(fw, runId, 'SUCCEEDED', 'throttled start, woken');
  return { atOnce: first.total, waited: { start, arrival, woken, total: sumCosts(start, arrival, woken) } };
}

/** `rateLimit` of 1 start a minute: a start at a fresh key (admitted), then a second (refused). */
export async function rateLimited(fw: FlowWorld) {
  progressLine('flow: rateLimit, a start admitted and one refused');
  const fn = 'flow-rate';
  const handler = await gated(fw, fn, { rateLimit: { key: tenantOf, limit: 1, period: PERIOD } });
  const tenant = nextKey();
  const admitted = await runOf(fw, handler, fn, { tenant, id: nextId() });
  await expectStatus(fw, admitted.runId, 'SUCCEEDED', 'rateLimit admitted');
  const refused = await runOf(fw, handler, fn, { tenant, id: nextId() });
  await expectStatus(fw, refused.runId, 'CANCELLED', 'rateLimit refused');
  return { admitted: admitted.total, refused: refused.total };
}

/**
 * A `debounce` burst: {@link BURST} runs of one key arrive within its minute, each waits QUEUED
 * until the window's end, then the last runs and the others end CANCELLED. Starts and invocations, all.
 */
export async function debounced(fw: FlowWorld) {
  progressLine(`flow: a debounce burst of ${BURST} runs of one key`);
  const fn = 'flow-debounce';
  const handler = await gated(fw, fn, { debounce: { key: tenantOf, period: PERIOD } });
  const tenant = nextKey();
  const ids: string[] = [];
  const starts = await fw.cost(async () => {
    for (let i = 0; i < BURST; i++) ids.push((await fw.start(fn, { tenant, id: nextId() })).runId);
  });
  const arrivals = await fw.cost(() => fw.drain(handler, fn, BURST));
  for (const id of ids) await expectStatus(fw, id, 'QUEUED', 'debounced arrival');
  const woken = await fw.cost(() => fw.drain(handler, fn));
  for (const [i, id] of ids.entries()) {
    await expectStatus(fw, id, i === BURST - 1 ? 'SUCCEEDED' : 'CANCELLED', `debounced run ${i + 1}`);
  }
  return { starts, arrivals, woken, total: sumCosts(starts, arrivals, woken) };
}

/**
 * `singleton`: a start at a free key; then, the key held by a run on a callback, a start with mode
 * `skip` (it ends CANCELLED) and one with mode `cancel` (the holder is cancelled, it runs).
 */
export async function singletons(fw: FlowWorld) {
  progressLine('flow: singleton, a free key, skip and cancel at a held key');
  const skipFn = 'flow-singleton-skip';
  const skip = await gated(fw, skipFn, { singleton: { key: tenantOf, mode: 'skip' } });
  const free = await runOf(fw, skip, skipFn, { tenant: nextKey(), id: nextId() });
  await expectStatus(fw, free.runId, 'SUCCEEDED', 'singleton at a free key');

  let tenant = nextKey();
  let held = await holders(fw, skip, skipFn, tenant, 1);
  const skipped = await runOf(fw, skip, skipFn, { tenant, id: nextId() });
  await expectStatus(fw, skipped.runId, 'CANCELLED', 'singleton skip');
  await expectStatus(fw, held[0]!.runId, 'RUNNING', 'singleton holder after a skip');
  await endHolders(fw, skip, skipFn, held);

  const cancelFn = 'flow-singleton-cancel';
  const cancel = await gated(fw, cancelFn, { singleton: { key: tenantOf, mode: 'cancel' } });
  tenant = nextKey();
  held = await holders(fw, cancel, cancelFn, tenant, 1);
  const cancelling = await runOf(fw, cancel, cancelFn, { tenant, id: nextId() });
  await expectStatus(fw, cancelling.runId, 'SUCCEEDED', 'singleton cancel');
  await expectStatus(fw, held[0]!.runId, 'CANCELLED', 'singleton holder cancelled');
  fw.held.delete(held[0]!.id);
  return { free: free.total, skipped: skipped.total, cancelling: cancelling.total };
}

/**
 * A schedule under `bufferOne`: a firing with nothing running (starts at once); its run ends alone
 * (the baseline of the hand-over); a firing while the schedule's previous run is RUNNING (on a
 * callback) is buffered QUEUED behind it; that run ends and hands over; the buffered run is woken
 * and runs. Beside them, a firing under `allowAll` and its run (the same run without the gate).
 */
export async function bufferedFiring(fw: FlowWorld) {
  progressLine('flow: a schedule firing buffered under bufferOne, and its hand-over');
  const fn = 'flow-buffer';
  const handler = fw.handler();
  const name = `nightly-${fn}`;
  const receiver = new ScheduleReceiver({
    engine: fw.world.engine,
    invoker: fw.invoker(),
    waker: fw.world.waker,
    clock: fw.world.clock,
  });
  let minute = 0;
  const base = fw.world.clock.now() - 3_600_000;
  const fire = async (overlap: 'bufferOne' | 'allowAll', event: FlowEvent) => {
    const firing: ScheduleFiringEvent = {
      durableLambda: {
        action: 'schedule',
        name,
        scheduledTime: new Date(base + ++minute * 60_000).toISOString(),
        overlap,
        input: JSON.stringify(event),
      },
    };
    let answer: Awaited<ReturnType<ScheduleReceiver['receive']>> | undefined;
    const cost = await fw.cost(async () => (answer = await receiver.receive(firing, fn)));
    if (!answer || !('runId' in answer)) throw new Error(`schedule ${overlap}: started no run`);
    return { cost, runId: answer.runId, buffered: answer.buffered === true };
  };
  // Warm-up, and the same run without the gate: a firing under allowAll and its run.
  await unmetered(fw, async () => {
    await fire('allowAll', { tenant: nextKey(), id: nextId() });
    await fw.drain(handler, fn);
  });
  const allow = await fire('allowAll', { tenant: nextKey(), id: nextId() });
  const allowRun = await fw.cost(() => fw.drain(handler, fn));
  await expectStatus(fw, allow.runId, 'SUCCEEDED', 'allowAll firing');

  // The first holder's firing under bufferOne, nothing running: it starts at once.
  const firstId = nextId();
  const first = await fire('bufferOne', { tenant: nextKey(), id: firstId, hold: true });
  await unmetered(fw, () => fw.drain(handler, fn));
  await fw.release(firstId);
  const endAlone = await fw.cost(() => fw.deliverOne(handler, fn));
  await expectStatus(fw, first.runId, 'SUCCEEDED', 'schedule run ending alone');

  const holderId = nextId();
  const holder = await unmetered(fw, () => fire('bufferOne', { tenant: nextKey(), id: holderId, hold: true }));
  await unmetered(fw, () => fw.drain(handler, fn));
  const buffered = await fire('bufferOne', { tenant: nextKey(), id: nextId() });
  if (!buffered.buffered) throw new Error('schedule bufferOne: the firing was not buffered');
  await expectStatus(fw, buffered.runId, 'QUEUED', 'buffered firing');
  if ((await fw.drain(handler, fn)).length > 0) throw new Error('schedule bufferOne: the buffered run was invoked');
  await fw.release(holderId);
  const endHandingOver = await fw.cost(() => fw.deliverOne(handler, fn));
  await expectStatus(fw, holder.runId, 'SUCCEEDED', 'schedule run handing over');
  const admitted = await fw.cost(() => fw.drain(handler, fn));
  if (admitted.invocations !== 1) throw new Error(`schedule bufferOne: ${admitted.invocations} invocations after`);
  await expectStatus(fw, buffered.runId, 'SUCCEEDED', 'buffered run after the hand-over');
  return {
    allowFired: allow.cost,
    allowRun,
    startedAtOnce: first.cost,
    endAlone,
    buffered: buffered.cost,
    endHandingOver,
    admitted,
  } satisfies Record<string, Cost>;
}

/**
 * A `bufferOne` firing that buffers on a function with `queued` QUEUED runs of other keys (seeded
 * unmetered, as runs waiting under a gate would be) and the schedule's previous run RUNNING
 * (seeded, never invoked): the firing's invocation alone. The check for a run of the schedule
 * already buffered reads the schedule's own queue: it must not grow with the function's QUEUED runs.
 */
export async function bufferedAmongQueued(fw: FlowWorld, queued: number): Promise<Cost> {
  progressLine(`flow: a schedule firing buffered under bufferOne, ${queued} QUEUED runs of the function`);
  const fn = 'flow-buffer-busy';
  await fw.warmFunction(fn);
  const name = `nightly-${fn}`;
  const now = fw.world.clock.now();
  await unmetered(fw, async () => {
    await seedScheduleRun(fw, fn, name, now - 120_000, 'bufferOne');
    for (let i = 0; i < queued; i++) {
      const id = nextId();
      await fw.seeder.startRun({
        functionName: fn,
        input: JSON.stringify({ tenant: nextKey(), id }),
        runKey: `flow:${id}`,
        buffered: { key: nextKey(), behind: [], queuedAt: now, recheckAt: now + 15 * 60_000 },
      });
    }
  });
  const receiver = new ScheduleReceiver({
    engine: fw.world.engine,
    invoker: fw.invoker(),
    waker: fw.world.waker,
    clock: fw.world.clock,
  });
  const firing: ScheduleFiringEvent = {
    durableLambda: {
      action: 'schedule',
      name,
      scheduledTime: new Date(now - 60_000).toISOString(),
      overlap: 'bufferOne',
      input: JSON.stringify({ tenant: nextKey(), id: nextId() }),
    },
  };
  let buffered = false;
  const cost = await fw.cost(async () => {
    const answer = await receiver.receive(firing, fn);
    buffered = 'runId' in answer && answer.buffered === true;
  });
  if (!buffered) throw new Error(`schedule bufferOne among ${queued} QUEUED runs: the firing was not buffered`);
  return cost;
}
