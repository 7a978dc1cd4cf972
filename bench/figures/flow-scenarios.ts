/**
 * The flow section's measurements (flow-figures.ts turns them into rows), each on DynamoDB Local
 * with the real store and engine (lib/flow-world.ts): a start under `concurrency` admitted at once
 * and without, a queued start and its slot hand-over, an arrival at a full key whose holders live
 * or ended unreleased, a run started by an SQS trigger event (and its duplicate delivery), and a
 * schedule's firing with its overlap check against the function's RUNNING runs.
 */
import {
  type OverlapPolicy,
  type ScheduleFiringEvent,
  ScheduleReceiver,
  TriggerReceiver,
  triggerBatchOf,
} from '@durable-lambda/engine';
import type { DurableLambdaHandler } from '@durable-lambda/sdk';
import { addCost, type Cost, type FlowEvent, type FlowWorld, noCost, scaleCost, sumCosts } from '../lib/flow-world';
import { progressLine } from './figure-rows';

/** Fixed-width ids and keys, so every run's items weigh the same whatever scenario made them. */
let counter = 0;
export const nextId = () => `r${String(++counter).padStart(6, '0')}`;
export const nextKey = () => `k${String(++counter).padStart(6, '0')}`;

/** Throws unless the run has `status`. */
export async function expectStatus(fw: FlowWorld, runId: string, status: string, what: string): Promise<void> {
  const run = await fw.getRun(runId);
  if (run?.status !== status) throw new Error(`${what}: expected ${status}, got ${run?.status ?? 'no run'}`);
}

/** Runs `work` with the meter's unit counting off (setup whose cost is not a figure). */
export async function unmetered<T>(fw: FlowWorld, work: () => Promise<T>): Promise<T> {
  const meter = fw.world.meter;
  meter.computeUnits = false;
  try {
    return await work();
  } finally {
    meter.computeUnits = true;
  }
}

/** A start as the control API makes it, and its one invocation: `start` and `run` apart. */
export interface StartCost {
  start: Cost;
  run: Cost;
}

/** The mean of `k` runs of one event shape started on a free key (or without a key), run to their end. */
export async function atOnce(fw: FlowWorld, functionName: string, limit: number | undefined, k: number) {
  const handler = fw.handler(limit);
  let start = noCost();
  let run = noCost();
  for (let i = 0; i < k; i++) {
    const event: FlowEvent = { tenant: nextKey(), id: nextId() };
    let runId = '';
    start = addCost(start, await fw.cost(async () => (runId = (await fw.start(functionName, event)).runId)));
    run = addCost(run, await fw.cost(() => fw.drain(handler, functionName)));
    await expectStatus(fw, runId, 'SUCCEEDED', `${functionName} at once`);
  }
  return { start: scaleCost(start, 1 / k), run: scaleCost(run, 1 / k) } satisfies StartCost;
}

/**
 * A run admitted at once at a key whose other `limit - 1` slots are held: the holders item then
 * names `limit - 1` runs, and a write of it is charged by its size. Its start and invocation.
 */
export async function busyKeyStart(fw: FlowWorld, fn: string, limit: number): Promise<StartCost> {
  progressLine(`flow: a start admitted at once at a key holding ${limit - 1} of ${limit} slots`);
  const handler = fw.handler(limit);
  const key = nextKey();
  const held = await holders(fw, handler, fn, key, limit - 1);
  const event: FlowEvent = { tenant: key, id: nextId() };
  let runId = '';
  const start = await fw.cost(async () => (runId = (await fw.start(fn, event)).runId));
  const run = await fw.cost(() => fw.drain(handler, fn));
  await expectStatus(fw, runId, 'SUCCEEDED', 'start at a busy key');
  await endHolders(fw, handler, fn, held);
  return { start, run };
}

/** Starts `n` runs of `key` that take a slot each and hold it on a callback; returns their ids (event ids, run ids). */
export async function holders(fw: FlowWorld, handler: DurableLambdaHandler, fn: string, key: string, n: number) {
  return unmetered(fw, async () => {
    const out: Array<{ id: string; runId: string }> = [];
    for (let i = 0; i < n; i++) {
      const id = nextId();
      out.push({ id, runId: (await fw.start(fn, { tenant: key, id, hold: true })).runId });
    }
    await fw.drain(handler, fn);
    for (const h of out) if (!fw.held.has(h.id)) throw new Error(`holder ${h.id} did not take a slot`);
    return out;
  });
}

