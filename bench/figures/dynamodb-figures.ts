/**
 * Sections "replay (DynamoDB)", "dynamodb" and "cost", on DynamoDB Local with the production code
 * path (lib/dynamodb-world.ts: the engine wired like ProductionBackend, default strict semantics,
 * Scheduler, SQS and Lambda faked and counted):
 * - replay: items read, RRU and time of the wake-up invocation of a run holding N completed
 *   operations in a completed map (a child context per item), against the flat design's load;
 * - requests, WRU and stored bytes per sequential step, per map item, per wait and per callback;
 * - Scheduler, SQS and Lambda requests per run;
 * - section "cost" (cost-rows.ts): the reference run, a callback and a wait, all in at the CDK's
 *   defaults, against the managed service in the same run;
 * - section "partitions" (partition-rows.ts): write units per partition key value at 10,000 run
 *   starts and 10,000 wake-ups a second, and each index's largest partition with 1,000 running runs.
 *
 * On the DynamoDB Local at DURABLE_BENCH_DYNAMODB_ENDPOINT when that is set (the smoke test passes
 * its test run's shared instance instead of paying a JVM start here), in a table of its own
 * (`durable-bench-<pid>`) deleted at the end; else on one started for this section alone.
 */
import { DeleteTableCommand, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { createDurableTable, operationSk, runPk } from '@durable-lambda/aws';
import type { DurableContext } from '@durable-lambda/sdk';
import { localClient, startDynamoDbLocal, waitUntilReady } from '../../test/support/dynamodb-local-process';
import { itemSize, type Totals, totalsOf } from '../lib/dynamodb-meter';
import {
  answerCallbacks,
  callbacksHandler,
  expectRun,
  type Measured,
  mapHandler,
  ORDER,
  stepsHandler,
  TABLE,
  World,
  waitsHandler,
  workflowHandler,
} from '../lib/dynamodb-world';
import { costRows } from './cost-rows';
import { emitRows, type FigureRow, figure, progressLine, sizeArg } from './figure-rows';
import { partitionRows } from './partition-rows';

const size = sizeArg();
/**
 * Completed operations held by the replayed run (a map of N/2 items: a context and a step each).
 * 100,000 takes several minutes on DynamoDB Local: BENCH_REPLAY_OPS=1000,10000,100000 runs it.
 */
const REPLAY_OPS = process.env.BENCH_REPLAY_OPS
  ? process.env.BENCH_REPLAY_OPS.split(',').map(Number)
  : { smoke: [100], quick: [1_000], full: [1_000, 10_000] }[size];
const UNITS = { smoke: 3, quick: 10, full: 20 }[size];
/** Unmetered drives per workload whose CPU time per invocation is taken (the median). */
const REPEATS = { smoke: 1, quick: 3, full: 5 }[size];
/** Draws of the lateness model behind the modelled hold. */
const SAMPLES = { smoke: 2_000, quick: 20_000, full: 100_000 }[size];

const rows: FigureRow[] = [];
const given = process.env.DURABLE_BENCH_DYNAMODB_ENDPOINT;
if (given) await waitUntilReady(given);
const local = given ? { endpoint: given, stop: async () => {} } : await startDynamoDbLocal();
try {
  const world = new World(local.endpoint);
  await createDurableTable(world.raw, TABLE);
  progressLine('dynamodb: warming up');
  await world.drive(stepsHandler(world, 3), {});

  // ----- Replay: the wake-up invocation of a run with N completed operations.
  const replays: Array<{ ops: number; m: Measured; wake: Measured['invocations'][number]; mapKb: number }> = [];
  for (const ops of REPLAY_OPS) {
    progressLine(`replay (DynamoDB): ${ops} completed operations`);
    const items = ops / 2;
    const handler = world.handler(async (_e: unknown, ctx: DurableContext) => {
      const done = await ctx.map(
        'work',
        Array.from({ length: items }, (_, i) => i),
        (child, i) => child.step('item', async () => i),
        { maxConcurrency: 1_000 },
      );
      await ctx.wait('pause', { hours: 1 });
      return done.succeeded().length;
    });
    // Units are computed (items read before and after each write) only for the wake-up.
    world.meter.computeUnits = false;
    const seeded = performance.now();
    const m = await world.drive(handler, {}, { beforeCall: (i) => (world.meter.computeUnits = i > 0) });
    progressLine(
      `replay (DynamoDB): ${ops} operations driven in ${((performance.now() - seeded) / 1000).toFixed(1)} s`,
    );
    world.meter.computeUnits = true;
    expectRun(m, `replay N=${ops}`, items);
    // The completed map's own record holds its stored result (the summary of its N/2 items): the
    // replay needs it whatever the design, and it grows with the items, not with what they ran.
    const mapItem = await world.raw.send(
      new GetItemCommand({
        TableName: TABLE,
        Key: { pk: { S: runPk(m.run.runId) }, sk: { S: operationSk('1') } },
        ConsistentRead: true,
      }),
    );
    replays.push({ ops, m, wake: m.invocations[m.invocations.length - 1]!, mapKb: itemSize(mapItem.Item) / 1024 });
  }
  // Flat: the largest N reads at most twice what the smallest does (one size: not judged).
  const firstReplay = replays[0]!;
  const flatAgainst = (value: (r: (typeof replays)[number]) => number, r: (typeof replays)[number]) =>
    replays.length > 1 ? value(r) <= 2 * value(firstReplay) : null;
  for (const r of replays) {
    const { m, wake } = r;
    const n = r.ops.toLocaleString('en-US');
    const itemsFlat = flatAgainst((x) => x.wake.itemsRead, r);
    const rruFlat = flatAgainst((x) => x.wake.rru, r);
    const judged = (flat: boolean | null) => (flat === null ? {} : { met: () => flat });
    rows.push(
      figure({
        section: 'replay',
        metric: `DynamoDB items read by the wake-up invocation, ${n} completed operations`,
        unit: 'items',
        ours: wake.itemsRead,
        reference: 3,
        referenceName: 'flat design: run item + 1 record per completed context + live operations',
        target: 'flat in N (≈ reference)',
        ...judged(itemsFlat),
        note: `the run holds ${m.operations.toLocaleString('en-US')} operations; the wake-up reads the run item (getRun), then loadReplayOperations: one Query in tree order that jumps over a finished context's subtree (packages/aws/TABLE.md, "The replay load"): the execution, the completed map's own record and the rest of its first page (16 small items, ~1 RRU) read into the map's subtree, then the wait and the run item; ${wake.dynamodb} DynamoDB requests in the invocation (reads and writes).${itemsFlat === null ? ' One size only: flatness not judged.' : ''}`,
      }),
      figure({
        section: 'replay',
        metric: `DynamoDB RRU of the wake-up invocation, ${n} completed operations`,
        unit: 'RRU',
        ours: wake.rru,
        reference: 1,
        referenceName: 'flat design: 3 small items, one strongly consistent read page',
        target: 'flat in N',
        ...judged(rruFlat),
        note: `computed from item sizes (strongly consistent, 1 RRU per 4 KB of a Query page). ${r.mapKb.toFixed(0)} KB of it is the completed map's own record, i.e. its stored result (the summary of its ${(r.ops / 2).toLocaleString('en-US')} item results): needed by any replay that does not run the map again, it grows with the map's items, not with the operations inside them (a child context returning a small value reads the same few RRU at any N); the reference counts it as one small item.`,
      }),
      figure({
        section: 'replay',
        metric: `wake-up invocation time on DynamoDB Local, ${n} completed operations`,
        unit: 'ms',
        ours: wake.ms,
        reference: null,
        referenceName: 'none: AWS manages its own store (managed limit 3,000 operations per execution)',
        note: 'real time of the handler on DynamoDB Local, units counted (adds a read per page)',
      }),
    );
  }

  // ----- Per unit: (run with K units - the same run with 0) / K.
  const perUnit = (run: Measured, base: Measured, k: number) => {
    const d = (key: keyof Totals) => (run.totals[key] - base.totals[key]) / k;
    return {
      requests: d('requests'),
      writeRequests: d('writeRequests'),
      wru: d('wru'),
      rru: d('rru'),
      bytes: (run.storedBytes - base.storedBytes) / k,
      scheduler: (run.scheduleCreates + run.scheduleDeletes - base.scheduleCreates - base.scheduleDeletes) / k,
      sqs: (run.sqsSends + run.sqsReceives + run.sqsDeletes - base.sqsSends - base.sqsReceives - base.sqsDeletes) / k,
    };
  };
  const pending: string[] = [];
  progressLine('dynamodb: per step, map item, wait, callback');
  const base = await world.drive(stepsHandler(world, 0), {});
  const steps = await world.drive(stepsHandler(world, UNITS), {});
  expectRun(steps, 'steps', UNITS, UNITS + 1);
  const mapBase = await world.drive(
    mapHandler(world, 0, () => 0),
    {},
  );
  const map = await world.drive(
    mapHandler(world, UNITS, () => 0),
    {},
  );
  expectRun(map, 'map', UNITS);
  const waits = await world.drive(waitsHandler(world, UNITS), {});
  expectRun(waits, 'waits', UNITS);
  const callbacks = await world.drive(
    callbacksHandler(world, UNITS, pending),
    {},
    {
      onIdle: answerCallbacks(world, pending),
    },
  );
  expectRun(callbacks, 'callbacks', UNITS);
  // A wait and a callback each end an invocation: their figures hold the wake-up's own reads and writes.
  const units: Array<[string, ReturnType<typeof perUnit>]> = [
    ['sequential step', perUnit(steps, base, UNITS)],
    ['map item (a child context + a step)', perUnit(map, mapBase, UNITS)],
    ['wait (1 h, with its wake-up invocation)', perUnit(waits, base, UNITS)],
    ['callback (with its wake-up invocation)', perUnit(callbacks, base, UNITS)],
  ];
  for (const [what, p] of units) {
    rows.push(
      figure({
        section: 'dynamodb',
        metric: `DynamoDB per ${what}: requests / WRU / stored bytes`,
        unit: 'WRU',
        ours: p.wru,
        reference: null,
        referenceName: 'none (the managed service bills operations, not storage requests)',
        note: `${p.requests.toFixed(2)} requests (${p.writeRequests.toFixed(2)} writes), ${p.wru.toFixed(2)} WRU, ${p.rru.toFixed(2)} RRU, ${p.bytes.toFixed(0)} B stored, ${p.scheduler.toFixed(2)} Scheduler API calls, ${p.sqs.toFixed(2)} SQS requests; strict default semantics; mean of ${UNITS}`,
      }),
    );
  }

  // ----- The 4-step, 1-wait workflow: calls per run and cost per 1M runs.
  progressLine('dynamodb: 4-step, 1-wait workflow');
  const flow = await world.drive(workflowHandler(world), ORDER);
  const t = flow.totals;
  const lambdaInvocations = flow.invocations.length;
  const fired = [...flow.fired.values()].reduce((a, b) => a + b, 0);
  const sqsRequests = flow.sqsSends + flow.sqsReceives + flow.sqsDeletes;
  // The opt-in stricter lease mode (DURABLE_LEASE_WAKEUP=scheduler), measured on the same workflow.
  const strict = new World(local.endpoint, { leaseWakeUp: 'scheduler' });
  const strictFlow = await strict.drive(workflowHandler(strict), ORDER);
  const perInvocation = (m: Measured) => ((m.scheduleCreates + m.scheduleDeletes) / m.invocations.length).toFixed(2);
  rows.push(
    figure({
      section: 'dynamodb',
      metric: 'EventBridge Scheduler API calls per workflow run',
      unit: 'calls',
      ours: flow.scheduleCreates + flow.scheduleDeletes,
      reference: null,
      referenceName: 'none: the managed service wakes runs itself',
      note:
        `${flow.scheduleCreates} CreateSchedule + ${flow.scheduleDeletes} DeleteSchedule: the 1 h wait's schedule, 10 min ahead of its due time (its delivery sends the final SQS hop); ` +
        `${perInvocation(flow)} per invocation: no lease safety schedule (the reconciler stands behind the lease). ${fired} schedule(s) fired. ` +
        `With DURABLE_LEASE_WAKEUP=scheduler (opt-in: a crashed invocation resumes within ~1 min of its lease's end instead of ~3): ${strictFlow.scheduleCreates + strictFlow.scheduleDeletes} calls (${perInvocation(strictFlow)} per invocation), against the account-wide CreateSchedule quota.`,
    }),
    figure({
      section: 'dynamodb',
      metric: 'SQS requests per workflow run',
      unit: 'requests',
      ours: sqsRequests,
      reference: null,
      referenceName: 'none: the managed service wakes runs itself',
      note: `${flow.sqsSends} SendMessage (the hop) + ${flow.sqsReceives} ReceiveMessage + ${flow.sqsDeletes} DeleteMessage by Lambda's event source (one of each per message delivered; the event source's empty long polls of an idle queue are a fixed ~$0.26 per queue-month, not per run)`,
    }),
    figure({
      section: 'dynamodb',
      metric: 'Lambda invocations per workflow run',
      unit: 'invocations',
      ours: lambdaInvocations,
      reference: 2,
      referenceName: 'managed service: the start and the wake-up after the wait',
      note: `the start, the hop (Scheduler's delivery, 10 min before the wait's end, sends the final SQS message) and the wake-up (from SQS, in its own invocation); a wait ≤ 15 min has no hop. ${flow.asyncInvokes} async Invoke API call(s) by the engine; ${t.requests} DynamoDB requests (${t.writeRequests} writes), ${t.wru} WRU, ${t.rru} RRU in all`,
    }),
  );
  rows.push(...(await costRows(world, { units: UNITS, repeats: REPEATS, samples: SAMPLES })));
  rows.push(...(await partitionRows(local.endpoint, size)));
  if (totalsOf(flow.byCommand).failed > 0) throw new Error('a DynamoDB request failed');
} finally {
  if (given) {
    // Someone else's instance: leave it as it was (its memory holds every table until it stops).
    const client = localClient(given);
    await client.send(new DeleteTableCommand({ TableName: TABLE })).catch(() => undefined);
    client.destroy();
  }
  await local.stop();
}
emitRows(rows);
