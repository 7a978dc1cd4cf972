/**
 * Sections "steps" and "replay" on the test runners, time skipped, in one process:
 * - per-step overhead of N sequential steps (one invocation): our SDK on our LocalDurableTestRunner,
 *   and AWS's SDK on our runner (the compatibility transport), each against AWS's SDK on AWS's
 *   LocalDurableTestRunner (@aws/durable-execution-sdk-js-testing);
 * - replay: N steps inside a completed child context, a 1 h wait, one more step: the time from the
 *   wait in the first invocation to the end of the second (suspend, load the run, replay the N
 *   completed operations, run the last step), ours against AWS's runner.
 * AWS's runner installs fake timers globally, so time is read from the real performance.now
 * captured at load, and every run of ours is done before AWS's environment is set up. Each runner
 * is warmed up before it is measured (see `warmUp`), and our SDK runs before AWS's SDK has run at
 * all in the process (see the comment at the first measurement).
 */

// The test runner's own entry: the same classes as '@durable-lambda/local', without the dev server's
// modules, which this section never uses (a smaller load for each process that runs it).
import { LocalDurableTestRunner } from '@durable-lambda/local/testing';
import { type DurableContext, withDurableExecution } from '@durable-lambda/sdk';
import { importBenchPackage } from '../../test/support/aws-sdk';
import type * as AwsSdk from '../node_modules/@aws/durable-execution-sdk-js/dist-types/index';
import { emitRows, type FigureRow, figure, medianOf, progressLine, sizeArg } from './figure-rows';

type AwsTesting = typeof import('../node_modules/@aws/durable-execution-sdk-js-testing/dist-types/index');

const realNow = performance.now.bind(performance);
const size = sizeArg();
const STEP_SIZES = { smoke: [10], quick: [10, 100, 1_000], full: [10, 100, 1_000, 10_000] }[size];
const REPLAY_SIZES = { smoke: [20], quick: [1_000, 10_000], full: [1_000, 10_000, 100_000] }[size];
/** AWS runs predicted (from the previous N) to take longer than this are skipped, and said so. */
const AWS_CAP_MS = size === 'full' ? 45_000 : 10_000;
/** AWS's replay runs hold N steps, then replay them: a longer cap, so N = 1,000 has a reference in full. */
const AWS_REPLAY_CAP_MS = size === 'full' ? 90_000 : 10_000;
/**
 * AWS's SDK on our runner grows faster than linearly with N (AWS's SDK walks all its operations at
 * each checkpoint; see the rows): a size predicted, as if quadratic from the previous one, to take
 * longer than the cap is skipped and said so.
 */
const COMPAT_CAP_MS = size === 'full' ? 45_000 : 10_000;
/** How long a size is repeated for its median; at the smoke size (no figures) one run each. */
const BUDGET_MS = { smoke: 0, quick: 400, full: 1_500 }[size];

/** A handler body both SDKs accept (their contexts share these method shapes). */
interface StepsContext {
  step<T>(name: string, fn: () => Promise<T>): Promise<T>;
  wait(name: string, duration: { seconds: number }): Promise<void>;
  runInChildContext<T>(name: string, fn: (child: StepsContext) => Promise<T>): Promise<T>;
}

interface Marks {
  starts: number[];
  /** Just before the wait, in each invocation that reached it. */
  waits: number[];
  ends: number[];
}

function body(n: number, replay: boolean, marks: Marks) {
  return async (_event: unknown, ctx: StepsContext) => {
    marks.starts.push(realNow());
    if (replay) {
      await ctx.runInChildContext('work', async (child) => {
        for (let i = 0; i < n; i++) await child.step(`s${i}`, async () => i);
        return n;
      });
      // An hour: longer than inProcessWaitMs, so the invocation really ends and the next one replays.
      marks.waits.push(realNow());
      await ctx.wait('pause', { seconds: 3600 });
      await ctx.step('last', async () => n);
    } else {
      for (let i = 0; i < n; i++) await ctx.step(`s${i}`, async () => i);
    }
    marks.ends.push(realNow());
    return n;
  };
}

