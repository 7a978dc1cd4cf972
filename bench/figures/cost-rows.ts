/**
 * The "cost" rows of the dynamodb section: everything a user pays at the CDK's defaults, ours next
 * to the managed service in the same run, for the reference run (4 short steps + a 1 h wait), a
 * callback and a wait (lib/cost-model.ts holds the prices and their sources).
 *
 * Ours: DynamoDB writes, reads and storage until each item's TTL; Scheduler invocations; SQS
 * requests (send, receive, delete); Lambda requests and billed duration at the CDK's memory and
 * architecture (CPU measured per invocation, each AWS call's round trip, the modelled hold of an
 * SQS wake-up); CloudWatch Logs (Lambda's START/END/REPORT lines and what our runtime wrote,
 * measured); a callback's control API invocation; the fixed part spread over a stated volume.
 * Managed: its durable operations, data written and retained, and the same Lambda function's
 * requests, duration and logs, its checkpoint calls counted from AWS's SDK run on our transport.
 */
import {
  CDK_API_FUNCTION,
  CDK_FUNCTION,
  CDK_RETENTION_DAYS,
  dynamoStorageDollars,
  FIXED,
  fixedMonthly,
  type LambdaSize,
  lambdaDollars,
  logDollars,
  MS_PER_AWS_CALL,
  PRICE,
  platformLogBytes,
  vcpuShare,
} from '../lib/cost-model';
import {
  answerCallbacks,
  callbacksHandler,
  expectRun,
  type Invocation,
  type Measured,
  ORDER,
  type World,
  waitsHandler,
  workflowHandler,
} from '../lib/dynamodb-world';
import { awsCallbacks, awsWaits, awsWorkflow, driveManaged, type ManagedInvocation } from '../lib/managed-side';
import { type FigureRow, figure, medianOf, progressLine } from './figure-rows';
import { latenessStats, MODEL_SEED } from './wake-lateness-model';

/** A bill: $ per item, for one run (or one unit). */
type Bill = Map<string, number>;

const sum = (bill: Bill) => [...bill.values()].reduce((a, b) => a + b, 0);
const add = (bill: Bill, item: string, dollars: number) => bill.set(item, (bill.get(item) ?? 0) + dollars);
/** (a − b) / k, item by item: the bill of one unit. */
function perUnit(a: Bill, b: Bill, k: number): Bill {
  const out: Bill = new Map();
  for (const item of new Set([...a.keys(), ...b.keys()])) out.set(item, ((a.get(item) ?? 0) - (b.get(item) ?? 0)) / k);
  return out;
}
/** The bill as the note prints it, per 1M runs or units, largest first. */
const describe = (bill: Bill) =>
  [...bill]
    .filter(([, d]) => Math.abs(d) >= 0.005e-6)
    .sort((a, b) => b[1] - a[1])
    .map(([item, d]) => `${item} $${(d * 1e6).toFixed(2)}`)
    .join(', ');

/** Lambda ms of one of our invocations billed at `size`: its CPU at the size's vCPU share, its AWS calls, its hold. */
const billedMs = (inv: Invocation, cpuMs: number, holdS: number, size: LambdaSize) =>
  cpuMs / vcpuShare(size.memoryMb) +
  (inv.dynamodb + inv.otherCalls) * MS_PER_AWS_CALL +
  (inv.via === 'sqs' ? holdS * 1000 : 0);

/**
 * What we charge for a measured run. `cpu`: CPU ms per invocation from an unmetered drive of the
 * same run (the meter's own reads would inflate it); `holdS`: the modelled mean hold of an SQS
 * wake-up; `api`: control API invocations made on the run's behalf (callbacks).
 */
