/**
 * Section "partitions": how the table's writes spread over partition key values, measured from what
 * the store writes on DynamoDB Local (the meter attributes each table and index write to the
 * partition key value it lands in, the indexes' key schemas read from DescribeTable), never from a
 * description of the layout:
 *
 * - a burst of N runs of the reference workflow over 3 functions, started in the same second and
 *   woken in the same second (as a burst of traffic, or a minute's wake-ups, lands), its write
 *   units per partition key value scaled to 10,000 run starts and 10,000 wake-ups a second;
 * - 1,000 runs left RUNNING over 3 functions: the largest share any one partition key value takes
 *   of each index (a Scan of the index).
 *
 * A run of each function goes first, to its end, unmeasured: what is written once per function
 * or per table is not traffic. Scaling: a value that holds one run's id (the run's own items) takes that run's writes only,
 * which land within its invocation (under a second); any other value's units are the burst's,
 * times 10,000 / N. Values that differ only in their digits (shards of one family, such as a due
 * shard or a time bucket's shards) are taken as spread evenly over the values the burst wrote:
 * with a few hundred runs over tens of shards, the sample's busiest shard would otherwise read up to
 * twice its share (its own figure is in the note).
 */
import { type AttributeValue, DeleteTableCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { createDurableTable } from '@durable-lambda/aws';
import { runIdFor } from '@durable-lambda/engine';
import { localClient } from '../../test/support/dynamodb-local-process';
import type { PartitionWrites } from '../lib/dynamodb-meter';
import { ORDER, World, workflowHandler } from '../lib/dynamodb-world';
import { type BenchSize, type FigureRow, figure, progressLine } from './figure-rows';

/** The 3 functions the runs are spread over. */
const FUNCTIONS = ['orders', 'payments', 'emails'];
/** The rates the rows model. */
const STARTS_PER_S = 10_000;
const WAKES_PER_S = 10_000;
/** DynamoDB's most write units one partition takes a second. */
const PARTITION_WCU = 1_000;

/** Runs in the burst, and runs left RUNNING for the shares, by size. */
const BURST = { smoke: 12, quick: 150, full: 500 };
const RUNNING = { smoke: 24, quick: 1_000, full: 1_000 };

/** Plays Lambda for everything queued or due (async invokes, schedules, SQS messages), in time order. */
async function drain(world: World, handler: ReturnType<typeof workflowHandler>): Promise<number> {
  let n = 0;
  for (;;) {
    const queued = world.lambda.queue.shift();
    const requestId = `drain-${process.pid}-${++n}`;
    if (queued !== undefined) {
      await world.invoke(handler, queued, { via: 'invoke', requestId });
      continue;
    }
    const scheduledAt = Math.min(...[...world.scheduler.schedules.values()].map((x) => x.at));
    const visibleAt = world.sqs.nextVisibleAt();
    if (visibleAt !== undefined && visibleAt <= scheduledAt) {
      world.clock.advanceTo(visibleAt);
      await world.invoke(handler, world.sqs.receiveNext(), { via: 'sqs', requestId });
      continue;
    }
    const schedule = world.scheduler.takeEarliest();
    if (!schedule) return n - 1;
    world.clock.advanceTo(schedule.at);
    await world.invoke(handler, JSON.parse(schedule.input), { via: 'schedule', requestId });
  }
}

/** A world of 3 functions on a table of its own (deleted by `done`). */
async function freshWorld(endpoint: string, name: string) {
  const tableName = `durable-bench-${name}-${process.pid}`;
  const world = new World(endpoint, { functionNames: FUNCTIONS, tableName });
  await createDurableTable(world.raw, tableName);
  const done = async () => {
    const client = localClient(endpoint);
    await client.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined);
    client.destroy();
  };
  return { world, tableName, done };
}

/** Per target and family of values: units of the burst's starts and wake-ups, and the values written. */
interface Family {
  start: number;
  wake: number;
  values: Map<string, { start: number; wake: number }>;
}

const familyOf = (value: string) => value.replace(/\d+/g, '#');

/** Peak write units per second on one partition key value of each target, scaled from the burst. */
function peaks(starts: PartitionWrites, wakes: PartitionWrites, runIds: string[], n: number) {
  const targets = new Set([...starts.keys(), ...wakes.keys()]);
  return [...targets].map((target) => {
    let perRun = { wcu: 0, value: '' };
    const families = new Map<string, Family>();
    for (const [phase, writes] of [
      ['start', starts],
      ['wake', wakes],
    ] as const) {
      for (const [value, w] of writes.get(target) ?? []) {
        if (runIds.some((id) => value.includes(id))) {
          // One run's own value: its writes in one invocation, within a second.
          if (w.wru > perRun.wcu) perRun = { wcu: w.wru, value };
          continue;
        }
        const family = families.get(familyOf(value)) ?? { start: 0, wake: 0, values: new Map() };
        families.set(familyOf(value), family);
        family[phase] += w.wru;
        const v = family.values.get(value) ?? { start: 0, wake: 0 };
        family.values.set(value, v);
        v[phase] += w.wru;
      }
    }
    const rate = (x: { start: number; wake: number }) => (x.start / n) * STARTS_PER_S + (x.wake / n) * WAKES_PER_S;
    const shared = [...families].map(([name, f]) => {
      const busiest = [...f.values].sort((a, b) => rate(b[1]) - rate(a[1]))[0]!;
      return {
        name,
        wcu: rate(f) / f.values.size,
        values: f.values.size,
        busiest: { value: busiest[0], wcu: rate(busiest[1]) },
      };
    });
    shared.sort((a, b) => b.wcu - a.wcu);
    const top = shared[0];
    const peak = Math.max(perRun.wcu, top?.wcu ?? 0);
    return { target, peak, perRun, shared };
  });
}