/** What a queued start costs at `limit`, by part. */
export interface QueuedStart {
  limit: number;
  /** A holder's ending invocation with nobody queued (the baseline of the hand-over). */
  endAlone: Cost;
  /** The start of the run that will queue (`Engine.startRun` and its invoke). */
  start: Cost;
  /** Its first invocation: the key is full, it is queued (QUEUED, lease released). */
  arrival: Cost;
  /** A holder's ending invocation with it queued: release, the head read and taken out of its wait, woken. */
  endHandingOver: Cost;
  /** Its woken invocation: admitted from the head of the queue, then its step and its end. */
  admitted: Cost;
}

/**
 * A key full with `limit` holders (on callbacks); one holder ends with nobody waiting (the
 * baseline), its slot refilled; then a run arrives and is queued; then a holder ends, hands its
 * slot over, and the queued run is woken, admitted and runs to its end.
 */
export async function queuedStart(fw: FlowWorld, fn: string, limit: number): Promise<QueuedStart> {
  progressLine(`flow: queued start and hand-over, limit ${limit}`);
  const handler = fw.handler(limit);
  const key = nextKey();
  const held = await holders(fw, handler, fn, key, limit);
  await fw.release(held[0]!.id);
  const endAlone = await fw.cost(() => fw.deliverOne(handler, fn));
  await expectStatus(fw, held[0]!.runId, 'SUCCEEDED', 'holder ending alone');
  held.push(...(await holders(fw, handler, fn, key, 1)));
  const id = nextId();
  let runId = '';
  const start = await fw.cost(async () => (runId = (await fw.start(fn, { tenant: key, id })).runId));
  const arrival = await fw.cost(() => fw.deliverOne(handler, fn));
  await expectStatus(fw, runId, 'QUEUED', 'arrival at a full key');
  await fw.release(held[1]!.id);
  const endHandingOver = await fw.cost(() => fw.deliverOne(handler, fn));
  await expectStatus(fw, held[1]!.runId, 'SUCCEEDED', 'holder handing over');
  const admitted = await fw.cost(() => fw.deliverOne(handler, fn));
  await expectStatus(fw, runId, 'SUCCEEDED', 'queued run after the hand-over');
  const left = await fw.drain(handler, fn);
  if (left.length > 0) throw new Error(`queued start: ${left.length} invocation(s) left over`);
  await endHolders(fw, handler, fn, held.slice(2));
  return { limit, endAlone, start, arrival, endHandingOver, admitted };
}

/** Ends the holders still holding (unmetered), so the function's later figures start clean. */
export async function endHolders(
  fw: FlowWorld,
  handler: DurableLambdaHandler,
  fn: string,
  held: Array<{ id: string }>,
) {
  await unmetered(fw, async () => {
    for (const h of held) await fw.release(h.id);
    await fw.drain(handler, fn);
  });
}

/**
 * A key whose `limit` holders all ended without releasing their slots (each died between its end
 * and its release): a run arriving reads each holder, evicts it, and takes a slot. Its start and
 * invocation.
 */
export async function evictionArrival(fw: FlowWorld, fn: string, limit: number): Promise<StartCost> {
  progressLine(`flow: arrival at a key whose ${limit} holder(s) ended unreleased`);
  const handler = fw.handler(limit);
  const key = nextKey();
  const held = await holders(fw, handler, fn, key, limit);
  await endHolders(fw, handler, fn, held);
  await fw.leakSlots(
    fn,
    key,
    held.map((h) => h.runId),
  );
  const event: FlowEvent = { tenant: key, id: nextId() };
  let runId = '';
  const start = await fw.cost(async () => (runId = (await fw.start(fn, event)).runId));
  const run = await fw.cost(() => fw.drain(handler, fn));
  await expectStatus(fw, runId, 'SUCCEEDED', 'arrival after evictions');
  return { start, run };
}

