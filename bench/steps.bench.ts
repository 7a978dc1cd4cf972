/**
 * Sequential-steps benchmark: our LocalDurableTestRunner against AWS's
 * (@aws/durable-execution-sdk-js-testing, time skipping on), in one process.
 *
 *   npm run bench                          # N = 10, 100, 1,000, 10,000
 *   npm run bench -- --quick               # N = 10, 100 (CI smoke); also: npm --prefix bench run bench:quick
 *
 * For each N it measures:
 *   run     a handler doing N steps and returning: one invocation.
 *   replay  the same N steps, then wait({ seconds: 1 }) and one more step: two invocations, the
 *           second replaying all N completed steps. Two figures per step:
 *           Δ/step    = (replay run - run) / N: replay with loading the log; it also holds the wait,
 *                       the last step and the second invocation's fixed cost, measured on their
 *                       own at N = 0 and printed, so they can be judged;
 *           loop/step = the N-step loop's real time inside the handler in the second invocation / N.
 *   heap    (ours only) heap still held by a finished run (result kept), after a forced GC, per step.
 *
 * AWS's SDK may sleep through a short wait inside the same invocation (a race between its 20 ms
 * termination cooldown and the runner's fake clock), in which case nothing is replayed. Such runs
 * are discarded from the replay figures and counted; only runs that took two invocations count.
 *
 * AWS's runner installs @sinonjs/fake-timers globally (performance.now, Date, hrtime and the timers
 * are faked), so every time here is read from the real performance.now captured at load, and all
 * of our runs are done before AWS's environment is set up.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  type DurableContext as AwsContext,
  withDurableExecution as awsWithDurableExecution,
} from '@aws/durable-execution-sdk-js';
import { LocalDurableTestRunner as AwsRunner } from '@aws/durable-execution-sdk-js-testing';
import { LocalDurableTestRunner } from '@durable-lambda/local';
import { type DurableContext, withDurableExecution } from '@durable-lambda/sdk';

const realNow = performance.now.bind(performance);
const realSetImmediate = setImmediate;
// `npm run bench -- --quick` from the root reaches us as npm config, not as an argument.
const quick = process.argv.includes('--quick') || process.env.npm_config_quick === 'true';
const SIZES = quick ? [10, 100] : [10, 100, 1_000, 10_000];
/** An AWS run predicted (from the previous N's measured per-step cost) to take longer is skipped. */
const AWS_RUN_CAP_MS = 60_000;
/** The target: ours at least this many times faster per step, time skipped. */
const TARGET = 100;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

// ---------------------------------------------------------------------------------------------
// Handlers and runs

/** Real times the handler records: when each invocation entered it, and when its N-step loop ended. */
interface Marks {
  starts: number[];
  loopEnds: number[];
}

interface Outcome {
  status: string;
  result: unknown;
  invocations: number;
  marks: Marks;
}

type Go = (n: number, withReplay: boolean) => Promise<Outcome>;

function ourHandler(n: number, withReplay: boolean, marks: Marks) {
  return withDurableExecution(async (_event: unknown, ctx: DurableContext) => {
    marks.starts.push(realNow());
    for (let i = 0; i < n; i++) await ctx.step(`s${i}`, async () => i);
    marks.loopEnds.push(realNow());
    if (!withReplay) return n;
    await ctx.wait({ seconds: 1 });
    await ctx.step('last', async () => n);
    return n;
  });
}

function awsHandler(n: number, withReplay: boolean, marks: Marks) {
  return awsWithDurableExecution(async (_event: unknown, ctx: AwsContext) => {
    marks.starts.push(realNow());
    for (let i = 0; i < n; i++) await ctx.step(`s${i}`, async () => i);
    marks.loopEnds.push(realNow());
    if (!withReplay) return n;
    await ctx.wait({ seconds: 1 });
    await ctx.step('last', async () => n);
    return n;
  });
}

const runOurs: Go = async (n, withReplay) => {
  const marks: Marks = { starts: [], loopEnds: [] };
  const r = await new LocalDurableTestRunner({ handlerFunction: ourHandler(n, withReplay, marks) }).run({
    payload: {},
  });
  return { status: r.getStatus(), result: r.getResult(), invocations: r.getInvocationCount(), marks };
};

const runAws: Go = async (n, withReplay) => {
  const marks: Marks = { starts: [], loopEnds: [] };
  const r = await new AwsRunner({ handlerFunction: awsHandler(n, withReplay, marks) }).run({ payload: {} });
  return { status: r.getStatus() ?? 'UNKNOWN', result: r.getResult(), invocations: r.getInvocations().length, marks };
};