function ourBill(m: Measured, cpu: number[], holdS: number, api: Invocation[] = []): Bill {
  const bill: Bill = new Map();
  const t = m.totals;
  add(bill, 'DynamoDB writes', (t.wru * PRICE.writeUnitPerM) / 1e6);
  add(bill, 'DynamoDB reads', (t.rru * PRICE.readUnitPerM) / 1e6);
  const byteDays = [...m.storageByteDays.values()].reduce((a, b) => a + b, 0);
  add(bill, 'DynamoDB storage', dynamoStorageDollars(byteDays));
  const fired = [...m.fired.values()].reduce((a, b) => a + b, 0);
  add(bill, 'Scheduler', (fired * PRICE.schedulerInvocationPerM) / 1e6);
  add(bill, 'SQS', ((m.sqsSends + m.sqsReceives + m.sqsDeletes) * PRICE.sqsRequestPerM) / 1e6);
  const invocations: Array<[Invocation, number, LambdaSize]> = [
    ...m.invocations.map((inv, i): [Invocation, number, LambdaSize] => [inv, cpu[i] ?? medianOf(cpu), CDK_FUNCTION]),
    ...api.map((inv): [Invocation, number, LambdaSize] => [inv, inv.cpuMs, CDK_API_FUNCTION]),
  ];
  for (const [inv, cpuMs, size] of invocations) {
    const ms = billedMs(inv, cpuMs, holdS, size);
    const lambda = lambdaDollars(ms, size);
    add(bill, 'Lambda requests', PRICE.lambdaRequestPerM / 1e6);
    add(bill, 'Lambda duration', lambda - PRICE.lambdaRequestPerM / 1e6);
    add(
      bill,
      'logs',
      logDollars(platformLogBytes({ ms, memoryMb: size.memoryMb }) + inv.logBytes, CDK_FUNCTION.logRetentionDays),
    );
  }
  return bill;
}

/**
 * What the managed service charges for the same run: `operations` durable operations, the data
 * its SDK checkpointed (written, and retained for the same retention as ours), and the function's
 * invocations, each billed for its checkpoint round trips alone (no code time: the managed side
 * is not charged for its SDK's CPU here, which only flatters it).
 */
function managedBill(operations: number, invocations: ManagedInvocation[]): Bill {
  const bill: Bill = new Map();
  add(bill, 'durable operations', (operations * PRICE.managedOperationPerM) / 1e6);
  const gb = invocations.reduce((s, i) => s + i.updateBytes, 0) / 2 ** 30;
  add(bill, 'data written', gb * PRICE.managedWrittenGb);
  add(bill, 'data retained', gb * CDK_RETENTION_DAYS * (12 / 365.25) * PRICE.managedRetainedGbMonth);
  for (const inv of invocations) {
    const ms = (inv.checkpoints + inv.stateReads) * MS_PER_AWS_CALL;
    add(bill, 'Lambda requests', PRICE.lambdaRequestPerM / 1e6);
    add(bill, 'Lambda duration', lambdaDollars(ms, CDK_FUNCTION) - PRICE.lambdaRequestPerM / 1e6);
    add(
      bill,
      'logs',
      logDollars(platformLogBytes({ ms, memoryMb: CDK_FUNCTION.memoryMb }), CDK_FUNCTION.logRetentionDays),
    );
  }
  return bill;
}

/**
 * CPU ms per invocation of `drive`: the least of `repeats` unmetered drives, invocation by
 * invocation (the meter's own reads would add to it; so does a shared machine's load, never less).
 */
async function cpuPerInvocation(world: World, repeats: number, drive: () => Promise<Measured>): Promise<number[]> {
  const was = world.meter.computeUnits;
  world.meter.computeUnits = false;
  try {
    const runs: number[][] = [];
    for (let i = 0; i < repeats; i++) runs.push((await drive()).invocations.map((inv) => inv.cpuMs));
    const n = Math.max(...runs.map((r) => r.length));
    return Array.from({ length: n }, (_, i) => Math.min(...runs.map((r) => r[i] ?? Number.POSITIVE_INFINITY)));
  } finally {
    world.meter.computeUnits = was;
  }
}

const met4 = (r: number | null) => r !== null && r >= 4;

