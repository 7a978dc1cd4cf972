import { type ErrorObject, isTerminal, type Operation } from '@durable-lambda/protocol';
import type { OperationInfo } from '@durable-lambda/sdk';

/** An error as stored: its type, message and stable code. */
export function storedError(error: unknown, fallbackCode?: string): ErrorObject | undefined {
  if (error === undefined || error === null) return undefined;
  if (typeof error !== 'object')
    return { ErrorMessage: String(error), ...(fallbackCode ? { ErrorCode: fallbackCode } : {}) };
  const e = error as { name?: unknown; message?: unknown; code?: unknown } & Partial<ErrorObject>;
  if (e.ErrorType !== undefined || e.ErrorMessage !== undefined || e.ErrorCode !== undefined) {
    return { ErrorType: e.ErrorType, ErrorMessage: e.ErrorMessage, ErrorCode: e.ErrorCode ?? fallbackCode };
  }
  const out: ErrorObject = {};
  if (typeof e.name === 'string') out.ErrorType = e.name;
  if (typeof e.message === 'string') out.ErrorMessage = e.message;
  const code = typeof e.code === 'string' ? e.code : fallbackCode;
  if (code !== undefined) out.ErrorCode = code;
  return out;
}

const ms = (date: Date | number | undefined): number | undefined =>
  date === undefined ? undefined : typeof date === 'number' ? date : date.getTime();

/**
 * True when attempt `n` of a step had already ended before this invocation, by the step's record
 * as this invocation found it (`before`).
 */
export function attemptEndedBefore(before: OperationInfo | undefined, n: number): boolean {
  if (!before) return false;
  if (before.status !== undefined && isTerminal(before.status)) return true;
  const current = before.attempt ?? 0;
  // STARTED: the current attempt was still running (or was lost); PENDING/READY: it had failed.
  return before.status === 'STARTED' ? n < current : n <= current;
}

/**
 * The stored records of a run as an invocation ends, rebuilt from the operations' infos the SDK
 * hands `onInvocationEnd`: statuses, times, the steps' failed attempts (when each failure was
 * recorded, with its stored code, a lost attempt's `invocation_lost` included) and the details
 * of waits, callbacks and invokes. `fallbackStart` stands in for a start no info has.
 */
export function recordsAtEnd(after: Readonly<Record<string, OperationInfo>>, fallbackStart: number): Operation[] {
  const records: Operation[] = [];
  for (const info of Object.values(after)) {
    const op: Operation = {
      Id: info.id,
      Type: info.type as Operation['Type'],
      Status: (info.status ?? 'STARTED') as Operation['Status'],
      StartTimestamp: ms(info.startTimestamp) ?? fallbackStart,
    };
    if (info.name !== undefined) op.Name = info.name;
    if (info.subType !== undefined) op.SubType = info.subType;
    if (info.parentId !== undefined) op.ParentId = info.parentId;
    const end = ms(info.endTimestamp);
    if (end !== undefined) op.EndTimestamp = end;
    const error = op.Status === 'SUCCEEDED' ? undefined : storedError(info.error);
    const withError = error ? { Error: error } : {};
    if (op.Type === 'STEP') {
      op.StepDetails = { Attempt: info.attempt ?? 1, ...withError };
      const next = ms(info.nextAttemptTimestamp);
      if (next !== undefined) op.StepDetails.NextAttemptTimestamp = next;
      op.StepDetails.FailedAttempts = (info.failedAttempts ?? []).map((f) => ({
        Attempt: f.attempt,
        Timestamp: f.timestamp.getTime(),
        Error: storedError(f.error) ?? {},
      }));
    } else if (op.Type === 'WAIT' && info.scheduledEndTimestamp) {
      op.WaitDetails = { ScheduledEndTimestamp: info.scheduledEndTimestamp.getTime() };
    } else if (op.Type === 'CALLBACK' && info.callbackId !== undefined) {
      op.CallbackDetails = { CallbackId: info.callbackId, ...withError };
    } else if (op.Type === 'CHAINED_INVOKE') {
      op.ChainedInvokeDetails = {
        ...(info.invokedFunctionName === undefined ? {} : { FunctionName: info.invokedFunctionName }),
        ...(info.childRunId === undefined ? {} : { ChildRunId: info.childRunId }),
        ...withError,
      };
    } else if (error) {
      op.ContextDetails = { Error: error };
    }
    records.push(op);
  }
  return records;
}

/** The key of an attempt in the map of observed attempts. */
export function attemptKey(operationId: string, attempt: number): string {
  return `${operationId}#${attempt}`;
}
