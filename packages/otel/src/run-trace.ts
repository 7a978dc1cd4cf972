import {
  type ErrorObject,
  incarnationId,
  isTerminal,
  type Operation,
  type OperationStatus,
} from '@durable-lambda/protocol';
import { attemptSpanId, operationSpanId, runSpanId, runTraceId, toXrayTraceId } from './ids';
import {
  DurableAttributes as A,
  type DurableSpan,
  type DurableSpanAttributeValue,
  type DurableSpanStatus,
  type TraceRun,
} from './trace-spans';

type Attributes = Record<string, DurableSpanAttributeValue>;
type StoredError = Pick<ErrorObject, 'ErrorType' | 'ErrorMessage' | 'ErrorCode'>;

const TYPE_LABELS: Record<string, string> = {
  STEP: 'step',
  WAIT: 'wait',
  CALLBACK: 'callback',
  CHAINED_INVOKE: 'invoke',
  CONTEXT: 'context',
};

function statusOf(status: string | undefined): DurableSpanStatus {
  if (status === 'SUCCEEDED') return 'OK';
  if (status === 'FAILED' || status === 'TIMED_OUT') return 'ERROR';
  return 'UNSET';
}

function errorAttributes(attributes: Attributes, error: StoredError | undefined): void {
  if (!error) return;
  if (error.ErrorCode !== undefined) attributes[A.ERROR_CODE] = error.ErrorCode;
  if (error.ErrorType !== undefined) attributes[A.ERROR_TYPE] = error.ErrorType;
  if (error.ErrorMessage !== undefined) attributes[A.ERROR_MESSAGE] = error.ErrorMessage;
  // OpenTelemetry's own convention, which backends group failures by.
  const type = error.ErrorCode ?? error.ErrorType;
  if (type !== undefined) attributes['error.type'] = type;
}

function errorOf(op: Operation): ErrorObject | undefined {
  return (
    op.StepDetails?.Error ?? op.CallbackDetails?.Error ?? op.ChainedInvokeDetails?.Error ?? op.ContextDetails?.Error
  );
}

/** One attempt of a step, from its stored record. */
interface StoredAttempt {
  attempt: number;
  start: number;
  end: number;
  ended: boolean;
  outcome: 'SUCCEEDED' | 'FAILED' | 'STARTED';
  startEstimated: boolean;
  error?: StoredError;
}

/**
 * The attempts of a step, from its stored record: the failed ones from `FailedAttempts` (when each
 * failure was recorded, and its error), the current one from the step's own status. A start is
 * stored only for the first attempt (the step's start) and the current one (the retry's scheduled
 * time); any other starts where the attempt before it failed.
 */
export function storedAttempts(op: Operation, latest: number): StoredAttempt[] {
  const details = op.StepDetails;
  if (op.Type !== 'STEP') return [];
  const current = details?.Attempt ?? (op.Status === 'STARTED' ? 1 : 0);
  const failures = new Map((details?.FailedAttempts ?? []).map((f) => [f.Attempt, f]));
  const out: StoredAttempt[] = [];
  let previousEnd = op.StartTimestamp;
  for (let n = 1; n <= current; n++) {
    const failure = failures.get(n);
    const isCurrent = n === current;
    let start = previousEnd;
    let startEstimated = n > 1;
    if (n === 1) start = op.StartTimestamp;
    else if (isCurrent && details?.NextAttemptTimestamp !== undefined && op.Status !== 'PENDING') {
      start = Math.max(previousEnd, details.NextAttemptTimestamp);
      startEstimated = false;
    }
    let attempt: StoredAttempt;
    if (failure) {
      attempt = { attempt: n, start, end: failure.Timestamp, ended: true, outcome: 'FAILED', startEstimated };
      attempt.error = failure.Error;
    } else if (isCurrent && op.Status === 'SUCCEEDED') {
      attempt = {
        attempt: n,
        start,
        end: op.EndTimestamp ?? latest,
        ended: true,
        outcome: 'SUCCEEDED',
        startEstimated,
      };
    } else if (isCurrent && (op.Status === 'STARTED' || op.Status === 'READY')) {
      attempt = { attempt: n, start, end: latest, ended: false, outcome: 'STARTED', startEstimated };
    } else {
      // Failed without a kept record of it (histories keep the last 100 failures): the step's error.
      const end = isCurrent ? (op.EndTimestamp ?? start) : start;
      attempt = { attempt: n, start, end, ended: true, outcome: 'FAILED', startEstimated };
      const error = isCurrent ? details?.Error : undefined;
      if (error) attempt.error = error;
    }
    // Within the step's own stored span (a running attempt ends, for now, at the latest time known).
    attempt.start = Math.max(op.StartTimestamp, Math.min(attempt.start, op.EndTimestamp ?? attempt.start));
    attempt.end = Math.max(attempt.start, Math.min(attempt.end, op.EndTimestamp ?? attempt.end));
    out.push(attempt);
    previousEnd = attempt.end;
  }
  return out;
}

