import { onStopSignals, type StopRequest } from '@durable-lambda/api';
import * as local from '@durable-lambda/local';
import { type CommandLine, stringOption } from './args';
import type { DevCommandOptions } from './dev-options';
import { checkDevDatabase, checkDevPort } from './dev-precheck';
import { runDevWatch } from './dev-watch';
import type { CliIo } from './io';
import { UsageError } from './usage';

interface StartedServer {
  url?: unknown;
  functions?: unknown;
  samples?: unknown;
  close?: () => unknown;
}

/** The CLI as typed in another terminal for the server at `url` (the default URL needs no `--url`). */
function cliFor(url: string): string {
  return url === 'http://localhost:3000' || url === 'http://127.0.0.1:3000'
    ? 'npx durable'
    : `npx durable --url ${url}`;
}

/**
 * Commands to paste into another terminal, for the functions served: a start (with the function's
 * first sample input, when it declares one), then list, history, logs and wake.
 */
export function devHowTo(server: StartedServer): string[] {
  if (typeof server.url !== 'string') return [];
  const names = Array.isArray(server.functions)
    ? (server.functions as unknown[]).filter((n) => typeof n === 'string')
    : [];
  const first = names[0] as string | undefined;
  if (first === undefined) return [];
  const samples =
    server.samples instanceof Map ? (server.samples as Map<string, Array<{ input?: unknown }>>) : undefined;
  const sample = samples?.get(first)?.[0]?.input;
  const input = sample === undefined ? '' : ` --input '${JSON.stringify(sample).replaceAll("'", "'\\''")}'`;
  const cli = cliFor(server.url);
  return [
    `From another terminal (dashboard: ${server.url}/):`,
    `  ${cli} start ${first}${input}`,
    `  ${cli} list --status RUNNING`,
    `  ${cli} history <runId>       # its operations, errors and callback ids`,
    `  ${cli} logs <runId>          # its log lines`,
    `  ${cli} wake <runId>          # end a wait or a retry's backoff now`,
  ];
}

/** The environment variable a restart under `--watch` is told by (it prints a short banner). */
export const WATCH_RESTART_ENV = 'DURABLE_DEV_RESTARTED';

/** Builds the dev server's options from the command line (`--port`, else `$PORT`). */
export function devOptions(line: CommandLine, env: Record<string, string | undefined> = {}): DevCommandOptions {
  const fromFlag = stringOption(line, 'port');
  const portText = fromFlag ?? (env.PORT || undefined);
  const port = portText === undefined ? undefined : Number(portText);
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535)) {
    throw new UsageError(`${fromFlag === undefined ? 'PORT' : '--port'}: must be a whole number from 0 to 65535`);
  }
  const host = stringOption(line, 'host');
  const db = stringOption(line, 'db');
  const allowedText = stringOption(line, 'allowed-hosts') ?? (env.DURABLE_ALLOWED_HOSTS || undefined);
  const allowedHosts = allowedText
    ?.split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const faultsText = stringOption(line, 'faults');
  const seed = faultsText === undefined ? undefined : Number(faultsText);
  if (seed !== undefined && !(Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff)) {
    throw new UsageError('--faults: must be a seed, a whole number from 0 to 4294967295');
  }
  return {
    ...(seed === undefined ? {} : { faults: { seed } }),
    entries: line.args,
    ...(port === undefined ? {} : { port }),
    ...(host === undefined ? {} : { host }),
    ...(db === undefined ? {} : { db }),
    ...(allowedHosts === undefined || allowedHosts.length === 0 ? {} : { allowedHosts }),
    ...(env[WATCH_RESTART_ENV] === '1' ? { banner: 'short' as const } : {}),
  };
}

/**
 * What `durable dev` starts by default: `@durable-lambda/local`'s dev server, once the database
 * file is known not to be owned by another dev server and the port to be free (either is said at
 * once, before the server opens its store and loads the entries: about a CPU-second).
 */
async function loadForDev(options: DevCommandOptions): Promise<unknown> {
  checkDevDatabase(options);
  await checkDevPort(options);
  return local;
}

/** A busy port, said in one line with what to do about it. */
function portInUse(error: unknown): Error | undefined {
  if ((error as { code?: unknown } | null)?.code !== 'port_in_use') return undefined;
  return new Error(`${(error as Error).message}: choose another with --port N (or PORT=N)`);
}

/**
 * `durable dev`: starts the local dev server through `startDevServer(options)` of
 * `@durable-lambda/local` (which prints its URL once) and runs until stopped: the first SIGINT
 * or SIGTERM stops it gracefully (it says so), a second one (a relayed copy) changes nothing, a
 * third forces the exit. With `--watch`, a supervisor runs it in a child process and restarts it
 * when a file next to the entries changes. Exit code 2 when that package or export cannot be loaded.
 * A busy port or a database in use is found before that package is loaded, so it is said at once
 * (the default `load`).
 */
export async function runDev(
  line: CommandLine,
  io: CliIo,
  load: (options: DevCommandOptions) => Promise<unknown> = loadForDev,
  stopSignals: () => StopRequest = () => onStopSignals({ say: io.out }),
): Promise<number> {
  if (line.options.watch) return runDevWatch(line, io);
  const options = devOptions(line, io.env);
  let mod: unknown;
  try {
    mod = await load(options);
  } catch (error) {
    const busy = portInUse(error);
    if (busy) throw busy;
    if ((error as { code?: unknown } | null)?.code === 'database_in_use') throw error;
    io.err(
      `durable dev needs the package @durable-lambda/local, which could not be loaded (${(error as Error).message}).\nInstall it next to @durable-lambda/cli: npm install @durable-lambda/local`,
    );
    return 2;
  }
  const start = (mod as { startDevServer?: unknown } | null)?.startDevServer;
  if (typeof start !== 'function') {
    io.err('durable dev: this version of @durable-lambda/local has no startDevServer export; update it.');
    return 2;
  }
  // Listening before the server starts: a Ctrl-C during the start stops it once it is up.
  const stop = stopSignals();
  let server: StartedServer | undefined;
  try {
    server = (await start(options)) as StartedServer | undefined;
  } catch (error) {
    stop.dispose();
    throw portInUse(error) ?? error;
  }
  // A restart under --watch says one line; the hints were given at the first start.
  if (options.banner !== 'short') {
    for (const text of devHowTo(server ?? {})) io.out(text);
    io.out('Press Ctrl-C to stop (runs are kept: they go on at the next start).');
  }
  const signal = await stop.requested;
  io.out(`${signal}: stopping the dev server, waiting for the invocations under way (Ctrl-C twice more to force)`);
  try {
    await server?.close?.();
  } finally {
    stop.dispose();
  }
  return 0;
}