interface Runner {
  run(input: { payload: unknown }): Promise<{ getStatus(): string | undefined; getResult(): unknown }>;
}
type MakeRunner = (handler: unknown) => Runner;

/** One run: its wall ms and the marks of each invocation. */
async function once(make: MakeRunner, wrap: (fn: ReturnType<typeof body>) => unknown, n: number, replay: boolean) {
  const marks: Marks = { starts: [], waits: [], ends: [] };
  const t0 = realNow();
  const r = await make(wrap(body(n, replay, marks))).run({ payload: {} });
  const ms = realNow() - t0;
  if (r.getStatus() !== 'SUCCEEDED' || r.getResult() !== n) {
    throw new Error(`N=${n}: expected SUCCEEDED with ${n}, got ${r.getStatus()} ${JSON.stringify(r.getResult())}`);
  }
  return { ms, marks };
}

/**
 * Steady state before measuring: V8 compiles hot code after some thousands of calls, and a cold
 * process measured at N = 10 read 2-4× the per-step cost of a warm one. Ours (and AWS's SDK on our
 * runner) get WARM_STEPS steps first; AWS's runner gets WARM_AWS_STEPS (its per-step cost is its
 * checkpoint server's round trips, tens of ms, not compiled code, and more would take minutes).
 */
const WARM_STEPS = size === 'smoke' ? 100 : 3_000;
const WARM_AWS_STEPS = size === 'smoke' ? 10 : 100;

async function warmUp(make: MakeRunner, wrap: (fn: ReturnType<typeof body>) => unknown) {
  await once(make, wrap, 10, true);
  for (let done = 0; done < WARM_STEPS; done += 100) await once(make, wrap, 100, false);
}

/** Median wall ms per run (repeated while under budget) and, for replays, of the 2nd invocation. */
async function timed(make: MakeRunner, wrap: (fn: ReturnType<typeof body>) => unknown, n: number, replay: boolean) {
  const runs: number[] = [];
  const replays: number[] = [];
  let discarded = 0;
  const start = realNow();
  while (runs.length < 1 || (runs.length < 50 && realNow() - start < BUDGET_MS) || (replay && replays.length < 1)) {
    const { ms, marks } = await once(make, wrap, n, replay);
    runs.push(ms);
    // AWS's SDK may sleep through a short wait in the same invocation: then nothing was replayed.
    // From the wait in the 1st invocation to the end of the 2nd: suspending, loading the run, replaying.
    if (replay && marks.starts.length === 2) replays.push(marks.ends[marks.ends.length - 1]! - marks.waits[0]!);
    else if (replay && ++discarded > 5) break;
  }
  return { runMs: medianOf(runs), replayMs: medianOf(replays) };
}

const rows: FigureRow[] = [];
const oursWrap = (fn: ReturnType<typeof body>) =>
  withDurableExecution(fn as unknown as (e: unknown, c: DurableContext) => Promise<number>);
const oursRunner: MakeRunner = (handler) =>
  new LocalDurableTestRunner({ handlerFunction: handler as ReturnType<typeof oursWrap> }) as unknown as Runner;

const aws = await importBenchPackage<typeof AwsSdk>('@aws/durable-execution-sdk-js');
const awsTesting = await importBenchPackage<AwsTesting>('@aws/durable-execution-sdk-js-testing');
const awsWrap = (fn: ReturnType<typeof body>) =>
  aws.withDurableExecution(fn as unknown as Parameters<typeof aws.withDurableExecution>[0]);

