import { type ErrorObject, type FailedAttempt, isTerminal, type Operation } from '@durable-lambda/protocol';
import type { OperationInfo } from '@durable-lambda/sdk';

/** The code a lost attempt is stored with (the SDK's `ErrorCode.INVOCATION_LOST`). */
export const INVOCATION_LOST = 'invocation_lost';

/** An attempt's end this invocation saw through the attempt hooks. */
export interface ObservedAttempt {
  outcome: 'SUCCEEDED' | 'FAILED';
  /** On the plugin's clock. */
  start?: number;
  end: number;
  error?: Pick<ErrorObject, 'ErrorType' | 'ErrorMessage' | 'ErrorCode'>;
}

/**
 * A stored failed attempt, as an operation's info may carry it. The SDK's `OperationInfo` does not
 * (yet): when it does, these stored records are used instead of what the hooks saw.
 */
interface InfoFailedAttempt {
  attempt: number;
  timestamp: Date | number;
  error?: Error | Pick<ErrorObject, 'ErrorType' | 'ErrorMessage' | 'ErrorCode'>;
}
type InfoWithHistory = OperationInfo & {
  failedAttempts?: readonly InfoFailedAttempt[];
  nextAttemptTimestamp?: Date;
};

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
 * The stored records of a run as an invocation ends, rebuilt from what the plugin hooks carry:
 * each operation's info, plus, for steps, the failed attempts. Those come from the info when it
 * carries them; else from the attempts this invocation saw fail, and an attempt that the
 * invocation found STARTED by a lost invocation and that has since been settled (recorded as
 * failed with `invocation_lost`, as the SDK does).
 */
export function recordsAtEnd(
  before: Readonly<Record<string, OperationInfo>>,
  after: Readonly<Record<string, OperationInfo>>,
  observed: ReadonlyMap<string, ObservedAttempt>,
  invocationStart: number,
): Operation[] {
  const records: Operation[] = [];
  for (const info of Object.values(after) as InfoWithHistory[]) {
    const op: Operation = {
      Id: info.id,
      Type: info.type as Operation['Type'],
      Status: (info.status ?? 'STARTED') as Operation['Status'],
      StartTimestamp: ms(info.startTimestamp) ?? invocationStart,
    };
    if (info.name !== undefined) op.Name = info.name;
    if (info.subType !== undefined) op.SubType = info.subType;
    if (info.parentId !== undefined) op.ParentId = info.parentId;
    const end = ms(info.endTimestamp);
    if (end !== undefined) op.EndTimestamp = end;
    const error = op.Status === 'SUCCEEDED' ? undefined : storedError(info.error);
    if (op.Type !== 'STEP') {
      if (error) op.ContextDetails = { Error: error };
      records.push(op);
      continue;
    }
    const attempt = info.attempt ?? 1;
    op.StepDetails = { Attempt: attempt, ...(error ? { Error: error } : {}) };
    const next = ms(info.nextAttemptTimestamp);
    if (next !== undefined) op.StepDetails.NextAttemptTimestamp = next;
    op.StepDetails.FailedAttempts = info.failedAttempts
      ? info.failedAttempts.map((f) => ({
          Attempt: f.attempt,
          Timestamp: ms(f.timestamp) ?? invocationStart,
          Error: storedError(f.error) ?? {},
        }))
      : observedFailures(info, before[info.id], observed, invocationStart, error);
    records.push(op);
  }
  return records;
}

function observedFailures(
  info: OperationInfo,
  before: OperationInfo | undefined,
  observed: ReadonlyMap<string, ObservedAttempt>,
  invocationStart: number,
  finalError: ErrorObject | undefined,
): FailedAttempt[] {
  const failures: FailedAttempt[] = [];
  const current = info.attempt ?? 1;
  for (let n = 1; n <= current; n++) {
    const seen = observed.get(attemptKey(info.id, n));
    if (seen?.outcome === 'FAILED') {
      // The last attempt of a failed step: its stored error (with its stored code) wins.
      const last = n === current && info.status !== 'STARTED' ? finalError : undefined;
      failures.push({ Attempt: n, Timestamp: seen.end, Error: last ?? seen.error ?? {} });
      continue;
    }
    const lost =
      !seen &&
      before?.type === 'STEP' &&
      before.status === 'STARTED' &&
      (before.attempt ?? 1) === n &&
      (current > n || info.status !== 'STARTED');
    if (lost) {
      const stored = n === current ? finalError : undefined;
      failures.push({
        Attempt: n,
        // Recorded when this invocation replayed the step and found it abandoned.
        Timestamp: invocationStart,
        Error:
          stored?.ErrorCode === INVOCATION_LOST
            ? stored
            : { ErrorType: 'StepInterruptedError', ErrorCode: INVOCATION_LOST },
      });
    }
  }
  return failures;
}

/** The key of an attempt in the map of observed attempts. */
export function attemptKey(operationId: string, attempt: number): string {
  return `${operationId}#${attempt}`;
}
