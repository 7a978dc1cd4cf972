/**
 * `npm run bench`: every figure of issue 14 in ONE table (metric, ours, reference, ratio, target,
 * met?), also written as JSON to bench/results/latest.json. docs/performance.md explains each row.
 *
 *   npm run bench                      # full: a few minutes
 *   npm run bench -- --quick           # well under a minute
 *   tsx figures.bench.ts --smoke --out <file> [--sections steps,lateness]   # the CI smoke run
 *   ... --markdown <file>              # also the table as Markdown (docs/performance.md)
 *
 * DURABLE_BENCH_DYNAMODB_ENDPOINT=http://127.0.0.1:<port>: the dynamodb section measures on that
 * DynamoDB Local (in a table of its own, deleted after) instead of starting one; the smoke test
 * passes its test run's instance.
 *
 * Each section runs in its own node process (bench/figures/*-figures.ts), one after the other (side
 * by side at the smoke size, whose timings are not figures): AWS's test runner
 * installs fake timers globally, peak RSS needs a fresh process, and one section failing leaves
 * the others' rows (the failure becomes a row that says so).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { BenchSize, FigureRow } from './figures/figure-rows';
import { tsxArgv, tsxEnv } from './figures/tsx-process';

const HERE = dirname(fileURLToPath(import.meta.url));

/** The sections, in table order. */
const SECTIONS = [
  'steps',
  'dynamodb',
  'flow',
  'fixed-cost',
  'lateness',
  'bundle',
  'memory',
  'recovery',
  'reconciler',
  'payloads',
] as const;
type Section = (typeof SECTIONS)[number];

const argv = process.argv;
const arg = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
// `npm run bench -- --quick` from the root reaches us as npm config, not as an argument.
const size: BenchSize =
  argv.includes('--smoke') || process.env.npm_config_smoke === 'true'
    ? 'smoke'
    : argv.includes('--quick') || process.env.npm_config_quick === 'true'
      ? 'quick'
      : 'full';
const out = arg('--out') ?? join(HERE, 'results', 'latest.json');
const only = arg('--sections')?.split(',') ?? [...SECTIONS];
for (const s of only) {
  if (!(SECTIONS as readonly string[]).includes(s)) throw new Error(`--sections: unknown section ${s}`);
}

/** Runs one section in its own process; its rows, or one row saying why it failed. */
async function runSection(section: Section, dir: string): Promise<FigureRow[]> {
  const file = join(dir, `${section}.json`);
  const started = performance.now();
  process.stderr.write(`${section} ...\n`);
  try {
    const child = promisify(execFile)(
      process.execPath,
      tsxArgv(join(HERE, 'figures', `${section}-figures.ts`), ['--size', size, '--out', file]),
      {
        cwd: HERE,
        maxBuffer: 16 << 20,
        env: tsxEnv({ ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' }),
      },
    );
    // Progress lines go on to our stderr as they come.
    child.child.stderr?.pipe(process.stderr);
    await child;
    const rows = JSON.parse(readFileSync(file, 'utf8')) as FigureRow[];
    process.stderr.write(`${section}: ${rows.length} rows in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
    return rows;
  } catch (error) {
    const why = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return [
      {
        section,
        metric: `${section}: section failed`,
        unit: '-',
        ours: Number.NaN,
        reference: null,
        referenceName: '-',
        ratio: null,
        target: 'runs',
        met: false,
        note: why ?? 'unknown error',
      },
    ];
  }
}

const fmtNumber = (x: number | null, unit: string): string => {
  if (x === null || Number.isNaN(x)) return '-';
  const digits = Math.abs(x) >= 100 ? 0 : Math.abs(x) >= 10 ? 1 : 2;
  return `${x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 })} ${unit}`;
};
const fmtRatio = (r: number | null) => (r === null ? '-' : `${r >= 10 ? r.toFixed(0) : r.toFixed(2)}×`);
const fmtMet = (m: boolean | null) => (m === null ? '' : m ? 'yes' : 'NO');

/** The aligned table. */
export function renderTable(rows: FigureRow[]): string {
  const head = ['metric', 'ours', 'reference', 'ratio', 'target', 'met?'];
  const cells = rows.map((r) => [
    r.metric,
    fmtNumber(r.ours, r.unit),
    fmtNumber(r.reference, r.unit),
    fmtRatio(r.ratio),
    r.target,
    fmtMet(r.met),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) =>
    `| ${c.map((x, i) => (i === 0 || i === 4 ? x.padEnd(widths[i]!) : x.padStart(widths[i]!))).join(' | ')} |`;
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.map(line)].join('\n');
}

/** The same table as Markdown, for docs/performance.md (`--markdown <file>`). */
export function renderMarkdown(rows: FigureRow[]): string {
  const esc = (x: string) => x.replace(/\|/g, '\\|');
  const lines = [
    '| metric | ours | reference | ratio | target | met? |',
    '|---|--:|--:|--:|---|---|',
    ...rows.map(
      (r) =>
        `| ${esc(r.metric)} | ${fmtNumber(r.ours, r.unit)} | ${fmtNumber(r.reference, r.unit)} | ${fmtRatio(r.ratio)} | ${esc(r.target)} | ${fmtMet(r.met)} |`,
    ),
  ];
  return lines.join('\n');
}

const started = performance.now();
const dir = mkdtempSync(join(tmpdir(), 'durable-bench-figures-'));
const rows: FigureRow[] = [];
try {
  const chosen = SECTIONS.filter((section) => only.includes(section));
  if (size === 'smoke') {
    // A shape check, not a measurement: the sections run side by side to keep CI short.
    for (const got of await Promise.all(chosen.map((section) => runSection(section, dir)))) rows.push(...got);
  } else {
    // One at a time, so no section's timing shares the machine with another's.
    for (const section of chosen) rows.push(...(await runSection(section, dir)));
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const report = {
  generatedAt: new Date().toISOString(),
  size,
  node: process.version,
  platform: `${process.platform}/${process.arch}`,
  seconds: Math.round((performance.now() - started) / 100) / 10,
  ratio: 'reference / ours: every metric is lower-is-better, so above 1 ours is that many times smaller',
  rows,
};
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
const markdown = arg('--markdown');
if (markdown) writeFileSync(markdown, `${renderMarkdown(rows)}\n`);

console.log(
  `\ndurable-lambda figures (${size}; node ${process.version}; ratio = reference / ours, higher is better for us)`,
);
console.log(renderTable(rows));
console.log('\nNotes (why a target is missed, what closes it, how each row was measured):');
for (const r of rows) if (r.note) console.log(`- ${r.metric}: ${r.note}`);
console.log(`\nJSON: ${out} (${report.seconds} s)`);
if (rows.some((r) => r.metric.endsWith('section failed'))) process.exitCode = 1;
