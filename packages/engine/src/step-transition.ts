/**
 * A STEP's transitions: its attempts started, retried (PENDING until the next attempt is due),
 * succeeded or failed, with the history of its failed attempts.
 */
import type { ErrorObject, FailedAttempt, Operation, OperationUpdate } from '@durable-lambda/protocol';
import { fresh, ONE_YEAR_MS, reject } from './update-checks';

/** A STEP update applied to the step as stored (undefined when new). */
export function applyStep(current: Operation | undefined, update: OperationUpdate, now: number): Operation {
  if (current?.Status === 'PENDING') {
    reject(
      update,
      `next attempt is not due until ${new Date(current.StepDetails?.NextAttemptTimestamp ?? 0).toISOString()}`,
    );
  }
  // An update to a step not STARTED opens a new attempt: a START, or an outcome written without
  // its START (an at-least-once step that finished before its START was due).
  const opensAttempt = current === undefined || current.Status === 'READY';
  if (!opensAttempt && update.Action === 'START')
    reject(update, `attempt ${current?.StepDetails?.Attempt} is already started`);
  const op: Operation = current ? { ...current } : fresh(update, now);
  const previous = current?.StepDetails;
  const attempt = opensAttempt ? (previous?.Attempt ?? 0) + 1 : (previous?.Attempt ?? 1);
  // The failed-attempt history, and (as AWS's service keeps it) the last retry's scheduled time;
  // undefined for a step that never failed (most: nothing is built for them, the hot path).
  const history =
    previous?.NextAttemptTimestamp === undefined && !previous?.FailedAttempts
      ? undefined
      : {
          ...(previous.NextAttemptTimestamp === undefined
            ? {}
            : { NextAttemptTimestamp: previous.NextAttemptTimestamp }),
          ...(previous.FailedAttempts ? { FailedAttempts: previous.FailedAttempts } : {}),
        };
  const failed = (error: ErrorObject, state?: string) => ({
    FailedAttempts: recordFailure(previous?.FailedAttempts, attempt, now, error, state),
  });
  switch (update.Action) {
    case 'START':
      op.Status = 'STARTED';
      op.StepDetails = history ? { Attempt: attempt, ...history } : { Attempt: attempt };
      return op;
    case 'SUCCEED': {
      op.Status = 'SUCCEEDED';
      op.EndTimestamp = now;
      const details =
        update.Payload === undefined ? { Attempt: attempt } : { Attempt: attempt, Result: update.Payload };
      op.StepDetails = history ? { ...details, ...history } : details;
      return op;
    }
    case 'FAIL':
      if (!update.Error) reject(update, 'FAIL needs an Error');
      op.Status = 'FAILED';
      op.EndTimestamp = now;
      op.StepDetails = {
        Attempt: attempt,
        Error: update.Error,
        // The last state a waitForCondition stored stays with it: a retried run resumes from it.
        ...(update.Payload !== undefined
          ? { Result: update.Payload }
          : previous?.Result === undefined
            ? {}
            : { Result: previous.Result }),
        ...(previous?.NextAttemptTimestamp === undefined
          ? {}
          : { NextAttemptTimestamp: previous.NextAttemptTimestamp }),
        ...failed(update.Error as ErrorObject),
      };
      return op;
    case 'RETRY': {
      const delay = update.StepOptions?.NextAttemptDelaySeconds;
      if (typeof delay !== 'number' || !Number.isFinite(delay) || delay < 0 || delay * 1000 > ONE_YEAR_MS) {
        reject(update, 'RETRY needs StepOptions.NextAttemptDelaySeconds between 0 and one year');
      }
      if (!update.Error) reject(update, 'RETRY needs an Error');
      op.Status = 'PENDING';
      // A RETRY may carry a payload: the state a waitForCondition polls with.
      op.StepDetails = {
        Attempt: attempt,
        NextAttemptTimestamp: now + Math.round(delay * 1000),
        Error: update.Error,
        ...(update.Payload === undefined ? {} : { Result: update.Payload }),
        ...failed(update.Error as ErrorObject, update.Payload),
      };
      return op;
    }
    default:
      return reject(update, `${update.Action} is not valid for a STEP`);
  }
}

const MAX_FAILED_ATTEMPTS = 100;

/** A check's state kept in its attempt's history entry when at most this long (characters). */
const MAX_ATTEMPT_STATE = 1024;

/**
 * The step's failed-attempt history with one more entry, trimmed to the last 100. A RETRY's
 * payload (a waitForCondition check's state) is kept with it when small, so the history shows
 * each check's state (AWS's conformance 6-1), not only the latest.
 */
function recordFailure(
  past: FailedAttempt[] | undefined,
  attempt: number,
  now: number,
  error: ErrorObject,
  state?: string,
): FailedAttempt[] {
  const entry: FailedAttempt = {
    Attempt: attempt,
    Timestamp: now,
    Error: {
      ...(error.ErrorType === undefined ? {} : { ErrorType: error.ErrorType }),
      ...(error.ErrorMessage === undefined ? {} : { ErrorMessage: error.ErrorMessage.slice(0, 1024) }),
      ...(error.ErrorCode === undefined ? {} : { ErrorCode: error.ErrorCode }),
    },
  };
  if (state !== undefined && state.length <= MAX_ATTEMPT_STATE) entry.State = state;
  return [...(past ?? []), entry].slice(-MAX_FAILED_ATTEMPTS);
}
