import type { DurableClient } from '@durable-lambda/api';
import { type CommandLine, positionals } from './args';
import type { CliIo } from './io';
import { openRunSource } from './replay-sources';

/**
 * `durable export <runId> [--table T | --db FILE]`: prints the run as an exported-run file
 * (`durable-lambda/recorded-run`, version 1) on standard output, for `> run.json`. Through the
 * API by default; straight from a deployment's DynamoDB table or a dev server's SQLite file.
 */
export async function runExportCommand(
  line: CommandLine,
  io: CliIo,
  client: () => Promise<DurableClient>,
): Promise<void> {
  const [runId] = positionals(line, ['runId']) as [string];
  const source = await openRunSource(line, io, client);
  try {
    io.out(JSON.stringify(await source.exportRun(runId), null, 2));
  } finally {
    source.close();
  }
}