/** The latest time any record of the run names: where spans still open end for now. */
function latestTime(run: TraceRun, operations: readonly Operation[]): number {
  let latest = run.endedAt ?? run.createdAt ?? 0;
  for (const op of operations) {
    latest = Math.max(latest, op.StartTimestamp, op.EndTimestamp ?? 0);
    for (const f of op.StepDetails?.FailedAttempts ?? []) latest = Math.max(latest, f.Timestamp);
  }
  return latest;
}

function operationAttributes(run: TraceRun, op: Operation, attempts: number): Attributes {
  const attributes: Attributes = {
    [A.RUN_ID]: run.runId,
    [A.OPERATION_ID]: op.Id,
    [A.OPERATION_TYPE]: op.Type,
    [A.OPERATION_STATUS]: op.Status,
  };
  if (run.functionName !== undefined) attributes[A.FUNCTION_NAME] = run.functionName;
  if (op.Name !== undefined) attributes[A.OPERATION_NAME] = op.Name;
  if (op.SubType !== undefined) attributes[A.OPERATION_SUBTYPE] = op.SubType;
  if (op.ParentId !== undefined) attributes[A.OPERATION_PARENT_ID] = op.ParentId;
  if (op.Type === 'STEP') attributes[A.OPERATION_ATTEMPTS] = attempts;
  if (op.WaitDetails) attributes[A.WAIT_SCHEDULED_END] = new Date(op.WaitDetails.ScheduledEndTimestamp).toISOString();
  if (op.CallbackDetails?.CallbackId) attributes[A.CALLBACK_ID] = op.CallbackDetails.CallbackId;
  if (op.ChainedInvokeDetails?.FunctionName) attributes[A.INVOKE_FUNCTION] = op.ChainedInvokeDetails.FunctionName;
  if (op.ChainedInvokeDetails?.ChildRunId) attributes[A.INVOKE_CHILD_RUN_ID] = op.ChainedInvokeDetails.ChildRunId;
  if (op.Status !== 'SUCCEEDED') errorAttributes(attributes, errorOf(op));
  return attributes;
}

/**
 * The whole trace of a run, from its stored records alone (e.g. read back from the control API,
 * `GET /v1/runs/{id}` and its operations): a root span for the run, a span per operation under the
 * run or under its parent context, and a span per attempt under each step. Ids are deterministic
 * (see {@link runTraceId}), so these are the very spans the tracing plugin emits live, and a run
 * still going yields its spans so far (`ended: false` where something has not ended).
 * @param run the run: its id, and its status and times when known.
 * @param operations the run's stored operations, in any order.
 */