/** The partition rows: peak WCU/s per key value at 10,000 starts and wake-ups a second, and each index's largest share. */
export async function partitionRows(endpoint: string, size: BenchSize): Promise<FigureRow[]> {
  const rows: FigureRow[] = [];
  const n = BURST[size];

  // ----- The burst: N starts in one second, then their N wake-ups in one second.
  progressLine(`partitions: ${n} runs started, then woken, in one burst each`);
  const burst = await freshWorld(endpoint, 'burst');
  try {
    const { world } = burst;
    const handler = workflowHandler(world);
    await world.meter.shape();
    // A run of each function first, to its end: writes made once per function or per table (a
    // registry of function names, say) are then behind us, as they are in steady traffic.
    for (const [i, functionName] of FUNCTIONS.entries()) {
      await world.invoke(handler, ORDER, { via: 'start', requestId: `warm-${process.pid}-${i}`, functionName });
    }
    await drain(world, handler);
    world.meter.partitions = new Map();
    const runIds: string[] = [];
    for (let i = 0; i < n; i++) {
      const requestId = `burst-${process.pid}-${i}`;
      world.meter.tag = requestId;
      runIds.push(runIdFor(requestId));
      await world.invoke(handler, ORDER, { via: 'start', requestId, functionName: FUNCTIONS[i % FUNCTIONS.length] });
    }
    const starts = world.meter.partitions;
    world.meter.partitions = new Map();
    world.meter.tag = 'wake';
    const invoked = await drain(world, handler);
    const wakes = world.meter.partitions;
    for (const p of peaks(starts, wakes, runIds, n)) {
      const families = p.shared
        .slice(0, 4)
        .map(
          (f) =>
            `${f.name}: ${f.wcu.toFixed(0)} WCU/s on each of the ${f.values} value(s) written (busiest in the sample ${f.busiest.value}: ${f.busiest.wcu.toFixed(0)})`,
        )
        .join('; ');
      rows.push(
        figure({
          section: 'partitions',
          metric: `peak WCU/s on one partition key value, ${p.target === 'table' ? 'base table' : `index ${p.target}`}, 10,000 starts/s + 10,000 wake-ups/s`,
          unit: 'WCU/s',
          ours: p.peak,
          reference: PARTITION_WCU,
          referenceName: 'DynamoDB: at most 1,000 write units a second per partition',
          target: '≤ 1,000 WCU/s (ratio ≥ 1)',
          met: (_r, ours) => ours <= PARTITION_WCU,
          note:
            `measured: ${n} runs of the reference workflow over ${FUNCTIONS.length} functions, started in one burst, then ${invoked} invocations (hops and wake-ups) in one; scaled to ${STARTS_PER_S.toLocaleString('en-US')} starts and ${WAKES_PER_S.toLocaleString('en-US')} wake-ups a second. ` +
            `One run's own value: at most ${p.perRun.wcu} WRU in an invocation (${p.perRun.value || 'none'}). Shared values (digits as #): ${families || 'none'}.` +
            (p.peak > PARTITION_WCU
              ? ` Over by ${(p.peak / PARTITION_WCU).toFixed(1)}×: at that rate the value throttles, and a throttled index write fails the table write that caused it.`
              : ''),
        }),
      );
    }
  } finally {
    await burst.done();
  }

  // ----- Runs left RUNNING over 3 functions: each index's largest partition key value.
  const running = RUNNING[size];
  progressLine(`partitions: ${running} runs left running over ${FUNCTIONS.length} functions`);
  const held = await freshWorld(endpoint, 'running');
  try {
    const { world, tableName } = held;
    world.meter.computeUnits = false;
    const handler = workflowHandler(world);
    for (let i = 0; i < running; i++) {
      await world.invoke(handler, ORDER, {
        via: 'start',
        requestId: `running-${process.pid}-${i}`,
        functionName: FUNCTIONS[i % FUNCTIONS.length],
      });
    }
    const shape = await world.meter.shape();
    for (const index of shape.indexes) {
      const counts = new Map<string, number>();
      let start: Record<string, AttributeValue> | undefined;
      do {
        const page = await world.raw.send(
          new ScanCommand({
            TableName: tableName,
            IndexName: index.name,
            ...(start ? { ExclusiveStartKey: start } : {}),
          }),
        );
        for (const item of page.Items ?? []) {
          const value = index.hashKeys.map((k) => item[k]?.S ?? item[k]?.N ?? '').join(' | ');
          counts.set(value, (counts.get(value) ?? 0) + 1);
        }
        start = page.LastEvaluatedKey;
      } while (start);
      const total = [...counts.values()].reduce((a, b) => a + b, 0);
      const sorted = [...counts].sort((a, b) => b[1] - a[1]);
      const [value, most] = sorted[0] ?? ['', 0];
      const share = total > 0 ? most / total : 0;
      rows.push(
        figure({
          section: 'partitions',
          metric: `largest share of one partition key value, index ${index.name}, ${running.toLocaleString('en-US')} running runs over ${FUNCTIONS.length} functions`,
          unit: '%',
          ours: share * 100,
          reference: 100,
          referenceName: 'one value for the whole index (a single-valued partition key)',
          target: '< 100% (no single-valued key)',
          met: () => total === 0 || share < 1,
          note:
            `${total} entries in ${counts.size} partition key value(s) (key ${index.hashKeys.join(' + ')}); largest ${value || '(none)'}: ${most}` +
            (sorted.length > 1
              ? `; next ${sorted
                  .slice(1, 4)
                  .map(([v, c]) => `${v}: ${c}`)
                  .join(', ')}`
              : '') +
            (total === 0 ? ' (no running run is in this index: it is sparse)' : ''),
        }),
      );
    }
  } finally {
    await held.done();
  }
  return rows;
}