/** An SQS trigger event's batch invocation and its run's invocation; then the same event again. */
export async function sqsTrigger(fw: FlowWorld, fn: string) {
  progressLine('flow: a run started by an SQS trigger event, and its duplicate delivery');
  const handler = fw.handler();
  await fw.warmFunction(fn);
  const receiver = new TriggerReceiver({
    engine: fw.world.engine,
    invoker: fw.invoker(),
    waker: fw.world.waker,
    clock: fw.world.clock,
  });
  const messageId = `0c6d6a54-3f0e-4b6f-9a5e-${String(++counter).padStart(12, '0')}`;
  const event = {
    Records: [
      {
        messageId,
        receiptHandle: `AQEB${messageId}`,
        body: JSON.stringify({ tenant: nextKey(), id: nextId() }),
        attributes: { ApproximateReceiveCount: '1', SentTimestamp: '1767225600000' },
        messageAttributes: {},
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:orders',
        awsRegion: 'us-east-1',
      },
    ],
  };
  const batch = triggerBatchOf(event, 'durable-bench-wake-ups');
  if (!batch) throw new Error('sqs trigger: not a trigger batch');
  const received = await fw.cost(async () => {
    const answer = await receiver.receive(batch, fn);
    if ('batchItemFailures' in answer && answer.batchItemFailures.length > 0) throw new Error('sqs trigger: failed');
  });
  const run = await fw.cost(() => fw.drain(handler, fn));
  if (run.invocations !== 1) throw new Error(`sqs trigger: ${run.invocations} invocations of the run`);
  const again = await fw.cost(async () => {
    await receiver.receive(batch, fn);
    const more = await fw.drain(handler, fn);
    if (more.length > 0) throw new Error('sqs trigger: the duplicate delivery invoked the run again');
  });
  return { received, run, again, total: sumCosts(received, run) };
}

/**
 * A schedule's firing (overlap `skip`) on a function with `running` RUNNING runs of other keys
 * and `ended` ended ones (seeded, unmetered): the firing's invocation (its overlap check, the
 * start, the invoke), the run's own invocation apart. With `skipped`, one more RUNNING run is
 * the schedule's own (an earlier firing's): the firing starts nothing.
 */
export async function scheduleFiring(fw: FlowWorld, fn: string, running: number, ended: number, skipped = false) {
  progressLine(
    `flow: a schedule firing, ${running} RUNNING and ${ended} ended runs of the function${skipped ? ', skipped' : ''}`,
  );
  const handler = fw.handler();
  await fw.warmFunction(fn);
  // Run keys are table-wide (schedule:<name>:<time>): a name per function keeps them apart.
  const name = `nightly-${fn}`;
  const now = fw.world.clock.now();
  await unmetered(fw, async () => {
    for (let i = 0; i < running; i++) await fw.start(fn, { tenant: nextKey(), id: nextId() }, fw.seeder);
    for (let i = 0; i < ended; i++) {
      const run = await fw.start(fn, { tenant: nextKey(), id: nextId() }, fw.seeder);
      await fw.seeder.cancelRun(run.runId);
    }
    if (skipped) await seedScheduleRun(fw, fn, name, now - 3_600_000, 'skip');
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
      scheduledTime: new Date(now).toISOString(),
      overlap: 'skip',
      input: JSON.stringify({ tenant: nextKey(), id: nextId() }),
    },
  };
  let started = false;
  const fired = await fw.cost(async () => {
    const answer = await receiver.receive(firing, fn);
    started = 'runId' in answer && answer.created;
  });
  if (started === skipped) throw new Error(`schedule firing: ${started ? 'started a run' : 'started no run'}`);
  const run = await fw.cost(() => fw.drain(handler, fn));
  return { running, ended, fired, run };
}

/**
 * Seeds a run of schedule `name` as an earlier firing starts it (through a receiver, so the
 * schedule's register names it), never invoked: it stays RUNNING.
 */
export async function seedScheduleRun(fw: FlowWorld, fn: string, name: string, at: number, overlap: OverlapPolicy) {
  const receiver = new ScheduleReceiver({
    engine: fw.world.engine,
    invoker: { invoke: async () => {} },
    waker: { wakeAt: async () => {} },
    clock: fw.world.clock,
  });
  const input = JSON.stringify({ tenant: nextKey(), id: nextId() });
  const event: ScheduleFiringEvent = {
    durableLambda: { action: 'schedule', name, scheduledTime: new Date(at).toISOString(), overlap, input },
  };
  const answer = await receiver.receive(event, fn);
  if (!('runId' in answer) || !answer.created) throw new Error(`seeding schedule ${name}: no run started`);
}