/** Throws unless the run succeeded with the right result; returns whether it took the wanted invocations. */
function check(who: string, n: number, withReplay: boolean, o: Outcome): boolean {
  if (o.status !== 'SUCCEEDED' || o.result !== n) {
    throw new Error(`${who} N=${n}: expected SUCCEEDED with result ${n}, got ${o.status}, ${JSON.stringify(o.result)}`);
  }
  const wanted = withReplay ? 2 : 1;
  return o.invocations === wanted && o.marks.starts.length === wanted && o.marks.loopEnds.length === wanted;
}

// ---------------------------------------------------------------------------------------------
// Timing

interface Timing {
  /** Median wall time of one valid run, ms; NaN when no run was valid. */
  ms: number;
  /** Median time of the N-step loop inside the handler in the second invocation (the replay), ms. */
  loopMs: number;
  /** Valid runs timed. */
  reps: number;
  /** Runs discarded because they did not take the wanted number of invocations. */
  discarded: number;
}

interface Reps {
  minReps: number;
  maxReps: number;
  budgetMs: number;
  /** Give up after this many discarded runs in a row (0: a wrong invocation count is an error). */
  maxDiscards: number;
}

const OURS_REPS: Reps = { minReps: 3, maxReps: 200, budgetMs: 1_500, maxDiscards: 0 };
/** AWS runs are slow: repeat only while cheap. */
const AWS_REPS: Reps = { minReps: 1, maxReps: 3, budgetMs: 3_000, maxDiscards: 10 };

/** Stop retrying runs that did not replay once this much time went into them. */
const MAX_DISCARDED_MS = 30_000;

const median = (xs: number[]): number => {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** Times one kind of run: at least `minReps` valid runs, then more until `budgetMs` or `maxReps`. */
async function time(who: string, go: Go, n: number, withReplay: boolean, reps: Reps): Promise<Timing> {
  const samples: number[] = [];
  const loops: number[] = [];
  let discarded = 0;
  let discardsInARow = 0;
  let discardedMs = 0;
  const start = realNow();
  while (samples.length < reps.minReps || (samples.length < reps.maxReps && realNow() - start < reps.budgetMs)) {
    const t0 = realNow();
    const outcome = await go(n, withReplay);
    const ms = realNow() - t0;
    if (check(who, n, withReplay, outcome)) {
      samples.push(ms);
      const { starts, loopEnds } = outcome.marks;
      loops.push(loopEnds[loopEnds.length - 1]! - starts[starts.length - 1]!);
      discardsInARow = 0;
    } else {
      discarded++;
      discardedMs += ms;
      if (++discardsInARow > reps.maxDiscards || discardedMs > MAX_DISCARDED_MS) {
        if (reps.maxDiscards === 0) {
          throw new Error(`${who} N=${n}: expected ${withReplay ? 2 : 1} invocation(s), got ${outcome.invocations}`);
        }
        break;
      }
    }
  }
  return { ms: median(samples), loopMs: median(loops), reps: samples.length, discarded };
}

/**
 * Heap held by our finished runs (results kept alive), per step, in bytes. Enough runs are kept
 * to hold about 20,000 steps, so GC noise (a few hundred KB) does not swamp small N.
 */
async function heapPerStep(n: number): Promise<number> {
  // The runtime's last setImmediate callbacks hold the previous run until the loop turns.
  const settle = async () => {
    await new Promise((resolve) => realSetImmediate(resolve));
    gc();
    gc();
    return process.memoryUsage().heapUsed;
  };
  const copies = Math.max(1, Math.ceil(20_000 / n));
  const before = await settle();
  const results = [];
  for (let i = 0; i < copies; i++) {
    const marks: Marks = { starts: [], loopEnds: [] };
    results.push(
      await new LocalDurableTestRunner({ handlerFunction: ourHandler(n, false, marks) }).run({ payload: {} }),
    );
  }
  const after = await settle();
  if (results.some((r) => r.getOperations().length !== n)) throw new Error('heap run: wrong operation count');
  return (after - before) / (n * copies);
}

interface Row {
  n: number;
  run?: Timing;
  replay?: Timing;
  heapPerStep?: number;
  skipped?: string;
}

async function measure(who: string, go: Go, reps: Reps, n: number): Promise<Row> {
  return { n, run: await time(who, go, n, false, reps), replay: await time(who, go, n, true, reps) };
}

// ---------------------------------------------------------------------------------------------
// Formatting

const fmtMs = (ms: number): string =>
  ms >= 1_000 ? `${(ms / 1_000).toFixed(2)} s` : `${ms.toFixed(ms < 10 ? 2 : 1)} ms`;
const fmtUs = (us: number): string => (Math.abs(us) >= 1_000 ? `${(us / 1_000).toFixed(2)} ms` : `${us.toFixed(1)} µs`);
const fmtN = (n: number): string => n.toLocaleString('en-US');
const fmtX = (x: number): string => `${x >= 10 ? x.toFixed(0) : x.toFixed(1)}×`;

function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  const sep = `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`;
  return [line(head), sep, ...rows.map(line)].join('\n');
}

