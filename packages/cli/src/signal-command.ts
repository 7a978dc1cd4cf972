/**
 * `durable signal <runId> <name> [json]` sends a named signal (issue 27) to a run: `json` is its
 * payload (inline JSON, `@path` for a file, `-` for standard input; none when left out);
 * `--idempotency-key K` makes a repeated send store it once. `durable signals <runId>` lists a
 * run's signals (delivered or pending) and its waits still open.
 */
import type { DurableClient, RunSignalsWire, SignalSentWire } from '@durable-lambda/api';
import { type CommandLine, jsonOption, stringOption } from './args';
import type { CliIo } from './io';
import { UsageError } from './usage';

function print(io: CliIo, line: CommandLine, value: unknown, human: () => string): void {
  io.out(line.options.json ? JSON.stringify(value, null, 2) : human());
}

/** `durable signal`. */
export async function runSignalCommand(client: DurableClient, line: CommandLine, io: CliIo): Promise<void> {
  const [runId, name, payload, ...extra] = line.args;
  if (runId === undefined || name === undefined || extra.length > 0) {
    throw new UsageError('"signal" takes <runId> <name> [json]');
  }
  // The payload argument reads as a JSON option does (inline, @file, - for standard input).
  const parsed =
    payload === undefined
      ? undefined
      : await jsonOption({ ...line, options: { ...line.options, input: payload } }, 'input', io.readText);
  const key = stringOption(line, 'idempotency-key');
  const sent: SignalSentWire = await client.sendSignal(
    runId,
    name,
    parsed?.value,
    key === undefined ? {} : { idempotencyKey: key },
  );
  print(
    io,
    line,
    sent,
    () =>
      `${sent.created ? 'Sent' : 'Already sent'} signal ${JSON.stringify(sent.name)} (#${sent.seq}) to run ${sent.runId}.`,
  );
}

/** `durable signals`. */
export async function runSignalsCommand(client: DurableClient, line: CommandLine, io: CliIo): Promise<void> {
  const [runId, ...extra] = line.args;
  if (runId === undefined || extra.length > 0) throw new UsageError('"signals" takes <runId>');
  const view = await client.getSignals(runId);
  print(io, line, view, () => formatSignals(view));
}

/** A run's signals as text: one line each, then the waits still open. */
export function formatSignals(view: RunSignalsWire): string {
  const lines = [`Run ${view.runId}: ${view.signals.length} signal(s)`];
  for (const s of view.signals) {
    const payload = s.payload === undefined ? '' : ` ${JSON.stringify(s.payload)}`;
    const where = s.operationId === undefined ? '' : ` to operation ${s.operationId}`;
    lines.push(`  #${s.seq} ${s.name} ${s.state}${where} (sent ${s.sentAt})${payload}`);
  }
  for (const w of view.waiting) {
    lines.push(
      `  waiting: operation ${w.operationId} for ${w.name}${w.timeoutAt ? ` (times out ${w.timeoutAt})` : ''}`,
    );
  }
  return lines.join('\n');
}