// Ours first, before any of AWS's SDK has run in this process: once it has, its own
// AsyncLocalStorage propagates through every promise of ours too (Node 20's promise hooks), a cost
// a user of our SDK alone never pays. Then AWS's SDK on our runner, and AWS's runner last (its
// fake timers).
progressLine('steps: warming up');
await warmUp(oursRunner, oursWrap);
const ourSteps = new Map<number, number>();
for (const n of STEP_SIZES) {
  progressLine(`steps: ours N=${n}`);
  ourSteps.set(n, (await timed(oursRunner, oursWrap, n, false)).runMs);
}
const ourReplay = new Map<number, number>();
for (const n of REPLAY_SIZES) {
  progressLine(`replay: ours N=${n}`);
  ourReplay.set(n, (await timed(oursRunner, oursWrap, n, true)).replayMs);
}
await warmUp(oursRunner, awsWrap);
const compatSteps = new Map<number, number | string>();
let compatPrev: { n: number; ms: number } | undefined;
for (const n of STEP_SIZES) {
  progressLine(`steps: compat N=${n}`);
  const predicted = compatPrev ? compatPrev.ms * (n / compatPrev.n) ** 2 : 0;
  if (predicted > COMPAT_CAP_MS) {
    compatSteps.set(
      n,
      `not run: predicted ${(predicted / 1000).toFixed(0)} s (quadratic) > ${COMPAT_CAP_MS / 1000} s cap`,
    );
    continue;
  }
  const ms = (await timed(oursRunner, awsWrap, n, false)).runMs;
  compatSteps.set(n, ms);
  compatPrev = { n, ms };
}

// AWS's runner.
const awsSteps = new Map<number, number | string>();
const awsReplay = new Map<number, number | string>();
const AwsRunner = awsTesting.LocalDurableTestRunner;
const awsRunner: MakeRunner = (handler) =>
  new AwsRunner({
    handlerFunction: handler as ConstructorParameters<typeof AwsRunner>[0]['handlerFunction'],
  }) as unknown as Runner;
try {
  progressLine('AWS: setting up');
  await AwsRunner.setupTestEnvironment({ skipTime: true });
  try {
    await once(awsRunner, awsWrap, WARM_AWS_STEPS, false);
    let perStep: number | undefined;
    for (const n of STEP_SIZES) {
      if (perStep !== undefined && perStep * n > AWS_CAP_MS) {
        awsSteps.set(n, `not run: predicted ${((perStep * n) / 1000).toFixed(0)} s > ${AWS_CAP_MS / 1000} s cap`);
        continue;
      }
      progressLine(`steps: AWS N=${n}`);
      const ms = (await timed(awsRunner, awsWrap, n, false)).runMs;
      awsSteps.set(n, ms);
      perStep = ms / n;
    }
    for (const n of REPLAY_SIZES) {
      // Its replay run holds N steps first, then replays them: about twice a run of N.
      if (perStep !== undefined && 2 * perStep * n > AWS_REPLAY_CAP_MS) {
        awsReplay.set(
          n,
          `not run: predicted ${((2 * perStep * n) / 1000).toFixed(0)} s > ${AWS_REPLAY_CAP_MS / 1000} s cap`,
        );
        continue;
      }
      progressLine(`replay: AWS N=${n}`);
      const ms = (await timed(awsRunner, awsWrap, n, true)).replayMs;
      awsReplay.set(n, Number.isNaN(ms) ? 'its SDK slept through the wait in-process: nothing replayed' : ms);
    }
  } finally {
    await AwsRunner.teardownTestEnvironment();
  }
} catch (error) {
  const why = `AWS's runner failed on node ${process.version}: ${error instanceof Error ? error.message : String(error)}`;
  for (const n of STEP_SIZES) if (!awsSteps.has(n)) awsSteps.set(n, why);
  for (const n of REPLAY_SIZES) if (!awsReplay.has(n)) awsReplay.set(n, why);
}

// Does AWS's SDK on our runner cost more per step as N grows? (Not our transport's doing since it
// answers from the changed operations: AWS's SDK walks its operations at each checkpoint.)
const compatSizes = STEP_SIZES.filter((n) => typeof compatSteps.get(n) === 'number');
const compatPerStep = (n: number) => (compatSteps.get(n) as number) / n;
const compatGrowth =
  compatSizes.length > 1
    ? compatPerStep(compatSizes[compatSizes.length - 1]!) / compatPerStep(compatSizes[0]!)
    : undefined;
