import type { DurableClient, OperatorAnswerWire, RunStatusWire } from '@durable-lambda/api';
import { type CommandLine, jsonOption, positionals, stringOption, tagOptions } from './args';
import { formatActions, formatHistory, formatLogs, formatRun, formatRunList, formatWake } from './format';
import { formatCompensations, hasCompensations } from './format-compensations';
import { formatFunctionList } from './format-functions';
import type { CliIo } from './io';
import { runSignalCommand, runSignalsCommand } from './signal-command';
import { UsageError } from './usage';

const STATUSES: readonly RunStatusWire[] = [
  'RUNNING',
  'QUEUED',
  'SUCCEEDED',
  'FAILED',
  'TIMED_OUT',
  'STOPPED',
  'CANCELLED',
];

/** What a command prints: the API's JSON answer with `--json`, else the human text. */
function print(io: CliIo, line: CommandLine, value: unknown, human: () => string): void {
  io.out(line.options.json ? JSON.stringify(value, null, 2) : human());
}

/** Runs one API command (everything but `dev` and `help`). */
export async function runApiCommand(client: DurableClient, line: CommandLine, io: CliIo): Promise<void> {
  switch (line.command) {
    case 'start': {
      const [fn] = positionals(line, ['function']);
      const input = await jsonOption(line, 'input', io.readText);
      const runKey = stringOption(line, 'run-key');
      const tags = tagOptions(line);
      const { run, created } = await client.startRun({
        ...(tags === undefined ? {} : { tags }),
        function: fn as string,
        ...(input === undefined ? {} : { input: input.value }),
        ...(runKey === undefined ? {} : { runKey }),
        ...(line.options.latest === true ? { latest: true } : {}),
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
      const concurrencyKey = stringOption(line, 'concurrency-key');
      const tags = tagOptions(line);
      const errorCode = stringOption(line, 'error-code');
      const list = await client.listRuns({
        includeWaitingFor: true,
        ...(tags === undefined ? {} : { tags }),
        ...(errorCode === undefined ? {} : { errorCode }),
        ...(search === undefined ? {} : { search }),
        ...(concurrencyKey === undefined ? {} : { concurrencyKey }),
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
    case 'functions': {
      positionals(line, []);
      const list = await client.listFunctions({ includeCounts: true });
      print(io, line, list, () => formatFunctionList(list));
      return;
    }
    case 'show': {
      const [runId] = positionals(line, ['runId']);
      const run = await client.getRun(runId as string);
      // Payloads too big for one answer are read on their own, in slices.
      for (const field of Object.keys(run.omitted ?? {}) as Array<'input' | 'result' | 'error'>) {
        (run as unknown as Record<string, unknown>)[field] = await client.getPayload(run.runId, field);
      }
      delete run.omitted;
      // Sagas: shown when the run has some (an API without the route shows none).
      const found = await client.getCompensations(run.runId).catch(() => undefined);
      const compensations = hasCompensations(found) ? found : undefined;
      print(io, line, compensations ? { ...run, compensations } : run, () =>
        compensations ? `${formatRun(run)}\n${formatCompensations(compensations)}` : formatRun(run),
      );
      return;
    }
    case 'history': {
      const [runId] = positionals(line, ['runId']);
      // Every page, with the payloads the pages left out for their size.
      const history = await client.history(runId as string, { payloads: true });
      // The operator actions are part of the run's history (an API without the route shows none).
      const actions = await client.getActions(runId as string).catch(() => undefined);
      print(io, line, history, () =>
        actions ? `${formatHistory(history)}\n\n${formatActions(actions.actions)}` : formatHistory(history),
      );
      return;
    }
    case 'logs': {
      const [runId] = positionals(line, ['runId']);
      const history = await client.history(runId as string, { payloads: true });
      const logs = {
        runId: history.runId,
        logs: [
          ...(history.logs ?? []),
          ...history.operations.flatMap((op) => (op.logs ?? []).map((log) => ({ operationId: op.id, ...log }))),
        ].sort((a, b) => Date.parse(a.at) - Date.parse(b.at)),
        ...(history.logsDropped ? { logsDropped: history.logsDropped } : {}),
      };
      print(io, line, logs, () => formatLogs(history));
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
    case 'cancel-tree':
    case 'retry':
    case 'skip':
      return runOperatorAction(client, line, io);
    case 'callback':
      return runCallback(client, line, io);
    case 'signal':
      return runSignalCommand(client, line, io);
    case 'signals':
      return runSignalsCommand(client, line, io);
    default:
      throw new UsageError(`unknown command ${JSON.stringify(line.command)}`);
  }
}

/**
 * The operator actions: `cancel`, `cancel-tree`, `retry [--operation ID]` (from that operation),
 * `skip <runId> <operationId> [--result JSON]`. Who acts is `$DURABLE_ACTOR`, else `$USER`
 * (behind an IAM-auth Function URL the signing principal is recorded instead).
 */
async function runOperatorAction(client: DurableClient, line: CommandLine, io: CliIo): Promise<void> {
  const actor = io.env.DURABLE_ACTOR || io.env.USER;
  const post = actor ? { actor } : {};
  let run: OperatorAnswerWire;
  if (line.command === 'skip') {
    const [runId, operationId] = positionals(line, ['runId', 'operationId']) as [string, string];
    run = await client.skipStep(runId, operationId, (await jsonOption(line, 'result', io.readText))?.value, post);
  } else {
    const [runId] = positionals(line, ['runId']) as [string];
    const from = stringOption(line, 'operation');
    run =
      line.command === 'retry'
        ? await client.retryRun(runId, { ...post, ...(from === undefined ? {} : { fromOperation: from }) })
        : await client.cancelRun(runId, { ...post, tree: line.command === 'cancel-tree' });
  }
  // Who acted and when: in `--json` (its `action`) and in `history`.
  print(io, line, run, () => `Run ${run.runId} is now ${run.status}.`);
}

async function runCallback(client: DurableClient, line: CommandLine, io: CliIo): Promise<void> {
  const [action, callbackId] = positionals(line, ['succeed|fail|heartbeat', 'callbackId']) as [string, string];
  const result = await jsonOption(line, 'result', io.readText);
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
