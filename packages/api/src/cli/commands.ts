import type { DurableClient } from '../client';
import type { RunStatusWire } from '../wire';
import { type CommandLine, jsonOption, positionals, stringOption } from './args';
import { formatHistory, formatRun, formatRunList, formatWake } from './format';
import type { CliIo } from './io';
import { UsageError } from './usage';

const STATUSES: readonly RunStatusWire[] = ['RUNNING', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'STOPPED', 'CANCELLED'];

/** What a command prints: the API's JSON answer with `--json`, else the human text. */
function print(io: CliIo, line: CommandLine, value: unknown, human: () => string): void {
  io.out(line.options.json ? JSON.stringify(value, null, 2) : human());
}

/** Runs one API command (everything but `dev` and `help`). */
export async function runApiCommand(client: DurableClient, line: CommandLine, io: CliIo): Promise<void> {
  switch (line.command) {
    case 'start': {
      const [fn] = positionals(line, ['function']);
      const input = jsonOption(line, 'input');
      const runKey = stringOption(line, 'run-key');
      const { run, created } = await client.startRun({
        function: fn as string,
        ...(input === undefined ? {} : { input: input.value }),
        ...(runKey === undefined ? {} : { runKey }),
      });
      print(io, line, run, () => `${created ? 'Started run' : 'Found existing run'} ${run.runId}\n${formatRun(run)}`);
      return;
    }
    case 'list': {
      positionals(line, []);
      const status = stringOption(line, 'status');
      if (status !== undefined && !(STATUSES as readonly string[]).includes(status)) {
        throw new UsageError(`--status: must be one of ${STATUSES.join(', ')}`);
      }
      const limitText = stringOption(line, 'limit');
      const limit = limitText === undefined ? undefined : Number(limitText);
      if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 100)) {
        throw new UsageError('--limit: must be a whole number from 1 to 100');
      }
      const fn = stringOption(line, 'function');
      const cursor = stringOption(line, 'cursor');
      const after = stringOption(line, 'created-after');
      const before = stringOption(line, 'created-before');
      const search = stringOption(line, 'search');
      const list = await client.listRuns({
        includeWaitingFor: true,
        ...(search === undefined ? {} : { search }),
        ...(fn === undefined ? {} : { function: fn }),
        ...(status === undefined ? {} : { status: status as RunStatusWire }),
        ...(limit === undefined ? {} : { limit }),
        ...(cursor === undefined ? {} : { cursor }),
        ...(after === undefined ? {} : { createdAfter: after }),
        ...(before === undefined ? {} : { createdBefore: before }),
      });
      print(io, line, list, () => formatRunList(list));
      return;
    }
    case 'show': {
      const [runId] = positionals(line, ['runId']);
      const run = await client.getRun(runId as string);
      print(io, line, run, () => formatRun(run));
      return;
    }
    case 'history': {
      const [runId] = positionals(line, ['runId']);
      const history = await client.getOperations(runId as string);
      print(io, line, history, () => formatHistory(history));
      return;
    }
    case 'wake': {
      const [runId] = positionals(line, ['runId']);
      const operationId = stringOption(line, 'operation');
      const answer = await client.wakeRun(runId as string, operationId === undefined ? {} : { operationId });
      print(io, line, answer, () => formatWake(answer));
      return;
    }
    case 'cancel':
    case 'retry': {
      const [runId] = positionals(line, ['runId']);
      const run =
        line.command === 'cancel' ? await client.cancelRun(runId as string) : await client.retryRun(runId as string);
      print(io, line, run, () => `Run ${run.runId} is now ${run.status}.`);
      return;
    }
    case 'callback':
      return runCallback(client, line, io);
    default:
      throw new UsageError(`unknown command ${JSON.stringify(line.command)}`);
  }
}

async function runCallback(client: DurableClient, line: CommandLine, io: CliIo): Promise<void> {
  const [action, callbackId] = positionals(line, ['succeed|fail|heartbeat', 'callbackId']) as [string, string];
  const result = jsonOption(line, 'result');
  const message = stringOption(line, 'message');
  const code = stringOption(line, 'code');
  const misplaced = (names: string[]) => {
    const given = names.filter((name) => line.options[name as keyof CommandLine['options']] !== undefined);
    if (given.length > 0) throw new UsageError(`callback ${action}: --${given[0]} does not apply`);
  };
  switch (action) {
    case 'succeed': {
      misplaced(['message', 'code']);
      const ack = await client.succeedCallback(callbackId, result?.value);
      print(io, line, ack, () => `Callback ${callbackId} succeeded.`);
      return;
    }
    case 'fail': {
      misplaced(['result']);
      if (message === undefined) throw new UsageError('callback fail: --message is required');
      const ack = await client.failCallback(callbackId, { message, ...(code === undefined ? {} : { code }) });
      print(io, line, ack, () => `Callback ${callbackId} failed.`);
      return;
    }
    case 'heartbeat': {
      misplaced(['result', 'message', 'code']);
      const ack = await client.heartbeatCallback(callbackId);
      print(io, line, ack, () => `Callback ${callbackId}: heartbeat sent.`);
      return;
    }
    default:
      throw new UsageError(`callback: the action must be succeed, fail or heartbeat, not ${JSON.stringify(action)}`);
  }
}
