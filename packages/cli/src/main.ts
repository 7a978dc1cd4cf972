import { DEFAULT_API_URL, DurableApiError, DurableClient, DurableConnectionError } from '@durable-lambda/api';
import { type CommandLine, parseCommandLine, stringOption } from './args';
import { runApiCommand } from './commands';
import { runConsole } from './console';
import { runCostCommand } from './cost-command';
import { runDev } from './dev';
import { runExportCommand } from './export-command';
import { type CliIo, processIo } from './io';
import { runReplayCommand } from './replay-command';
import { cliFetch, SigningSetupError } from './signing';
import { USAGE, UsageError } from './usage';

/** Exit codes of the `durable` CLI. */
export const EXIT = { ok: 0, apiError: 1, usage: 2, unreachable: 3, diverged: 4 } as const;

function apiUrl(line: CommandLine, io: CliIo): string {
  const url = stringOption(line, 'url') ?? (io.env.DURABLE_API_URL || DEFAULT_API_URL);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--url: not a URL: ${url}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new UsageError(`--url: must be http(s): ${url}`);
  return url;
}

/**
 * Runs the `durable` CLI on `argv` (the arguments after the script) and resolves to its exit
 * code: 0 ok, 1 API error, 2 usage error, 3 cannot reach the API.
 */
export async function runCli(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  let line: CommandLine;
  try {
    line = parseCommandLine(argv);
    if (line.options.help || line.command === 'help') {
      io.out(USAGE);
      return EXIT.ok;
    }
    if (line.command === undefined) throw new UsageError('a command is required');
    if (line.command === 'dev') return await runDev(line, io);
    if (line.command === 'console') return await runConsole(line, io, apiUrl(line, io));
    // Built only when they read through the API (not with --table or --db).
    const lazyClient = async () => {
      const url = apiUrl(line, io);
      const signed = await cliFetch(url, line, io);
      return new DurableClient({ baseUrl: url, ...(signed ? { fetch: signed } : {}) });
    };
    if (line.command === 'replay') return await runReplayCommand(line, io, lazyClient);
    if (line.command === 'export') {
      await runExportCommand(line, io, lazyClient);
      return EXIT.ok;
    }
    const baseUrl = apiUrl(line, io);
    // Signed (SigV4) for a Function URL or with --sign / DURABLE_SIGN=1; else io.fetch.
    const send = await cliFetch(baseUrl, line, io);
    const client = new DurableClient({ baseUrl, ...(send ? { fetch: send } : {}) });
    if (line.command === 'cost') return await runCostCommand(client, line, io);
    await runApiCommand(client, line, io);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`durable: ${error.message}\nRun "durable help" for usage.`);
      return EXIT.usage;
    }
    if (error instanceof SigningSetupError) {
      io.err(`durable: ${error.message}`);
      return EXIT.usage;
    }
    if (error instanceof DurableApiError) {
      io.err(`error: ${error.message} [${error.code}, HTTP ${error.status}]`);
      return EXIT.apiError;
    }
    if (error instanceof DurableConnectionError) {
      io.err(`error: ${error.message}`);
      return EXIT.unreachable;
    }
    io.err(`error: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT.apiError;
  }
}
