/**
 * Section "flow": what flow control per key (`concurrency: { key, limit }`), event triggers and
 * schedules cost in DynamoDB units (issue 26), on DynamoDB Local with the real store and engine
 * (lib/flow-world.ts; measurements in flow-scenarios.ts). WRU and RRU are computed by the meter from
 * the items before and after each write (lib/dynamodb-meter.ts, as for the dynamodb rows), priced
 * at on-demand rates. Runs start as the control API and the receivers start them (`startRun`,
 * then one asynchronous invoke).
 *
 * On the DynamoDB Local at DURABLE_BENCH_DYNAMODB_ENDPOINT when set, in a table of its own
 * deleted at the end; else on one started for this section alone.
 */
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { createDurableTable } from '@durable-lambda/aws';
import { localClient, startDynamoDbLocal, waitUntilReady } from '../../test/support/dynamodb-local-process';
import { TABLE } from '../lib/dynamodb-world';
import { addCost, costText, dollarsPerMillion, FlowWorld, sumCosts } from '../lib/flow-world';
import { emitRows, type FigureRow, figure, progressLine, sizeArg } from './figure-rows';
import { type FlowRow, gateRows } from './flow-gate-rows';
import { atOnce, busyKeyStart, evictionArrival, queuedStart, scheduleFiring, sqsTrigger } from './flow-scenarios';

const size = sizeArg();
/** Limits of the key in the queued-start, hand-over and eviction figures. */
const LIMITS = { smoke: [1, 3], quick: [1, 10], full: [1, 10, 100] }[size];
/** RUNNING runs of the function when a schedule fires. */
const RUNNING = { smoke: [0, 5], quick: [0, 50, 200], full: [0, 100, 1_000] }[size];
/** Ended runs (within their retention) of the function when a schedule fires, none running. */
const ENDED = { smoke: 5, quick: 200, full: 1_000 }[size];
/** QUEUED runs of other keys of the function when a bufferOne firing buffers. */
const QUEUED = { smoke: 5, quick: 200, full: 1_000 }[size];
/** Runs averaged for the starts admitted at once. */
const K = { smoke: 1, quick: 3, full: 5 }[size];

const NO_REFERENCE = 'none: the managed service has no concurrency keys, triggers or schedules of its own';

const rows: FigureRow[] = [];
const row: FlowRow = (metric, cost, note, unit = 'WRU') =>
  rows.push(
    figure({
      section: 'flow',
      metric,
      unit,
      ours: unit === 'WRU' ? cost.wru : cost.rru,
      reference: null,
      referenceName: NO_REFERENCE,
      note: `${costText(cost)}. ${note}`,
    }),
  );

