/**
 * `durable export` through the control API: a run and its history, turned back into the
 * exported-run file (`durable-lambda/recorded-run`, version 1) that `@durable-lambda/local`
 * reads (`parseRecordedRun`, `LocalDurableTestRunner.replay`); that package's validator is the
 * authority on the format, this module only writes it.
 *
 * The API shows payloads parsed, so they are serialized again as JSON: exact for the default
 * serdes; a custom serdes whose output is not JSON, a context's `ReplayChildren` flag and a
 * callback's heartbeat timeout do not survive the API. Export from the table (`--table`, `--db`)
 * for the stored bytes.
 */
import type { ErrorObject, Operation } from '@durable-lambda/protocol';
import type { ErrorWire, OperationListWire, OperationWire, RunWire } from '../wire';
import { mapBatchItems } from './convert';
import { API_ERROR_STATUS, ApiError } from './errors';

/** The exported-run file, version 1 (see `RecordedRun` in `@durable-lambda/local`). */
export interface RunExportFile {
  format: 'durable-lambda/recorded-run';
  version: 1;
  exportedAt: string;
  source: 'api';
  run: {
    runId: string;
    functionName: string;
    status: RunWire['status'];
    input?: string;
    result?: string;
    error?: ErrorObject;
    createdAt: number;
    updatedAt: number;
    endedAt?: number;
    invocations: number;
    lostInvocations: number;
    parent?: { runId: string; operationId: string };
  };
  operations: Operation[];
}

/** A history page: a later API pages long histories with `cursor` / `nextCursor`. */
export type OperationPage = OperationListWire & { nextCursor?: string };

/** What the exporter needs of the API ({@link DurableClient} has it). */
export interface RunExportClient {
  getRun(runId: string): Promise<RunWire>;
  getOperations(runId: string, query?: { cursor?: string }): Promise<OperationPage>;
  /** One operation with its payloads, when the API has the route (for payloads a page leaves out). */
  getOperation?(runId: string, operationId: string): Promise<OperationWire>;
}

/**
 * An export that cannot be made whole (code `export_incomplete`): what is missing, and where. An
 * {@link ApiError}: the control API answers it with its status in `API_ERROR_STATUS` (`422`).
 */
export class RunExportError extends ApiError<'export_incomplete'> {
  constructor(message: string) {
    super(API_ERROR_STATUS.export_incomplete, 'export_incomplete', message);
    this.name = 'RunExportError';
  }
}

/** Pages a history may take before the exporter gives up (a cursor that never ends). */
const MAX_PAGES = 10_000;

/**
 * Exports one run through the API: the run first, then every page of its history (following
 * `nextCursor` when the API pages; one page otherwise), so a run moving on meanwhile only shows
 * operations newer than its status, which a replay treats as work beyond where the run stands.
 */
export async function exportRunFromApi(client: RunExportClient, runId: string): Promise<RunExportFile> {
  const run = await client.getRun(runId);
  const omittedRun = Object.keys((run as { omitted?: object }).omitted ?? {});
  if (omittedRun.length > 0) {
    throw new RunExportError(
      `run ${runId}: the API left out its ${omittedRun.join(', ')} (too large): export from the table`,
    );
  }
  const wires: OperationWire[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    if (page >= MAX_PAGES) throw new RunExportError(`run ${runId}: the history did not end after ${MAX_PAGES} pages`);
    const answer = await client.getOperations(run.runId, cursor === undefined ? {} : { cursor });
    for (const op of answer.operations) {
      if (!seen.has(op.id)) wires.push(await whole(client, run.runId, op));
      seen.add(op.id);
    }
    if (answer.nextCursor === undefined || answer.nextCursor === cursor) break;
    cursor = answer.nextCursor;
  }
  return {
    format: 'durable-lambda/recorded-run',
    version: 1,
    exportedAt: new Date().toISOString(),
    source: 'api',
    run: runFromWire(run),
    operations: wires.map((op) => operationFromWire(op, run)),
  };
}

/** The operation with every payload: one a page left out for its size is read alone. */
async function whole(client: RunExportClient, runId: string, op: OperationWire): Promise<OperationWire> {
  const omitted = Object.keys((op as { omitted?: object }).omitted ?? {}).filter((f) => f !== 'logs');
  if (omitted.length === 0) return op;
  const alone = client.getOperation ? await client.getOperation(runId, op.id) : undefined;
  const still = Object.keys((alone as { omitted?: object } | undefined)?.omitted ?? {}).filter((f) => f !== 'logs');
  if (!alone || still.length > 0) {
    throw new RunExportError(
      `run ${runId}: the API left out the ${(alone ? still : omitted).join(', ')} of operation ${op.id} (too large): export from the table`,
    );
  }
  return alone;
}

