/**
 * Section "memory": peak RSS of a run of N sequential steps on the test runner, each run in a
 * fresh node process (process.resourceUsage().maxRSS), ours at 100,000 operations (10,000 with
 * --quick) and, at a size AWS's runner finishes in reasonable time, ours against AWS's.
 *
 *   memory-figures.ts --size full            # parent: spawns the children, emits the rows
 *   memory-figures.ts --child ours|aws N      # child: one run, prints its peak RSS in KB
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { emitRows, type FigureRow, figure, progressLine, sizeArg } from './figure-rows';

const childAt = process.argv.indexOf('--child');
if (childAt >= 0) {
  const who = process.argv[childAt + 1];
  const n = Number(process.argv[childAt + 2]);
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
  // maxRSS is in KB on Linux and macOS.
  console.log(JSON.stringify({ maxRssKb: process.resourceUsage().maxRSS }));
  process.exit(0);
}

const size = sizeArg();
const BIG = { smoke: 100, quick: 10_000, full: 100_000 }[size];
/** The size both runners are measured at (AWS's runner takes ~30 ms a step here). */
const SHARED = { smoke: 10, quick: 100, full: 1_000 }[size];
const self = fileURLToPath(import.meta.url);
const tsx = fileURLToPath(new URL('../../node_modules/tsx/dist/cli.mjs', import.meta.url));
const tsconfig = fileURLToPath(new URL('../../tsconfig.json', import.meta.url));

function peakMb(who: 'ours' | 'aws', n: number): number {
  progressLine(`memory: ${who} N=${n}`);
  const out = execFileSync(process.execPath, [tsx, '--tsconfig', tsconfig, self, '--child', who, String(n)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    maxBuffer: 1 << 20,
  });
  const line = out.trim().split('\n').pop() ?? '';
  return (JSON.parse(line) as { maxRssKb: number }).maxRssKb / 1024;
}

const idle = peakMb('ours', 0);
const oursBig = peakMb('ours', BIG);
const oursShared = peakMb('ours', SHARED);
let awsShared: number | null = null;
let awsWhy = '';
try {
  awsShared = peakMb('aws', SHARED);
} catch (error) {
  awsWhy = ` AWS's runner failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}.`;
}
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
      `fresh process; the same process running N=0 peaks at ${idle.toFixed(0)} MB (tsx, the runner, the SDK)` +
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
    note: `fresh process each.${awsWhy}`,
  }),
];
emitRows(rows);