/** The cost rows: the reference run, a callback and a wait, all in, ours against the managed service. */
export async function costRows(
  world: World,
  options: { units: number; repeats: number; samples: number },
): Promise<FigureRow[]> {
  const { units: k, repeats } = options;
  const size = `${CDK_FUNCTION.memoryMb} MB ${CDK_FUNCTION.architecture}`;
  // The hold of an SQS wake-up after a 1 h wait (a Scheduler hop's final message), modelled.
  const hold = latenessStats('adaptive', 3600, options.samples, MODEL_SEED).meanHold;
  const fixed = fixedMonthly();
  const rows: FigureRow[] = [];

  // ----- The reference run.
  progressLine('cost: the reference run, ours and with AWS’s SDK');
  const flow = await world.drive(workflowHandler(world), ORDER);
  expectRun(flow, 'reference run', {
    orderId: ORDER.orderId,
    reservationId: `res-${ORDER.orderId}`,
    chargeId: `ch-${ORDER.orderId}`,
    trackingId: `trk-${ORDER.orderId}`,
  });
  const flowCpu = await cpuPerInvocation(world, repeats, () => world.drive(workflowHandler(world), ORDER));
  const ours = ourBill(flow, flowCpu, hold);
  add(ours, 'fixed part', fixed.usd / FIXED.runsPerMonth);
  const managedFlow = await driveManaged(world, awsWorkflow(), ORDER);
  // Managed operations: the execution's start, 4 steps, 1 wait.
  const managed = managedBill(6, managedFlow.invocations);
  const ourLogs = flow.invocations.map((inv) => `${inv.logLines} line(s) ${inv.logBytes} B`).join(', ');
  const ourMs = flow.invocations.map((inv, i) => billedMs(inv, flowCpu[i] ?? 0, hold, CDK_FUNCTION).toFixed(0));
  rows.push(
    figure({
      section: 'cost',
      metric: '$ per 1M reference runs (4 steps + 1 h wait), all in, CDK defaults',
      unit: '$',
      ours: sum(ours) * 1e6,
      reference: sum(managed) * 1e6,
      referenceName: 'managed durable functions: 6 operations × $8.00/M + data + the same Lambda function',
      target: 'ratio ≥ 4 (≤ a quarter)',
      met: met4,
      note:
        `ours: ${describe(ours)}; managed: ${describe(managed)}. ` +
        `Lambda at ${size} (the DurableFunction default): ${flow.invocations.length} invocations (${flow.invocations.map((i) => i.via).join(', ')}) billed ${ourMs.join(' + ')} ms ` +
        `(CPU measured here ÷ ${vcpuShare(CDK_FUNCTION.memoryMb).toFixed(2)} vCPU, ${MS_PER_AWS_CALL} ms per AWS call, ${hold.toFixed(3)} s modelled hold of the SQS wake-up); ` +
        `managed: ${managedFlow.invocations.length} invocations, ${managedFlow.invocations.map((i) => i.checkpoints).join(' + ')} checkpoint calls by AWS's SDK (counted), ${managedFlow.invocations.reduce((s, i) => s + i.updateBytes, 0)} B checkpointed. ` +
        `Logs: Lambda's START/END/REPORT lines each invocation, both sides, and ours ${ourLogs}; ${CDK_FUNCTION.logRetentionDays} days kept. ` +
        `Storage: ${(flow.storedBytes / 1024).toFixed(1)} KB, each item until its own TTL (${[...flow.storageByteDays]
          .map(([kind, bd]) => {
            const bytes = flow.storedBytesByKind.get(kind) ?? 0;
            return `${kind} ${bytes} B for ${(bytes > 0 ? bd / bytes : 0).toFixed(0)} days`;
          })
          .join(', ')})` +
        (flow.unexpiringBytes > 0 ? `, ${flow.unexpiringBytes} B with no TTL (not priced: kept until deleted)` : '') +
        `. Fixed part: $${fixed.usd.toFixed(2)} a month (${fixed.source}) over ${FIXED.runsPerMonth.toLocaleString('en-US')} runs a month (assumed; at 10,000 runs a month it is $${((fixed.usd / 10_000) * 1e6).toFixed(0)} per 1M runs).`,
    }),
  );

  // ----- Per callback: (K callbacks − none) / K, each with its wake-up and its control API call.
  progressLine('cost: callbacks and waits, ours and with AWS’s SDK');
  const pending: string[] = [];
  const base = await world.drive(waitsHandler(world, 0), {});
  const baseCpu = await cpuPerInvocation(world, repeats, () => world.drive(waitsHandler(world, 0), {}));
  const answers: Invocation[] = [];
  const callbacks = await world.drive(
    callbacksHandler(world, k, pending),
    {},
    { onIdle: answerCallbacks(world, pending, answers) },
  );
  expectRun(callbacks, 'callbacks', k);
  const callbacksCpu = await cpuPerInvocation(world, repeats, () =>
    world.drive(callbacksHandler(world, k, pending), {}, { onIdle: answerCallbacks(world, pending) }),
  );
  const ourCallback = perUnit(ourBill(callbacks, callbacksCpu, hold, answers), ourBill(base, baseCpu, hold), k);
  const awsPending: string[] = [];
  const managedBase = await driveManaged(world, awsWaits(0), {});
  const managedCallbacks = await driveManaged(
    world,
    awsCallbacks(k, awsPending),
    {},
    { onIdle: answerCallbacks(world, awsPending) },
  );
  const managedCallback = perUnit(
    managedBill(1 + k, managedCallbacks.invocations),
    managedBill(1, managedBase.invocations),
    k,
  );
  rows.push(
    figure({
      section: 'cost',
      metric: '$ per 1M callbacks, all in (its wake-up and the control API call)',
      unit: '$',
      ours: sum(ourCallback) * 1e6,
      reference: sum(managedCallback) * 1e6,
      referenceName: 'managed: 1 durable operation × $8.00/M + data + the wake-up invocation',
      target: 'ratio ≥ 4 (≤ a quarter)',
      met: met4,
      note:
        `ours: ${describe(ourCallback)}; managed: ${describe(managedCallback)}. Mean of ${k}; each callback completed through the control API (DurableApi, ${CDK_API_FUNCTION.memoryMb} MB: ` +
        `${(answers.reduce((s, a) => s + a.dynamodb + a.otherCalls, 0) / Math.max(1, answers.length)).toFixed(1)} AWS calls each), which wakes the run: one invocation of the function. ` +
        `Managed: AWS's waitForCallback also checkpoints a child context and its submitter step (counted in its checkpoint calls), billed here as 1 operation (if AWS bills them as 3, its price is ×3 on that part).`,
    }),
  );

  // ----- Per wait (1 h): (K waits − none) / K, each with its Scheduler hop and its SQS wake-up.
  const waits = await world.drive(waitsHandler(world, k), {});
  expectRun(waits, 'waits', k);
  const waitsCpu = await cpuPerInvocation(world, repeats, () => world.drive(waitsHandler(world, k), {}));
  const ourWait = perUnit(ourBill(waits, waitsCpu, hold), ourBill(base, baseCpu, hold), k);
  const managedWaits = await driveManaged(world, awsWaits(k), {});
  const managedWait = perUnit(managedBill(1 + k, managedWaits.invocations), managedBill(1, managedBase.invocations), k);
  rows.push(
    figure({
      section: 'cost',
      metric: '$ per 1M waits (1 h), all in (the Scheduler hop and the SQS wake-up)',
      unit: '$',
      ours: sum(ourWait) * 1e6,
      reference: sum(managedWait) * 1e6,
      referenceName: 'managed: 1 durable operation × $8.00/M + data + the wake-up invocation',
      target: 'ratio ≥ 4 (≤ a quarter)',
      met: met4,
      note:
        `ours: ${describe(ourWait)}; managed: ${describe(managedWait)}. Mean of ${k}; each wait: a schedule 10 min ahead (1 Scheduler invocation), its delivery (an invocation that sends the final SQS message), ` +
        `the SQS wake-up (3 SQS requests, an invocation holding ${hold.toFixed(3)} s on average, modelled: adaptive rounding).`,
    }),
  );
  return rows;
}