const progress = (s: string) => process.stderr.write(`  ${s}\n`);

// ---------------------------------------------------------------------------------------------
// Main

const valid = (t: Timing | undefined): t is Timing => t !== undefined && t.reps > 0;

async function main(): Promise<void> {
  const resolved = import.meta.resolve('@durable-lambda/local');
  console.log(`Sequential steps: ours vs AWS LocalDurableTestRunner${quick ? ' (--quick)' : ''}`);
  console.log(`node ${process.version}, ${process.platform}/${process.arch}; @durable-lambda/local -> ${resolved}`);
  if (!resolved.endsWith('/src/index.ts')) {
    console.log('WARNING: @durable-lambda/* resolved to built dist, not sources: run via `npm run bench`.');
  }

  // Ours: warm up once, then measure every N.
  progress('ours: warming up');
  check('ours', 10, true, await runOurs(10, true));
  const oursFixed = await measure('ours', runOurs, OURS_REPS, 0);
  const ours: Row[] = [];
  for (const n of SIZES) {
    progress(`ours: N=${fmtN(n)}`);
    ours.push({ ...(await measure('ours', runOurs, OURS_REPS, n)), heapPerStep: await heapPerStep(n) });
  }

  // AWS: set up its environment (fake timers + checkpoint worker), warm up once, measure.
  const aws: Row[] = [];
  let awsFixed: Row | undefined;
  let awsError: string | undefined;
  try {
    progress('AWS: setting up, warming up');
    await AwsRunner.setupTestEnvironment({ skipTime: true });
    try {
      check('aws', 10, true, await runAws(10, true));
      awsFixed = await measure('aws', runAws, AWS_REPS, 0);
      let perStepMs: number | undefined;
      for (const n of SIZES) {
        if (perStepMs !== undefined && perStepMs * n > AWS_RUN_CAP_MS) {
          const prev = aws[aws.length - 1]!;
          aws.push({
            n,
            skipped:
              `not run: at N=${fmtN(prev.n)} one run took ${fmtMs(prev.run!.ms)}, so one at N=${fmtN(n)} ` +
              `would exceed the ${AWS_RUN_CAP_MS / 1_000} s cap`,
          });
          continue;
        }
        progress(`AWS: N=${fmtN(n)}`);
        const row = await measure('aws', runAws, AWS_REPS, n);
        aws.push(row);
        perStepMs = row.run!.ms / n;
      }
    } finally {
      await AwsRunner.teardownTestEnvironment();
    }
  } catch (e) {
    awsError = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  }

  // Report.
  const verdict = (r: number | undefined, na: string) => (r === undefined ? na : r >= TARGET ? 'yes' : 'NO');
  const ratio = (a: number | undefined, o: number) => (a === undefined || !(o > 0) ? undefined : a / o);
  const runRows: string[][] = [];
  const replayRows: string[][] = [];
  for (const o of ours) {
    const a = aws.find((r) => r.n === o.n);
    const na = a?.skipped ? 'skipped' : 'n/a';
    const perStep = (ms: number) => (ms * 1_000) / o.n;
    const oursStep = perStep(o.run!.ms);
    const oursDelta = perStep(o.replay!.ms - o.run!.ms);
    const oursLoop = perStep(o.replay!.loopMs);
    const awsStep = valid(a?.run) ? perStep(a.run.ms) : undefined;
    const awsDelta = valid(a?.run) && valid(a.replay) ? perStep(a.replay.ms - a.run.ms) : undefined;
    const awsLoop = valid(a?.replay) ? perStep(a.replay.loopMs) : undefined;
    const noReplay = valid(a?.run) && !valid(a.replay) ? 'no replay' : na;
    const runRatio = ratio(awsStep, oursStep);
    const deltaRatio = ratio(awsDelta, oursDelta);
    const loopRatio = ratio(awsLoop, oursLoop);
    runRows.push([
      fmtN(o.n),
      fmtMs(o.run!.ms),
      fmtUs(oursStep),
      `${Math.round(o.heapPerStep!)} B`,
      valid(a?.run) ? fmtMs(a.run.ms) : na,
      awsStep === undefined ? na : fmtUs(awsStep),
      runRatio === undefined ? na : fmtX(runRatio),
      verdict(runRatio, na),
    ]);
    replayRows.push([
      fmtN(o.n),
      fmtMs(o.replay!.ms),
      fmtUs(oursDelta),
      fmtUs(oursLoop),
      valid(a?.replay) ? fmtMs(a.replay.ms) : noReplay,
      awsDelta === undefined ? noReplay : fmtUs(awsDelta),
      awsLoop === undefined ? noReplay : fmtUs(awsLoop),
      deltaRatio === undefined ? noReplay : fmtX(deltaRatio),
      loopRatio === undefined ? noReplay : fmtX(loopRatio),
      deltaRatio === undefined && loopRatio === undefined
        ? noReplay
        : `${verdict(deltaRatio, '-')}/${verdict(loopRatio, '-')}`,
    ]);
  }

  console.log('\nRun: N sequential steps in one invocation (median wall time of one run)');
  console.log(
    table(['N', 'ours run', 'ours/step', 'ours heap/step', 'AWS run', 'AWS/step', 'AWS/ours', `≥${TARGET}×`], runRows),
  );
  console.log('\nReplay: N steps + wait(1 s) + 1 step, two invocations, the second replaying the N steps');
  console.log('  Δ/step    = (this run - the run above) / N: replay including loading the log, plus fixed costs below');
  console.log("  loop/step = the N-step loop's time inside the handler in the 2nd invocation / N: replay alone");
  console.log(
    table(
      [
        'N',
        'ours 2-inv run',
        'ours Δ/step',
        'ours loop/step',
        'AWS 2-inv run',
        'AWS Δ/step',
        'AWS loop/step',
        'AWS/ours Δ',
        'AWS/ours loop',
        `≥${TARGET}× Δ/loop`,
      ],
      replayRows,
    ),
  );

  const fixed = (f: Row) =>
    valid(f.run) && valid(f.replay)
      ? `${fmtMs(f.replay.ms - f.run.ms)} (N=0: ${fmtMs(f.run.ms)} for one invocation, ${fmtMs(f.replay.ms)} with wait + step)`
      : 'not measured (no N=0 run took two invocations)';
  console.log('\nFixed cost of the wait, the last step and the 2nd invocation (inside every Δ above, spread over N):');
  console.log(`  ours: ${fixed(oursFixed)}`);
  if (awsFixed) console.log(`  AWS:  ${fixed(awsFixed)}`);

  console.log('\nNotes:');
  const reps = (rows: Row[]) =>
    rows
      .filter((r) => r.run)
      .map((r) => `N=${fmtN(r.n)} ${r.run?.reps ?? 0}/${r.replay?.reps ?? 0}`)
      .join(', ');
  console.log(`  runs timed (run/replay): ours ${reps(ours)}; AWS ${aws.length ? reps(aws) : '-'}`);
  const awsRows = [...(awsFixed ? [awsFixed] : []), ...aws];
  const discarded = awsRows.reduce((sum, r) => sum + (r.replay?.discarded ?? 0), 0);
  const noReplayAt = awsRows.filter((r) => r.run && !valid(r.replay)).map((r) => fmtN(r.n));
  if (discarded) {
    console.log(
      `  AWS's SDK slept through the 1 s wait inside the first invocation (so replayed nothing) in ${discarded} run(s);` +
        ' those are left out of the replay figures.',
    );
    if (noReplayAt.length) console.log(`  At N=${noReplayAt.join(', ')} no AWS run replayed within the tries allowed.`);
  }
  console.log(
    '  heap/step: heapUsed held by finished runs whose results are referenced (runs holding ~20,000 steps in',
  );
  console.log(
    '  all, so the fixed part of a run is spread over its steps), after a forced GC, / steps. Ours only: AWS',
  );
  console.log('  keeps its execution state in a checkpoint-server worker thread, outside this heap.');
  console.log('  AWS ran under setupTestEnvironment({ skipTime: true }); times are real (performance.now captured');
  console.log('  before its fake timers), not its fake clock. Each runner warmed up once (N=10 with replay) first.');
  for (const r of aws) if (r.skipped) console.log(`  AWS N=${fmtN(r.n)}: ${r.skipped}.`);
  if (awsError) {
    console.log(`  AWS figures missing: its runner failed on node ${process.version}: ${awsError}`);
    console.log('  (@aws/durable-execution-sdk-js-testing 1.1.4 declares engines node>=22.)');
  }

  // Does our per-step cost stay flat as N grows?
  const base = ours.find((r) => r.n >= 100) ?? ours[0]!;
  const top = ours[ours.length - 1]!;
  if (top.n > base.n) {
    const growth = top.run!.ms / top.n / (base.run!.ms / base.n);
    console.log(
      `  ours per-step run cost at N=${fmtN(top.n)} is ${fmtX(growth)} that at N=${fmtN(base.n)}` +
        (growth > 2 ? ': it grows with N (run time is superlinear).' : '.'),
    );
  }
}

await main();
