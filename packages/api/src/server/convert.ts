import type { RunRecord } from '@durable-lambda/engine';
import type { ErrorObject, Operation } from '@durable-lambda/protocol';
import type { ErrorWire, OperationWire, RunWire } from '../wire';

/** A stored payload as the API shows it: parsed JSON when it is JSON, else the raw string. */
export function parsePayload(payload: string | undefined): unknown {
  if (payload === undefined) return undefined;
  try {
    return JSON.parse(payload);
  } catch {
    return payload;
  }
}

/** A stored error as the API shows it; a missing code becomes `error`. */
export function errorToWire(error: ErrorObject): ErrorWire {
  return {
    code: error.ErrorCode ?? 'error',
    message: error.ErrorMessage ?? '',
    ...(error.ErrorType === undefined ? {} : { type: error.ErrorType }),
    ...(error.ErrorData === undefined ? {} : { data: error.ErrorData }),
    ...(Array.isArray(error.StackTrace) && error.StackTrace.length > 0
      ? { stackTrace: error.StackTrace.map(String) }
      : {}),
  };
}

/** Batch contexts, whose result is the SDK's summary of their items. */
const BATCH_SUBTYPES = new Set(['Map', 'Parallel']);

/**
 * A map's or parallel's stored summary with each item's result decoded: the SDK keeps an item's
 * result as its serialized form (a JSON string) inside the summary's JSON, which would show as a
 * string of escaped JSON. Anything that is not such a summary is returned as it is.
 */
export function decodeBatchResult(value: unknown): unknown {
  return mapBatchItems(
    value,
    (result) => (typeof result === 'string' ? parsePayload(result) : result),
    (error) => errorToWire(error as ErrorObject),
  );
}

/**
 * A map's or parallel's summary with each item's `result` and (object) `error` passed through the
 * given functions: decoding for the API (`decodeBatchResult`) and its inverse for an exported run.
 * Anything that is not such a summary is returned as it is.
 */