const ms = (iso: string): number => Date.parse(iso);

/** A payload as the store keeps it: the API shows it parsed. */
function serialize(value: unknown): string | undefined {
  return value === undefined ? undefined : JSON.stringify(value);
}

function errorFromWire(error: ErrorWire): ErrorObject {
  return {
    // The API shows a missing code as `error`.
    ...(error.code === 'error' ? {} : { ErrorCode: error.code }),
    ErrorMessage: error.message,
    ...(error.type === undefined ? {} : { ErrorType: error.type }),
    ...(error.data === undefined ? {} : { ErrorData: error.data }),
    ...(error.stackTrace === undefined ? {} : { StackTrace: error.stackTrace }),
  };
}

function runFromWire(run: RunWire): RunExportFile['run'] {
  const input = serialize(run.input);
  const result = serialize(run.result);
  return {
    runId: run.runId,
    functionName: run.function,
    status: run.status,
    ...(input === undefined ? {} : { input }),
    ...(result === undefined ? {} : { result }),
    ...(run.error ? { error: errorFromWire(run.error) } : {}),
    createdAt: ms(run.createdAt),
    updatedAt: ms(run.updatedAt),
    ...(run.endedAt === undefined ? {} : { endedAt: ms(run.endedAt) }),
    invocations: run.invocations,
    lostInvocations: run.lostInvocations,
    ...(run.parent ? { parent: run.parent } : {}),
  };
}

/** A map's or parallel's summary as stored: each item's result serialized inside it (see `decodeBatchResult`). */
function encodeBatchResult(value: unknown): unknown {
  return mapBatchItems(value, serialize, (error) => errorFromWire(error as ErrorWire));
}

/** An operation of the history turned back into its stored shape. */
export function operationFromWire(op: OperationWire, run: RunWire): Operation {
  const batch = op.type === 'CONTEXT' && (op.subType === 'Map' || op.subType === 'Parallel');
  const result = serialize(batch ? encodeBatchResult(op.result) : op.result);
  const error = op.error ? errorFromWire(op.error) : undefined;
  const outcome = { ...(result === undefined ? {} : { Result: result }), ...(error ? { Error: error } : {}) };
  const base: Operation = {
    Id: op.id,
    ...(op.parentId === undefined ? {} : { ParentId: op.parentId }),
    ...(op.name === undefined ? {} : { Name: op.name }),
    Type: op.type,
    ...(op.subType === undefined ? {} : { SubType: op.subType }),
    Status: op.status,
    StartTimestamp: ms(op.startedAt),
    ...(op.endedAt === undefined ? {} : { EndTimestamp: ms(op.endedAt) }),
    ...(op.historyOrder === undefined ? {} : { HistoryOrder: op.historyOrder }),
  };
  switch (op.type) {
    case 'EXECUTION': {
      const input = serialize(run.input);
      return { ...base, ExecutionDetails: input === undefined ? {} : { InputPayload: input } };
    }
    case 'STEP':
      return {
        ...base,
        StepDetails: {
          Attempt: op.attempt ?? 1,
          ...(op.nextAttemptAt === undefined ? {} : { NextAttemptTimestamp: ms(op.nextAttemptAt) }),
          ...outcome,
          ...(op.failedAttempts?.length
            ? {
                FailedAttempts: op.failedAttempts.map((f) => ({
                  Attempt: f.attempt,
                  Timestamp: ms(f.at),
                  Error: errorFromWire(f.error),
                })),
              }
            : {}),
        },
      };
    case 'WAIT':
      return op.waitUntil === undefined ? base : { ...base, WaitDetails: { ScheduledEndTimestamp: ms(op.waitUntil) } };
    case 'CALLBACK':
      return {
        ...base,
        CallbackDetails: {
          CallbackId: op.callbackId ?? '',
          ...outcome,
          ...(op.timeoutAt === undefined ? {} : { TimeoutTimestamp: ms(op.timeoutAt) }),
          ...(op.heartbeatDeadline === undefined ? {} : { HeartbeatDeadline: ms(op.heartbeatDeadline) }),
        },
      };
    case 'CHAINED_INVOKE':
      return {
        ...base,
        ChainedInvokeDetails: {
          ...(op.invokedFunction === undefined ? {} : { FunctionName: op.invokedFunction }),
          ...(op.childRunId === undefined ? {} : { ChildRunId: op.childRunId }),
          ...outcome,
        },
      };
    case 'CONTEXT':
      return Object.keys(outcome).length > 0 ? { ...base, ContextDetails: outcome } : base;
    default:
      return base;
  }
}