export function runTrace(run: TraceRun, operations: readonly Operation[]): DurableSpan[] {
  const execution = operations.find((op) => op.Type === 'EXECUTION');
  const start = run.createdAt ?? execution?.StartTimestamp ?? Math.min(...operations.map((op) => op.StartTimestamp));
  // Ids name one creation of the run (AWS: one execution ARN), as the plugin's do.
  const idOf = incarnationId(run.runId, run.incarnation);
  const traceId = runTraceId(idOf, Number.isFinite(start) ? start : 0);
  const latest = Math.max(start, latestTime(run, operations));
  const rootId = runSpanId(idOf);
  const ids = new Set(operations.filter((op) => op.Type !== 'EXECUTION').map((op) => op.Id));
  const runStatus = run.status ?? execution?.Status ?? 'RUNNING';
  const runEnded = isTerminal(runStatus as OperationStatus);

  const root: DurableSpan = {
    kind: 'run',
    name: run.functionName ? `run ${run.functionName}` : 'run',
    traceId,
    spanId: rootId,
    startTime: start,
    endTime: Math.max(start, run.endedAt ?? execution?.EndTimestamp ?? latest),
    ended: runEnded,
    status: statusOf(runStatus),
    attributes: { [A.RUN_ID]: run.runId, [A.RUN_STATUS]: runStatus, [A.XRAY_TRACE_ID]: toXrayTraceId(traceId) },
  };
  if (run.functionName !== undefined) root.attributes[A.FUNCTION_NAME] = run.functionName;
  const runError = run.error ?? (runStatus === 'SUCCEEDED' ? undefined : execution && errorOf(execution));
  if (runError && runStatus !== 'SUCCEEDED') {
    errorAttributes(root.attributes, runError);
    if (runError.ErrorMessage !== undefined) root.statusMessage = runError.ErrorMessage;
  }
  const spans: DurableSpan[] = [root];

  for (const op of operations) {
    if (op.Type === 'EXECUTION') continue;
    const attempts = storedAttempts(op, latest);
    const ended = isTerminal(op.Status);
    const opSpanId = operationSpanId(idOf, op.Id);
    const label = TYPE_LABELS[op.Type] ?? op.Type.toLowerCase();
    const span: DurableSpan = {
      kind: 'operation',
      name: `${label} ${op.Name ?? op.Id}`,
      traceId,
      spanId: opSpanId,
      parentSpanId: op.ParentId !== undefined && ids.has(op.ParentId) ? operationSpanId(idOf, op.ParentId) : rootId,
      startTime: op.StartTimestamp,
      endTime: Math.max(op.StartTimestamp, ended ? (op.EndTimestamp ?? latest) : latest),
      ended,
      status: statusOf(op.Status),
      attributes: operationAttributes(run, op, attempts.length),
      operationId: op.Id,
    };
    const error = errorOf(op);
    if (span.status === 'ERROR' && error?.ErrorMessage !== undefined) span.statusMessage = error.ErrorMessage;
    spans.push(span);
    for (const attempt of attempts) {
      const attributes: Attributes = {
        [A.RUN_ID]: run.runId,
        [A.OPERATION_ID]: op.Id,
        [A.OPERATION_TYPE]: op.Type,
        [A.ATTEMPT]: attempt.attempt,
        [A.ATTEMPT_OUTCOME]: attempt.outcome,
      };
      if (op.Name !== undefined) attributes[A.OPERATION_NAME] = op.Name;
      if (run.functionName !== undefined) attributes[A.FUNCTION_NAME] = run.functionName;
      if (attempt.startEstimated) attributes[A.ATTEMPT_START_ESTIMATED] = true;
      errorAttributes(attributes, attempt.error);
      const attemptSpan: DurableSpan = {
        kind: 'attempt',
        name: `attempt ${attempt.attempt}`,
        traceId,
        spanId: attemptSpanId(idOf, op.Id, attempt.attempt),
        parentSpanId: opSpanId,
        startTime: attempt.start,
        endTime: attempt.end,
        ended: attempt.ended,
        status: attempt.outcome === 'FAILED' ? 'ERROR' : attempt.outcome === 'SUCCEEDED' ? 'OK' : 'UNSET',
        attributes,
        operationId: op.Id,
        attempt: attempt.attempt,
      };
      if (attempt.outcome === 'FAILED' && attempt.error?.ErrorMessage !== undefined) {
        attemptSpan.statusMessage = attempt.error.ErrorMessage;
      }
      spans.push(attemptSpan);
    }
  }
  return spans;
}
