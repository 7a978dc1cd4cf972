import { onStopSignals, type StopRequest } from '@durable-lambda/api';
import * as local from '@durable-lambda/local';
import { type CommandLine, stringOption } from './args';
import type { CliIo } from './io';
import { cliFetch, loadAwsPackage, signingWanted } from './signing';
import { UsageError } from './usage';

/** The port `durable console` listens on without `--port` or `$PORT`. */
export const DEFAULT_CONSOLE_PORT = 3001;

interface StartedConsole {
  close?: () => unknown;
}

/** How `durable console` finds its parts (replaceable in tests). */
export interface ConsoleLoaders {
  local?: () => Promise<unknown>;
  aws?: () => Promise<unknown>;
  stopSignals?: () => StopRequest;
}

function consolePort(line: CommandLine, env: CliIo['env']): number {
  const fromFlag = stringOption(line, 'port');
  const text = fromFlag ?? (env.PORT || undefined);
  const port = text === undefined ? DEFAULT_CONSOLE_PORT : Number(text);
  if (!(Number.isInteger(port) && port >= 0 && port <= 65535)) {
    throw new UsageError(`${fromFlag === undefined ? 'PORT' : '--port'}: must be a whole number from 0 to 65535`);
  }
  return port;
}

/**
 * `durable console --url <api>`: the dev server's dashboard on http://127.0.0.1:<port> for a
 * deployed control API, its calls proxied there and signed with SigV4 (a Function URL, or
 * `--sign`) from the user's AWS credentials; the browser never holds them. Runs until SIGINT or
 * SIGTERM. Exit code 2 when `@durable-lambda/local` cannot be loaded or the port is taken (one
 * line naming the port).
 */
export async function runConsole(
  line: CommandLine,
  io: CliIo,
  apiUrl: string,
  loaders: ConsoleLoaders = {},
): Promise<number> {
  if (line.args.length > 0) throw new UsageError(`"console" takes no arguments (got ${line.args.join(' ')})`);
  const port = consolePort(line, io.env);
  const signed = await cliFetch(apiUrl, line, io, loaders.aws ?? loadAwsPackage);
  let mod: unknown;
  try {
    mod = await (loaders.local ?? (async () => local))();
  } catch (error) {
    io.err(
      `durable console needs the package @durable-lambda/local (its dashboard), which could not be loaded (${(error as Error).message}): npm install @durable-lambda/local`,
    );
    return 2;
  }
  const start = (mod as { startConsoleServer?: unknown } | null)?.startConsoleServer;
  if (typeof start !== 'function') {
    io.err('durable console: this version of @durable-lambda/local has no startConsoleServer export; update it.');
    return 2;
  }
  const stop = (loaders.stopSignals ?? (() => onStopSignals({ say: io.out })))();
  let server: StartedConsole | undefined;
  try {
    server = (await start({ apiUrl, port, log: io.out, ...(signed ? { fetch: signed } : {}) })) as StartedConsole;
  } catch (error) {
    stop.dispose();
    if ((error as { code?: unknown } | null)?.code === 'port_in_use') {
      io.err(`durable console: ${(error as Error).message}: choose another with --port N (or PORT=N)`);
      return 2;
    }
    throw error;
  }
  io.out(
    `Signing requests: ${signingWanted(apiUrl, line, io.env) ? 'yes (SigV4, your AWS credentials)' : 'no'}. Press Ctrl-C to stop.`,
  );
  const signal = await stop.requested;
  io.out(`${signal}: stopping the console`);
  try {
    await server?.close?.();
  } finally {
    stop.dispose();
  }
  return 0;
}
