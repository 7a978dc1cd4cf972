import { type CommandLine, stringOption } from './args';
import type { CliIo } from './io';
import { UsageError } from './usage';

/** The options `durable dev` passes to `startDevServer` of `@durable-lambda/local`. */
export interface DevCommandOptions {
  /** Handler modules given as positional arguments. */
  entries: string[];
  port?: number;
  host?: string;
  /** The SQLite file the dev server keeps runs in. */
  db?: string;
}

/** Loads `@durable-lambda/local` (a variable specifier: the api package does not depend on it). */
export function loadLocalPackage(): Promise<unknown> {
  const specifier = '@durable-lambda/local';
  return import(specifier);
}

interface StartedServer {
  url?: unknown;
  close?: () => unknown;
}

/** Builds the dev server's options from the command line. */
export function devOptions(line: CommandLine): DevCommandOptions {
  const portText = stringOption(line, 'port');
  const port = portText === undefined ? undefined : Number(portText);
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535)) {
    throw new UsageError('--port: must be a whole number from 0 to 65535');
  }
  const host = stringOption(line, 'host');
  const db = stringOption(line, 'db');
  return {
    entries: line.args,
    ...(port === undefined ? {} : { port }),
    ...(host === undefined ? {} : { host }),
    ...(db === undefined ? {} : { db }),
  };
}

/**
 * `durable dev`: starts the local dev server through `startDevServer(options)` of
 * `@durable-lambda/local` and runs until SIGINT or SIGTERM. Exit code 2 when that package or
 * export cannot be loaded.
 */
export async function runDev(
  line: CommandLine,
  io: CliIo,
  load: () => Promise<unknown> = loadLocalPackage,
  untilStopped: () => Promise<void> = untilSignal,
): Promise<number> {
  const options = devOptions(line);
  let mod: unknown;
  try {
    mod = await load();
  } catch (error) {
    io.err(
      `durable dev needs the package @durable-lambda/local, which could not be loaded (${(error as Error).message}).\nInstall it next to @durable-lambda/api: npm install @durable-lambda/local`,
    );
    return 2;
  }
  const start = (mod as { startDevServer?: unknown } | null)?.startDevServer;
  if (typeof start !== 'function') {
    io.err('durable dev: this version of @durable-lambda/local has no startDevServer export; update it.');
    return 2;
  }
  const server = (await start(options)) as StartedServer | undefined;
  io.out(`durable dev server running${typeof server?.url === 'string' ? ` at ${server.url}` : ''} (Ctrl-C stops it)`);
  await untilStopped();
  await server?.close?.();
  return 0;
}

/** Resolves at the first SIGINT or SIGTERM. */
export function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