export function mapBatchItems(
  value: unknown,
  mapResult: (result: unknown) => unknown,
  mapError: (error: object) => unknown,
): unknown {
  if (value === null || typeof value !== 'object' || !Array.isArray((value as { items?: unknown }).items)) return value;
  const summary = value as { items: unknown[] };
  return {
    ...summary,
    items: summary.items.map((item) => {
      if (item === null || typeof item !== 'object') return item;
      const { result, error, ...rest } = item as { result?: unknown; error?: unknown };
      return {
        ...rest,
        ...(result === undefined ? {} : { result: mapResult(result) }),
        ...(error && typeof error === 'object' ? { error: mapError(error) } : {}),
      };
    }),
  };
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** A run record as the API shows it. */
export function runToWire(run: RunRecord): RunWire {
  return {
    runId: run.runId,
    function: run.functionName,
    status: run.status,
    ...(run.runKey === undefined ? {} : { runKey: run.runKey }),
    ...(run.input === undefined ? {} : { input: parsePayload(run.input) }),
    ...(run.result === undefined ? {} : { result: parsePayload(run.result) }),
    ...(run.error === undefined ? {} : { error: errorToWire(run.error) }),
    createdAt: iso(run.createdAt),
    updatedAt: iso(run.updatedAt),
    ...(run.endedAt === undefined ? {} : { endedAt: iso(run.endedAt) }),
    ...(run.status === 'RUNNING' && run.nextWakeAt !== undefined ? { nextWakeAt: iso(run.nextWakeAt) } : {}),
    ...(run.deadlineAt === undefined ? {} : { deadlineAt: iso(run.deadlineAt) }),
    ...(run.concurrencyKey === undefined ? {} : { concurrencyKey: run.concurrencyKey }),
    ...(run.status === 'QUEUED' && run.queuedAt !== undefined ? { queuedAt: iso(run.queuedAt) } : {}),
    ...(run.queuePosition === undefined ? {} : { queuePosition: run.queuePosition }),
    ...(run.status === 'QUEUED' ? waitingOf(run) : {}),
    invocations: run.invocations,
    lostInvocations: run.lostInvocations,
    ...(run.meter === undefined ? {} : { meter: { ...run.meter } }),
    ...(run.parent ? { parent: { runId: run.parent.runId, operationId: run.parent.operationId } } : {}),
    ...(run.published === undefined
      ? {}
      : {
          published: { state: parsePayload(run.published.state), at: iso(run.published.at), seq: run.published.seq },
        }),
    ...(run.tags === undefined || Object.keys(run.tags).length === 0 ? {} : { tags: { ...run.tags } }),
    ...(run.signalSeq ? { signals: run.signalSeq } : {}),
  };
}

/** The stored result and error of an operation, whatever its kind. */
function outcome(op: Operation): { result?: string; error?: ErrorObject } {
  const details = op.StepDetails ?? op.CallbackDetails ?? op.ContextDetails ?? op.ChainedInvokeDetails;
  return {
    ...(details?.Result === undefined ? {} : { result: details.Result }),
    ...(details?.Error ? { error: details.Error } : {}),
  };
}

/** An operation as the API shows it in a run's history. */
export function operationToWire(op: Operation): OperationWire {
  const { result, error } = outcome(op);
  const step = op.StepDetails;
  const callback = op.CallbackDetails;
  const invoke = op.ChainedInvokeDetails;
  const waitingForAttempt = op.Status === 'PENDING' || op.Status === 'READY';
  return {
    id: op.Id,
    ...(op.ParentId === undefined ? {} : { parentId: op.ParentId }),
    ...(op.Name === undefined ? {} : { name: op.Name }),
    type: op.Type,
    ...(op.SubType === undefined ? {} : { subType: op.SubType }),
    status: op.Status,
    startedAt: iso(op.StartTimestamp),
    ...(op.EndTimestamp === undefined ? {} : { endedAt: iso(op.EndTimestamp) }),
    ...(op.HistoryOrder === undefined ? {} : { historyOrder: op.HistoryOrder }),
    ...(step ? { attempt: step.Attempt } : {}),
    ...(waitingForAttempt && step?.NextAttemptTimestamp !== undefined
      ? { nextAttemptAt: iso(step.NextAttemptTimestamp) }
      : {}),
    ...(step?.FailedAttempts?.length
      ? {
          failedAttempts: step.FailedAttempts.map((f) => ({
            attempt: f.Attempt,
            at: iso(f.Timestamp),
            error: errorToWire(f.Error),
          })),
        }
      : {}),
    ...(result === undefined
      ? {}
      : {
          result:
            op.Type === 'CONTEXT' && BATCH_SUBTYPES.has(op.SubType ?? '')
              ? decodeBatchResult(parsePayload(result))
              : parsePayload(result),
        }),
    ...(error ? { error: errorToWire(error) } : {}),
    ...(op.WaitDetails ? { waitUntil: iso(op.WaitDetails.ScheduledEndTimestamp) } : {}),
    ...(callback ? { callbackId: callback.CallbackId } : {}),
    ...(callback?.TimeoutTimestamp === undefined ? {} : { timeoutAt: iso(callback.TimeoutTimestamp) }),
    ...(callback?.HeartbeatDeadline === undefined ? {} : { heartbeatDeadline: iso(callback.HeartbeatDeadline) }),
    ...(invoke?.FunctionName === undefined ? {} : { invokedFunction: invoke.FunctionName }),
    ...(invoke?.ChildRunId === undefined ? {} : { childRunId: invoke.ChildRunId }),
  };
}

/** What a QUEUED run waits for besides a slot (its flow marks), on the wire. */
function waitingOf(run: RunRecord): Pick<RunWire, 'queuedFor' | 'queuedUntil' | 'queuedBehind'> {
  const flow = run.flow;
  if (!flow?.waitingFor) return {};
  return {
    queuedFor: flow.waitingFor,
    ...(flow.until === undefined ? {} : { queuedUntil: iso(flow.until) }),
    ...(flow.behind === undefined ? {} : { queuedBehind: [...flow.behind] }),
  };
}