const ref = (v: number | string | undefined) => (typeof v === 'number' ? v : null);
const why = (v: number | string | undefined) => (typeof v === 'string' ? ` AWS: ${v}.` : '');
const fmtN = (n: number) => n.toLocaleString('en-US');
for (const n of STEP_SIZES) {
  const a = awsSteps.get(n);
  const awsPerStep = ref(a) === null ? null : (ref(a)! * 1000) / n;
  const ours = (ourSteps.get(n)! * 1000) / n;
  const c = compatSteps.get(n);
  const compat = typeof c === 'number' ? (c * 1000) / n : undefined;
  const met = (r: number | null) => r !== null && r >= 1000;
  const miss = (r: number | null) =>
    r === null || r >= 1000
      ? ''
      : ` Missed by ${(1000 / r).toFixed(1)}× (ratio ${r.toFixed(0)}, target 1000): what is left of a step is the SDK's operation path (about 36 promises a step, each also carried by Node 20's AsyncLocalStorage promise hooks), the engine's validation of each update, the memory store's copies, and garbage collection; at small N the run's fixed cost (start, open, close) adds to it. See docs/performance.md.`;
  rows.push(
    figure({
      section: 'steps',
      metric: `per-step overhead, ${fmtN(n)} sequential steps, our SDK on our runner`,
      unit: 'µs',
      ours,
      reference: awsPerStep,
      referenceName: "AWS's SDK on AWS's LocalDurableTestRunner (skipTime)",
      target: 'ratio ≥ 1000',
      met,
      note:
        `median run wall time / N, one invocation.${why(a)}${miss(awsPerStep === null ? null : awsPerStep / ours)}` +
        (typeof c === 'string' ? ` AWS's SDK on our runner (compat) ${c}.` : ''),
    }),
    ...(compat === undefined
      ? []
      : [
          figure({
            section: 'steps',
            metric: `per-step overhead, ${fmtN(n)} sequential steps, AWS's SDK on our runner (compat)`,
            unit: 'µs',
            ours: compat,
            reference: awsPerStep,
            referenceName: "AWS's SDK on AWS's LocalDurableTestRunner (skipTime)",
            target: 'ratio ≥ 1000',
            met,
            note:
              `the same handler through the compatibility transport (EngineDurableExecutionClient).${why(a)}` +
              (compatGrowth !== undefined && compatGrowth > 2
                ? ` Per step grows with N (${compatGrowth.toFixed(0)}× from N=${fmtN(compatSizes[0]!)} to ${fmtN(compatSizes[compatSizes.length - 1]!)}), in AWS's SDK itself: our transport answers each checkpoint from the operations it changed (aws-transport.ts, O(1) a step), but AWS's checkpoint manager walks all its operations at every answer and termination check (Object.keys(stepData) for a log line, Array.from(operations) in shouldTerminate), O(N) a step, as on AWS's own runner.`
                : ''),
          }),
        ]),
  );
}
// Flat: the replay of the largest N costs at most twice that of the smallest (one size: not judged).
const first = REPLAY_SIZES[0]!;
const last = REPLAY_SIZES[REPLAY_SIZES.length - 1]!;
const growth = ourReplay.get(last)! / ourReplay.get(first)!;
const flat = REPLAY_SIZES.length > 1 ? growth <= 2 : null;
for (const n of REPLAY_SIZES) {
  const a = awsReplay.get(n);
  rows.push(
    figure({
      section: 'replay',
      metric: `resume after a wait, ${fmtN(n)} completed operations in a child context (test runner)`,
      unit: 'ms',
      ours: ourReplay.get(n)!,
      reference: ref(a),
      referenceName: "AWS's SDK on AWS's LocalDurableTestRunner",
      target: 'flat in N',
      ...(flat === null ? {} : { met: () => flat }),
      note:
        `from the wait in the 1st invocation to the end of the 2nd: suspend, load, replay the N ops, the last step.${why(a)}` +
        (flat === null
          ? ' One size only: flatness not judged.'
          : ` ${fmtN(last)} ops take ${growth.toFixed(1)}× the time of ${fmtN(first)} (${(last / first).toFixed(0)}× the ops): ` +
            (flat
              ? 'flat on the test runner.'
              : "not flat in this run: the wake-up loads the same 3 operations at every N (the live ones and the completed context's record) and the close of the invocation that ran the N operations looks at its live ones only, so what can still grow is the garbage collector on a heap of N operations (timings on this loaded machine move by up to 2×).")),
    }),
  );
}
emitRows(rows);
