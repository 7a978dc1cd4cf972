/**
 * The CI smoke run of `npm run bench` (bench/figures.bench.ts): every section at its smallest size,
 * in its own processes as the bench runs them, then the JSON's shape. No timing is asserted: the
 * machine is loaded, and the figures are what the bench is for. The dynamodb section measures on the
 * test run's shared DynamoDB Local (DURABLE_BENCH_DYNAMODB_ENDPOINT), in a table of its own.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tsxArgv, tsxEnv } from '../../bench/figures/tsx-process';
import { dynamoDbLocalEndpoint } from '../support/dynamodb-local';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SECTIONS = [
  'steps',
  'replay',
  'dynamodb',
  'cost',
  'partitions',
  'flow',
  'lateness',
  'bundle',
  'memory',
  'recovery',
  'reconciler',
  'payloads',
];

interface Report {
  generatedAt: string;
  size: string;
  rows: Array<Record<string, unknown>>;
}

let dir: string;
let report: Report;
let stdout: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bench-smoke-'));
  const out = join(dir, 'latest.json');
  const endpoint = await dynamoDbLocalEndpoint();
  const run = await promisify(execFile)(
    process.execPath,
    tsxArgv(join(ROOT, 'bench', 'figures.bench.ts'), ['--smoke', '--out', out]),
    {
      cwd: join(ROOT, 'bench'),
      env: tsxEnv({ ...process.env, DURABLE_BENCH_DYNAMODB_ENDPOINT: endpoint }),
      maxBuffer: 16 << 20,
      timeout: 280_000,
    },
  );
  stdout = run.stdout;
  report = JSON.parse(readFileSync(out, 'utf8')) as Report;
}, 300_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('npm run bench, smoke size', () => {
  it('writes one JSON report whose every row has ours, reference and ratio', () => {
    expect(report.size).toBe('smoke');
    expect(Number.isNaN(Date.parse(report.generatedAt))).toBe(false);
    expect(report.rows.length).toBeGreaterThan(0);
    for (const row of report.rows) {
      const where = String(row.metric);
      expect(typeof row.metric, where).toBe('string');
      expect(where.endsWith('section failed'), `${where}: ${String(row.note)}`).toBe(false);
      expect(typeof row.section, where).toBe('string');
      expect(typeof row.unit, where).toBe('string');
      expect(typeof row.target, where).toBe('string');
      expect(typeof row.referenceName, where).toBe('string');
      expect(typeof row.ours, where).toBe('number');
      expect(Number.isFinite(row.ours as number), where).toBe(true);
      expect(row.ours as number, where).toBeGreaterThanOrEqual(0);
      expect(Object.keys(row), where).toEqual(expect.arrayContaining(['ours', 'reference', 'ratio', 'met']));
      expect(row.reference === null || Number.isFinite(row.reference), where).toBe(true);
      expect(row.met === null || typeof row.met === 'boolean', where).toBe(true);
      // The ratio is reference / ours wherever both exist, and only there.
      if (typeof row.reference === 'number' && (row.ours as number) > 0) {
        expect(row.ratio as number, where).toBeCloseTo(row.reference / (row.ours as number), 6);
      } else {
        expect(row.ratio, where).toBeNull();
      }
    }
  });

  it('covers every figure of the issue, each against its reference where one exists', () => {
    const sections = new Set(report.rows.map((r) => r.section));
    for (const s of SECTIONS) expect(sections.has(s), s).toBe(true);
    const referenced = (section: string) =>
      report.rows.filter((r) => r.section === section && typeof r.reference === 'number').length;
    for (const s of ['steps', 'replay', 'cost', 'lateness', 'bundle', 'memory']) {
      expect(referenced(s), s).toBeGreaterThan(0);
    }
    const metrics = report.rows.map((r) => String(r.metric));
    for (const what of ['sequential step', 'map item', 'wait', 'callback']) {
      expect(
        metrics.some((m) => m.startsWith('DynamoDB per') && m.includes(what)),
        what,
      ).toBe(true);
    }
    // All in at the CDK's defaults, ours against the managed service: the reference run, a callback, a wait.
    for (const what of ['reference runs', 'callbacks', 'waits']) {
      const row = report.rows.find((r) => r.section === 'cost' && String(r.metric).startsWith(`$ per 1M ${what}`));
      expect(row?.metric, what).toContain('all in');
      expect(typeof row?.reference, what).toBe('number');
    }
    // Write units per partition key value at 10,000 starts and wake-ups a second (the base table's
    // and each index's), and each index's largest share with runs left running.
    expect(metrics.filter((m) => m.startsWith('peak WCU/s on one partition key value, base table')).length).toBe(1);
    const indexes = metrics.filter((m) => m.startsWith('peak WCU/s on one partition key value, index')).length;
    expect(indexes).toBeGreaterThan(0);
    expect(metrics.filter((m) => m.startsWith('largest share of one partition key value, index')).length).toBe(indexes);
    // One modelled lateness row per wait: what ships (in-process, SQS delay, Scheduler + SQS hop)
    // against Scheduler alone, and the hold its rounding costs.
    for (const wait of ['1 s', '30 s', '5 min', '15 min', '1 h', '1 day', '1 year']) {
      expect(metrics.filter((m) => m.endsWith(`wait ${wait}, shipped today`)).length, wait).toBe(1);
    }
    expect(metrics.some((m) => m.startsWith('in-process hold per wake-up'))).toBe(true);
    // Flow control, triggers and schedules in DynamoDB units: the price of `concurrency` at a free
    // key, a queued start and a slot hand-over (each a positive WRU figure, by limit), an arrival at
    // a full key, an eviction, the other gates (throttle, rateLimit, debounce, singleton) and a
    // schedule's bufferOne overlap, a trigger's run and its redelivery, and a schedule's firing by
    // the function's RUNNING runs.
    const flow = (prefix: string) =>
      report.rows.filter((r) => r.section === 'flow' && String(r.metric).startsWith(prefix));
    for (const prefix of [
      'flow: queued start end to end, limit',
      'flow: slot hand-over, limit',
      'flow: start under throttle that waits its turn end to end',
      'flow: debounce burst of 5 runs of one key end to end',
      'flow: start under singleton cancel at a held key',
      'flow: bufferOne hand-over',
    ]) {
      expect(flow(prefix).length, prefix).toBeGreaterThan(0);
      for (const r of flow(prefix)) expect([r.unit, (r.ours as number) > 0], String(r.metric)).toEqual(['WRU', true]);
    }
    for (const prefix of [
      'flow: start admitted at once under concurrency',
      'flow: arrival at a full key, limit',
      'flow: arrival at a full key whose',
      'flow: start under throttle that goes at once',
      'flow: start under rateLimit admitted',
      'flow: start under rateLimit refused',
      'flow: debounce burst of 5 runs of one key, extra per run',
      'flow: start under singleton at a free key',
      'flow: start under singleton skip at a held key',
      'flow: schedule firing under bufferOne with nothing running',
      'flow: schedule firing under bufferOne that buffers (',
      'flow: schedule firing under bufferOne that buffers, ',
      'flow: run started by an SQS trigger event',
      'flow: the same SQS trigger event delivered again',
      'flow: schedule firing, 0 RUNNING runs',
      'flow: schedule firing, 0 RUNNING and',
    ]) {
      expect(flow(prefix).length, prefix).toBeGreaterThan(0);
    }
  });

  it('prints one aligned table with a line per row', () => {
    const lines = stdout.split('\n').filter((l) => l.startsWith('| '));
    expect(lines[0]).toMatch(/^\| metric +\| +ours \| +reference \| +ratio \| target +\| met\? \|$/);
    // Header + one per row, all the same width.
    expect(lines.length).toBe(report.rows.length + 1);
    expect(new Set(lines.map((l) => l.length)).size).toBe(1);
  });
});
