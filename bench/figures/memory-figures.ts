/**
 * Section "memory": peak RSS of a run of N sequential steps on the test runner, each run in a
 * fresh node process (process.resourceUsage().maxRSS), ours at 100,000 operations (10,000 with
 * --quick) and, at a size AWS's runner finishes in reasonable time, ours against AWS's.
 *
 *   memory-figures.ts --size full                    # parent: spawns the children, emits the rows
 *   memory-figures.ts --child ours:N[,aws:M,...]     # child: the runs in order, a JSON line each
 *
 * At the smoke size (a shape check, whose numbers are not figures) one child does every run, ours
 * first (AWS's runner fakes the global timers), instead of a fresh process per run: a process start
 * is most of what a smoke-size run costs.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { emitRows, type FigureRow, figure, progressLine, sizeArg } from './figure-rows';
import { tsxArgv, tsxEnv } from './tsx-process';

type Who = 'ours' | 'aws';
interface Run {
  who: Who;
  n: number;
}
/** What a child prints for each run: its peak RSS so far, or why the run failed. */
interface RunLine extends Run {
  maxRssKb?: number;
  error?: string;
}

const message = (error: unknown): string =>
  error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);

/** One run of N sequential steps on `who`'s test runner, in this process. */
async function runSteps({ who, n }: Run): Promise<void> {
  const { importBenchPackage } = await import('../../test/support/aws-sdk');
  const body = async (_e: unknown, ctx: { step<T>(name: string, fn: () => Promise<T>): Promise<T> }) => {
    for (let i = 0; i < n; i++) await ctx.step(`s${i}`, async () => i);
    return n;
  };
  let status: string | undefined;
  if (who === 'ours') {
    const { LocalDurableTestRunner } = await import('@durable-lambda/local');
    const { withDurableExecution } = await import('@durable-lambda/sdk');
    const r = await new LocalDurableTestRunner({
      handlerFunction: withDurableExecution(body as Parameters<typeof withDurableExecution>[0]),
    }).run({ payload: {} });
    status = r.getStatus();
  } else {
    type Sdk = typeof import('../node_modules/@aws/durable-execution-sdk-js/dist-types/index');
    type Testing = typeof import('../node_modules/@aws/durable-execution-sdk-js-testing/dist-types/index');
    const aws = await importBenchPackage<Sdk>('@aws/durable-execution-sdk-js');
    const { LocalDurableTestRunner } = await importBenchPackage<Testing>('@aws/durable-execution-sdk-js-testing');
    await LocalDurableTestRunner.setupTestEnvironment({ skipTime: true });
    const r = await new LocalDurableTestRunner({
      handlerFunction: aws.withDurableExecution(body as Parameters<typeof aws.withDurableExecution>[0]),
    }).run({ payload: {} });
    status = r.getStatus();
    await LocalDurableTestRunner.teardownTestEnvironment();
  }
  if (status !== 'SUCCEEDED') throw new Error(`${who} N=${n}: ${status}`);
}

const childAt = process.argv.indexOf('--child');
if (childAt >= 0) {
  const runs = (process.argv[childAt + 1] ?? '').split(',').map((spec): Run => {
    const [who, n] = spec.split(':');
    if ((who !== 'ours' && who !== 'aws') || !Number.isInteger(Number(n))) throw new Error(`--child: bad run ${spec}`);
    return { who, n: Number(n) };
  });
  for (const run of runs) {
    let line: RunLine;
    try {
      await runSteps(run);
      // maxRSS is in KB on Linux and macOS.
      line = { ...run, maxRssKb: process.resourceUsage().maxRSS };
    } catch (error) {
      line = { ...run, error: message(error) };
    }
    console.log(JSON.stringify(line));
  }
  process.exit(0);
}

const size = sizeArg();
const BIG = { smoke: 100, quick: 10_000, full: 100_000 }[size];
/** The size both runners are measured at (AWS's runner takes ~30 ms a step here). */
const SHARED = { smoke: 10, quick: 100, full: 1_000 }[size];
const ONE_CHILD = size === 'smoke';
const self = fileURLToPath(import.meta.url);

/** The peak RSS in MB after each run of one child process, or why the run failed. */
function peaksMb(runs: Run[]): Array<number | string> {
  progressLine(`memory: ${runs.map((r) => `${r.who} N=${r.n}`).join(', ')}`);
  let lines: RunLine[] = [];
  let crashed = '';
  try {
    const out = execFileSync(
      process.execPath,
      tsxArgv(self, ['--child', runs.map((r) => `${r.who}:${r.n}`).join(',')]),
      { env: tsxEnv(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 1 << 20 },
    );
    lines = out
      .split('\n')
      .filter((l) => l.startsWith('{"who":'))
      .map((l) => JSON.parse(l) as RunLine);
  } catch (error) {
    crashed = message(error);
  }
  return runs.map((run, i) => {
    const line = lines[i];
    if (!line || line.who !== run.who || line.n !== run.n) return crashed || `no report for ${run.who} N=${run.n}`;
    return line.maxRssKb === undefined ? (line.error ?? 'no peak RSS') : line.maxRssKb / 1024;
  });
}

const wanted: Run[] = [
  { who: 'ours', n: 0 },
  { who: 'ours', n: BIG },
  { who: 'ours', n: SHARED },
  { who: 'aws', n: SHARED },
];
const peaks = ONE_CHILD ? peaksMb(wanted) : wanted.flatMap((run) => peaksMb([run]));
const [idle, oursBig, oursShared] = peaks.slice(0, 3).map((x) => {
  if (typeof x !== 'number') throw new Error(`memory: our runner failed: ${x}`);
  return x;
}) as [number, number, number];
const aws = peaks[3];
const awsShared = typeof aws === 'number' ? aws : null;
const awsWhy = typeof aws === 'number' ? '' : ` AWS's runner failed: ${aws}.`;
const howRun = ONE_CHILD
  ? "smoke size: every run in one process, ours first, each peak the process's so far"
  : 'fresh process';
const fmt = (n: number) => n.toLocaleString('en-US');
const rows: FigureRow[] = [
  figure({
    section: 'memory',
    metric: `peak RSS, ${fmt(BIG)} operations in one run (test runner)`,
    unit: 'MB',
    ours: oursBig,
    reference: null,
    referenceName: `none: AWS's managed limit is 3,000 operations per execution, and its runner takes ~30 ms a step here (${fmt(BIG)} steps ≈ ${((BIG * 0.03) / 60).toFixed(0)} min)`,
    target: 'completes',
    met: () => true,
    note:
      `${howRun}; the same process running N=0 peaks at ${idle.toFixed(0)} MB (tsx, the runner, the SDK)` +
      (oursBig - idle > 10
        ? `, so the run adds ~${(((oursBig - idle) * 2 ** 20) / BIG).toFixed(0)} B per operation`
        : ''),
  }),
  figure({
    section: 'memory',
    metric: `peak RSS, ${fmt(SHARED)} operations in one run (test runner)`,
    unit: 'MB',
    ours: oursShared,
    reference: awsShared,
    referenceName:
      "AWS's SDK on AWS's LocalDurableTestRunner (its checkpoint server runs in a worker thread of the same process)",
    note: `${ONE_CHILD ? howRun : 'fresh process each'}.${awsWhy}`,
  }),
];
emitRows(rows);