const given = process.env.DURABLE_BENCH_DYNAMODB_ENDPOINT;
if (given) await waitUntilReady(given);
const local = given ? { endpoint: given, stop: async () => {} } : await startDynamoDbLocal();
try {
  const fw = new FlowWorld(local.endpoint);
  // `BENCH_FLOW_TRACE=1`: every DynamoDB request and what it was charged, on stderr.
  fw.world.meter.trace = process.env.BENCH_FLOW_TRACE === '1';
  await createDurableTable(fw.world.raw, TABLE);
  progressLine('flow: warming up');
  await atOnce(fw, 'flow-plain', undefined, 1);
  await atOnce(fw, 'flow-keyed', 1, 1);

  // ----- The price of the feature: a start admitted at once, with and without `concurrency`.
  progressLine('flow: starts admitted at once, with and without concurrency');
  const plain = await atOnce(fw, 'flow-plain', undefined, K);
  const keyed = await atOnce(fw, 'flow-keyed', 1, K);
  const plainAll = sumCosts(plain.start, plain.run);
  const keyedAll = sumCosts(keyed.start, keyed.run);
  row(
    'flow: start admitted at once under concurrency (free key), extra over the same run without',
    addCost(keyedAll, plainAll, -1),
    `The run: startRun (one PutItem) and its invocation (one step, then its end); without concurrency ${costText(plainAll)}; ` +
      `with it ${costText(keyedAll)}. The extra: the queue's head read (a Query of the key's partition, empty), the slot taken (a conditional ADD to the key's holders item), the admission recorded on the run item, and at the end the slot released (a DELETE from the set) and the queue read again for a head to wake. Mean of ${K}.`,
  );

  const busiest = LIMITS[LIMITS.length - 1]!;
  const busy = await busyKeyStart(fw, 'flow-keyed', busiest);
  row(
    `flow: start admitted at once at a key holding ${busiest - 1} of ${busiest} slots, extra over the same run without`,
    addCost(sumCosts(busy.start, busy.run), plainAll, -1),
    `As the row before, at a busy key: the holders item names every holder (a string set of run ids, ~35 B each), and DynamoDB charges a write by the item's size, before or after, so the slot's take and its release cost ⌈size / 1 KB⌉ WRU each and the holders read ⌈size / 4 KB⌉ RRU. Its start and invocation in all: ${costText(sumCosts(busy.start, busy.run))}.`,
  );

  // ----- A queued start and its hand-over, and the arrival at a full key, by limit.
  for (const limit of LIMITS) {
    const q = await queuedStart(fw, 'flow-keyed', limit);
    const handOver = sumCosts(addCost(q.endHandingOver, q.endAlone, -1), addCost(q.admitted, keyed.run, -1));
    const endToEnd = sumCosts(q.arrival, handOver);
    row(
      `flow: queued start end to end, limit ${limit} (queued at a full key, woken, admitted), extra over a start admitted at once`,
      endToEnd,
      `= its queuing invocation (${q.arrival.wru} WRU, ${q.arrival.rru} RRU) + the hand-over (next row). The run's startRun is the same either way (${q.start.wru} WRU). ` +
        `$${dollarsPerMillion(endToEnd).toFixed(2)} per 1M queued starts in DynamoDB units, besides one more Lambda invocation and one SQS message (the wake-up).`,
    );
    row(
      `flow: slot hand-over, limit ${limit} (a holder ends, the queue's head is woken and admitted)`,
      handOver,
      `= (the holder's ending invocation with a run queued − the same with none: ${q.endHandingOver.wru} − ${q.endAlone.wru} WRU; the head read, taken out of its wait (QUEUED → RUNNING, due now), woken through SQS) + ` +
        `(the woken run's invocation − the same run's invocation admitted at once: ${q.admitted.wru} − ${keyed.run.wru} WRU; its queue entry read and deleted, the holders read again).`,
    );
    row(
      `flow: arrival at a full key, limit ${limit}: its queuing invocation`,
      q.arrival,
      `The run's lease, the queue's head read, the slot refused (a failed conditional write is charged), the holders item read, then each of the ${limit} holder(s) read (one strongly consistent GetItem each: is it still RUNNING?), the queue entry put, the run marked QUEUED with its lease released (the status change moves its listing entry, its due time moves its due entry).`,
      'RRU',
    );
  }
  for (const limit of LIMITS) {
    const e = await evictionArrival(fw, 'flow-keyed', limit);
    const extra = addCost(sumCosts(e.start, e.run), keyedAll, -1);
    row(
      `flow: arrival at a full key whose ${limit} holder(s) ended unreleased (eviction), extra over a start admitted at once`,
      extra,
      `Each holder died between its end and its slot's release (put back in the holders set to play it); the arrival reads each holder (a GetItem), releases the ended ones (an UpdateItem each), and takes its slot. Its start and invocation in all: ${costText(sumCosts(e.start, e.run))}.`,
    );
  }

  // ----- The other gates, and a schedule's bufferOne overlap.
  await gateRows(fw, row, plainAll, QUEUED);

  // ----- Triggers.
  const t = await sqsTrigger(fw, 'flow-trigger');
  row(
    'flow: run started by an SQS trigger event, end to end (the batch invocation and the run’s)',
    t.total,
    `The batch invocation (startRun keyed sqs:<messageId>, one asynchronous invoke): ${costText(t.received)}; the run's invocation: ${costText(t.run)}. ` +
      `The same run started by the control API (startRun and its invocation, no concurrency): ${plainAll.wru.toFixed(2)} WRU, ${plainAll.rru.toFixed(2)} RRU; the run's input here is the message (id, body, source ARN).`,
  );
  row(
    'flow: the same SQS trigger event delivered again (finds its run, starts nothing)',
    t.again,
    'A redelivery: startRun finds the run by its key (a failed conditional put, charged, then the run read), and the run, invoked already, is not invoked again.',
  );

  // ----- Schedules: the overlap check reads the function's RUNNING runs, page by page.
  let i = 0;
  for (const running of RUNNING) {
    const s = await scheduleFiring(fw, `flow-sched-${i++}`, running, 0);
    row(
      `flow: schedule firing, ${running.toLocaleString('en-US')} RUNNING runs of the function (overlap check, start, invoke)`,
      s.fired,
      `The overlap check reads the schedule's register (one strongly consistent GetItem, and one per live run it names: none here), names the new run in it (one conditional PutItem), then startRun keyed schedule:<function>:<name>:<time> and one invoke; the function's other runs are never read. The run's own invocation apart: ${costText(s.run)}.`,
      'RRU',
    );
  }
  const most = RUNNING[RUNNING.length - 1]!;
  const skipped = await scheduleFiring(fw, `flow-sched-${i++}`, most, 0, true);
  row(
    `flow: schedule firing skipped (overlap skip), ${most.toLocaleString('en-US')} RUNNING runs of the function and one of the schedule's`,
    skipped.fired,
    "A firing that finds the schedule's previous run still RUNNING: the register's read and the previous run's, and no start (a duplicate firing finds its own run named there).",
    'RRU',
  );
  const ended = await scheduleFiring(fw, `flow-sched-${i++}`, 0, ENDED);
  row(
    `flow: schedule firing, 0 RUNNING and ${ENDED.toLocaleString('en-US')} ended runs of the function in their retention`,
    ended.fired,
    "As with none: the register names the schedule's own runs only, so ended runs of the function in their retention are never read.",
    'RRU',
  );
} finally {
  if (given) {
    const client = localClient(given);
    await client.send(new DeleteTableCommand({ TableName: TABLE })).catch(() => undefined);
    client.destroy();
  }
  await local.stop();
}
emitRows(rows);
