/**
 * `durable replay`: replays recorded runs against a handler module in the test runner of
 * `@durable-lambda/local` (nothing executes: no step body runs, nothing is written anywhere) and
 * says where the code diverges. One run (a file from `durable export`, or a run id read from the
 * API or a table), or, for CI before a deploy, the last N finished and all running runs of a
 * function; the exit code is non-zero when any run does not replay cleanly.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DurableApiError, type DurableClient } from '@durable-lambda/api';
import type { RunStatus } from '@durable-lambda/engine';
import type { ReplayReport } from '@durable-lambda/local';
import { type CommandLine, stringOption } from './args';
import type { CliIo } from './io';
import { loadReplayPackage, openRunSource, type RunSource } from './replay-sources';
import { UsageError } from './usage';

/** The exit code of a replay that found a run not replaying cleanly. */
export const REPLAY_DIVERGED_EXIT = 4;

/** `--last` when not given: the finished runs the CI mode replays. */
export const DEFAULT_REPLAY_LAST = 20;

/** Runs `durable replay`; resolves to the exit code (0: every run replays cleanly). */
export async function runReplayCommand(
  line: CommandLine,
  io: CliIo,
  client: () => Promise<DurableClient>,
): Promise<number> {
  const spec = stringOption(line, 'handler');
  if (spec === undefined) throw new UsageError('replay: --handler <module>#<export> is required');
  const functionName = stringOption(line, 'function');
  const lastText = stringOption(line, 'last');
  if (line.args.length > 1)
    throw new UsageError(`replay takes one <file|runId> (extra: ${line.args.slice(1).join(' ')})`);
  const target = line.args[0];
  if (target === undefined && functionName === undefined) {
    throw new UsageError('replay: give a <file|runId>, or --function F to replay its runs (CI mode)');
  }
  if (target !== undefined && (functionName !== undefined || lastText !== undefined)) {
    throw new UsageError("replay: --function and --last replay a function's runs; give them without a <file|runId>");
  }
  const last = lastText === undefined ? DEFAULT_REPLAY_LAST : Number(lastText);
  if (!(Number.isInteger(last) && last >= 0 && last <= 1000))
    throw new UsageError('--last: must be a whole number from 0 to 1000');

  const local = await loadReplayPackage();
  const handler = await loadHandler(spec);
  const reports: ReplayReport[] = [];
  const replay = async (recorded: unknown) => reports.push(await local.replayRecordedRun(handler, recorded));

  let from: string;
  if (target !== undefined && existsSync(target)) {
    from = `file ${target}`;
    let recorded: unknown;
    try {
      recorded = local.parseRecordedRun(readFileSync(target, 'utf8'));
    } catch (error) {
      const { code, message } = error as { code?: string; message: string };
      throw new UsageError(`${target}: ${message}${code ? ` [${code}]` : ''}`);
    }
    await replay(recorded);
  } else {
    const source = await openRunSource(line, io, client);
    from = source.label;
    try {
      const runIds = target !== undefined ? [target] : await ciRuns(source, last);
      for (const runId of runIds) {
        const recorded = await exportOrGone(source, runId, target === undefined);
        if (recorded !== undefined) await replay(recorded);
      }
    } finally {
      source.close();
    }
  }

  const count = (outcome: ReplayReport['outcome']) => reports.filter((r) => r.outcome === outcome).length;
  const totals = { clean: count('clean'), diverged: count('non_deterministic'), failed: count('failed') };
  if (line.options.json) {
    io.out(
      JSON.stringify(
        { handler: spec, from, runs: reports.map(({ logs: _logs, ...report }) => report), ...totals },
        null,
        2,
      ),
    );
  } else {
    const what = functionName === undefined ? '' : ` of ${functionName}`;
    io.out(`Replayed ${reports.length} run${reports.length === 1 ? '' : 's'}${what} from ${from} against ${spec}`);
    for (const report of reports) {
      const mark = report.outcome === 'clean' ? 'ok      ' : report.outcome === 'failed' ? 'FAILED  ' : 'DIVERGED';
      io.out(`  ${mark} (${report.recordedStatus}) ${report.summary}`);
    }
    io.out(`${totals.clean} clean, ${totals.diverged} diverged, ${totals.failed} failed`);
  }
  return totals.diverged + totals.failed > 0 ? REPLAY_DIVERGED_EXIT : 0;
}

/** The CI mode's runs: every running one, then the last `last` that ended. */
async function ciRuns(source: RunSource, last: number): Promise<string[]> {
  const running = await source.listRunIds('RUNNING', () => true, Number.MAX_SAFE_INTEGER);
  const ended = last === 0 ? [] : await source.listRunIds(undefined, (status: RunStatus) => status !== 'RUNNING', last);
  return [...running, ...ended].map((run) => run.runId);
}

/** The run's file, or undefined when the CI mode listed a run that is gone since (its retention passed). */
async function exportOrGone(source: RunSource, runId: string, listed: boolean): Promise<unknown> {
  try {
    return await source.exportRun(runId);
  } catch (error) {
    const gone =
      (error instanceof DurableApiError && error.status === 404) ||
      (error as { code?: string; field?: string }).field === 'runId';
    if (listed && gone) return undefined;
    throw error;
  }
}

/**
 * The handler named by `<module>#<export>` (the export defaults to `handler`), the module
 * resolved from the current directory: a built file (`dist/handler.js`), or TypeScript when
 * the CLI runs under a loader that compiles it.
 */
export async function loadHandler(spec: string): Promise<unknown> {
  const hash = spec.lastIndexOf('#');
  const path = hash > 0 ? spec.slice(0, hash) : spec;
  const name = hash > 0 ? spec.slice(hash + 1) : 'handler';
  if (path === '' || name === '')
    throw new UsageError(`--handler: must be <module>#<export>, not ${JSON.stringify(spec)}`);
  const file = isAbsolute(path) ? path : resolve(process.cwd(), path);
  if (!existsSync(file)) throw new UsageError(`--handler: no module at ${file}`);
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    throw new UsageError(`--handler: cannot load ${file}: ${(error as Error).message}`);
  }
  const handler = module[name];
  if (typeof handler !== 'function') {
    const exports = Object.keys(module).filter((key) => typeof module[key] === 'function');
    throw new UsageError(
      `--handler: ${path} has no function export ${JSON.stringify(name)} (its function exports: ${exports.join(', ') || 'none'})`,
    );
  }
  return handler;
}
