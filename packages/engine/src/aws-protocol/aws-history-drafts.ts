/**
 * The history events one stored operation stands for, before they are ordered and numbered.
 * Each is built as AWS's checkpoint server builds it (`@aws/durable-execution-sdk-js-testing`
 * 1.1.4, its `EventProcessor`), from what our operation keeps; where we keep less than AWS
 * records, the comment says so and the closest value we know is used.
 */

import {
  type ErrorObject,
  executionArn,
  type FailedAttempt,
  isTerminal,
  type Operation,
} from '@durable-lambda/protocol';
import type { AwsEventError, AwsEventResult, AwsHistoryEvent, AwsRetryDetails } from './aws-history-shapes';
import { toAwsError } from './aws-mapping';

/**
 * Where an event happens: `inside` an invocation (written by the handler), or `outside` (a wait's
 * timer, a callback completed from outside, a child run that ended): after the handler's events,
 * and, but for a callback answered at the same instant, after the `InvocationCompleted` of the
 * invocation that started the operation.
 */
export type DraftPhase = 'inside' | 'outside';

/** An event without its number, with what ordering it needs. */
export interface Draft {
  event: Omit<AwsHistoryEvent, 'EventId'>;
  /** Epoch ms. */
  at: number;
  phase: DraftPhase;
  /** For a retried step's attempt: when the attempt before it failed (a new invocation may lie between). */
  retryOf?: number;
}

/**
 * The same code `aws-mapping.ts` and our SDK store on the RETRY of a waitForCondition whose
 * condition is not met yet: AWS's SDK sends that RETRY with no error, and AWS's server records it
 * as a `StepSucceeded` carrying the state checked.
 */
const CONTINUE_CODE = 'wait_for_condition_continue';

/** Builds the events of operations, payloads left out when `withData` is false. */
export class DraftBuilder {
  constructor(
    private readonly withData: boolean,
    private readonly run: { result?: string; error?: ErrorObject } | undefined,
    /** Counts `CurrentAttempt` as Lambda's service does (see `AwsHistoryOptions.attemptCounting`). */
    private readonly serviceCount = false,
  ) {}

  /** The events of one operation, oldest first. */
  drafts(op: Operation): Draft[] {
    switch (op.Type) {
      case 'EXECUTION':
        return this.execution(op);
      case 'STEP':
        return this.step(op);
      case 'WAIT':
        return this.wait(op);
      case 'CALLBACK':
        return this.callback(op);
      case 'CHAINED_INVOKE':
        return this.invoke(op);
      case 'CONTEXT':
        return this.context(op);
      default:
        return [];
    }
  }

  private base(op: Operation, type: AwsHistoryEvent['EventType'], at: number): Omit<AwsHistoryEvent, 'EventId'> {
    return {
      EventType: type,
      ...(op.SubType === undefined ? {} : { SubType: op.SubType }),
      Id: op.Id,
      ...(op.Name === undefined ? {} : { Name: op.Name }),
      EventTimestamp: new Date(at),
      ...(op.ParentId === undefined ? {} : { ParentId: op.ParentId }),
    };
  }

  private result(payload: string | undefined): AwsEventResult {
    return this.withData && payload !== undefined ? { Payload: payload } : {};
  }

  private error(error: ErrorObject | Pick<ErrorObject, 'ErrorType' | 'ErrorMessage'> | undefined): AwsEventError {
    const payload = toAwsError(error);
    return this.withData && payload !== undefined ? { Payload: payload } : {};
  }

  private execution(op: Operation): Draft[] {
    const input = op.ExecutionDetails?.InputPayload;
    const started: Draft = {
      event: {
        ...this.base(op, 'ExecutionStarted', op.StartTimestamp),
        ExecutionStartedDetails: {
          Input: this.withData && input !== undefined ? { Payload: input } : {},
          // AWS records the execution's timeout here; our runs have none (nor do AWS's local ones).
          ExecutionTimeout: undefined,
        },
      },
      at: op.StartTimestamp,
      phase: 'inside',
    };
    const at = op.EndTimestamp ?? op.StartTimestamp;
    const error = { Error: this.error(this.run?.error) };
    const base = (type: AwsHistoryEvent['EventType']) => this.base(op, type, at);
    let end: Omit<AwsHistoryEvent, 'EventId'> | undefined;
    if (op.Status === 'SUCCEEDED') {
      end = { ...base('ExecutionSucceeded'), ExecutionSucceededDetails: { Result: this.result(this.run?.result) } };
    } else if (op.Status === 'FAILED') end = { ...base('ExecutionFailed'), ExecutionFailedDetails: error };
    else if (op.Status === 'TIMED_OUT') end = { ...base('ExecutionTimedOut'), ExecutionTimedOutDetails: error };
    else if (op.Status === 'STOPPED' || op.Status === 'CANCELLED') {
      end = { ...base('ExecutionStopped'), ExecutionStoppedDetails: error };
    }
    return end ? [started, { event: end, at, phase: 'inside' }] : [started];
  }

  /**
   * One `StepStarted` and one outcome per attempt, from the step's failed-attempt history. We
   * keep when each attempt failed but not when a retried attempt started: its `StepStarted` is
   * given its own outcome's time (exact on a virtual clock, where an attempt takes no time; at most
   * the attempt's duration late otherwise), or the last failure's time for the attempt running
   * now. History beyond the last 100 failures is not kept, so neither are their events.
   */
  private step(op: Operation): Draft[] {
    const details = op.StepDetails;
    const attempt = details?.Attempt ?? 1;
    const failures = failedAttempts(op);
    const out: Draft[] = [];
    const started = (at: number, retryOf: number | undefined) => {
      out.push({
        event: { ...this.base(op, 'StepStarted', at), StepStartedDetails: {} },
        at,
        phase: 'inside',
        ...(retryOf === undefined ? {} : { retryOf }),
      });
    };
    let previous: number | undefined;
    for (const [index, failure] of failures.entries()) {
      const isLast = index === failures.length - 1;
      started(index === 0 && failure.Attempt === 1 ? op.StartTimestamp : failure.Timestamp, previous);
      out.push(this.failedAttempt(op, failure, isLast));
      previous = failure.Timestamp;
    }
    const lastFailed = failures.at(-1)?.Attempt ?? 0;
    if (op.Status === 'SUCCEEDED' || (op.Status === 'STARTED' && attempt > lastFailed)) {
      const at = op.Status === 'SUCCEEDED' ? (op.EndTimestamp ?? op.StartTimestamp) : (previous ?? op.StartTimestamp);
      started(previous === undefined ? op.StartTimestamp : at, previous);
    }
    if (op.Status === 'SUCCEEDED') {
      const at = op.EndTimestamp ?? op.StartTimestamp;
      out.push({
        event: {
          ...this.base(op, 'StepSucceeded', at),
          StepSucceededDetails: {
            Result: this.result(details?.Result),
            RetryDetails: retry(attempt, false, this.serviceCount),
          },
        },
        at,
        phase: 'inside',
      });
    }
    return out;
  }

  /**
   * A failed attempt as AWS records it: `StepFailed`, or `StepSucceeded` for a waitForCondition
   * whose condition was not met (AWS's SDK sends that RETRY without an error). Only the latest
   * attempt keeps its full error, its checked state and its delay: earlier ones keep the error's
   * type and message, and their state when it was small enough to keep, not their delay
   * (`NextAttemptDelaySeconds` is left out where we do not know it).
   */
  private failedAttempt(op: Operation, failure: FailedAttempt, isLast: boolean): Draft {
    const details = op.StepDetails;
    const latest = isLast && details?.Attempt === failure.Attempt;
    const final = latest && op.Status === 'FAILED';
    const next = latest && !final ? details?.NextAttemptTimestamp : undefined;
    const delay = next === undefined ? undefined : Math.max(0, next - failure.Timestamp) / 1000;
    const retryDetails: AwsRetryDetails = {
      ...retry(failure.Attempt, failure.Error.ErrorCode !== CONTINUE_CODE, this.serviceCount),
      ...(delay === undefined ? {} : { NextAttemptDelaySeconds: delay }),
    };
    const at = final ? (op.EndTimestamp ?? failure.Timestamp) : failure.Timestamp;
    if (failure.Error.ErrorCode === CONTINUE_CODE) {
      // Each check's state: the latest is the step's own; earlier ones kept with their attempt.
      const state = latest ? details?.Result : failure.State;
      return {
        event: {
          ...this.base(op, 'StepSucceeded', at),
          StepSucceededDetails: { Result: this.result(state), RetryDetails: retryDetails },
        },
        at,
        phase: 'inside',
      };
    }
    const error = latest && details?.Error ? details.Error : failure.Error;
    return {
      event: {
        ...this.base(op, 'StepFailed', at),
        StepFailedDetails: { Error: this.error(error), RetryDetails: retryDetails },
      },
      at,
      phase: 'inside',
    };
  }

  private wait(op: Operation): Draft[] {
    const scheduled = op.WaitDetails?.ScheduledEndTimestamp ?? op.StartTimestamp;
    const duration = Math.max(0, scheduled - op.StartTimestamp) / 1000;
    const out: Draft[] = [
      {
        event: {
          ...this.base(op, 'WaitStarted', op.StartTimestamp),
          WaitStartedDetails: { Duration: duration, ScheduledEndTimestamp: new Date(scheduled) },
        },
        at: op.StartTimestamp,
        phase: 'inside',
      },
    ];
    const at = op.EndTimestamp ?? scheduled;
    if (op.Status === 'SUCCEEDED') {
      out.push({
        event: { ...this.base(op, 'WaitSucceeded', at), WaitSucceededDetails: { Duration: duration } },
        at,
        phase: 'outside',
      });
    } else if (op.Status === 'CANCELLED') {
      // The handler cancels a wait (AWS records no error with it either).
      out.push({ event: { ...this.base(op, 'WaitCancelled', at), WaitCancelledDetails: {} }, at, phase: 'inside' });
    }
    return out;
  }

  private callback(op: Operation): Draft[] {
    const details = op.CallbackDetails;
    const timeout = details?.TimeoutTimestamp;
    const out: Draft[] = [
      {
        event: {
          ...this.base(op, 'CallbackStarted', op.StartTimestamp),
          CallbackStartedDetails: {
            CallbackId: details?.CallbackId,
            ...(timeout === undefined ? {} : { Timeout: (timeout - op.StartTimestamp) / 1000 }),
            ...(details?.HeartbeatTimeoutSeconds === undefined
              ? {}
              : { HeartbeatTimeout: details.HeartbeatTimeoutSeconds }),
          },
        },
        at: op.StartTimestamp,
        phase: 'inside',
      },
    ];
    const at = op.EndTimestamp ?? op.StartTimestamp;
    const base = (type: AwsHistoryEvent['EventType']) => this.base(op, type, at);
    const error = { Error: this.error(details?.Error) };
    if (op.Status === 'SUCCEEDED') {
      out.push({
        event: { ...base('CallbackSucceeded'), CallbackSucceededDetails: { Result: this.result(details?.Result) } },
        at,
        phase: 'outside',
      });
    } else if (op.Status === 'FAILED') {
      out.push({ event: { ...base('CallbackFailed'), CallbackFailedDetails: error }, at, phase: 'outside' });
    } else if (op.Status === 'TIMED_OUT') {
      out.push({ event: { ...base('CallbackTimedOut'), CallbackTimedOutDetails: error }, at, phase: 'outside' });
    }
    return out;
  }

  private invoke(op: Operation): Draft[] {
    const details = op.ChainedInvokeDetails;
    const out: Draft[] = [
      {
        event: {
          ...this.base(op, 'ChainedInvokeStarted', op.StartTimestamp),
          ChainedInvokeStartedDetails: {
            FunctionName: details?.FunctionName,
            ...(details?.TenantId === undefined ? {} : { TenantId: details.TenantId }),
            // Lambda lists the input also when the invoke had no payload.
            Input: this.withData && details?.Input !== undefined ? { Payload: details.Input } : {},
            ...(details?.ExecutedVersion === undefined ? {} : { ExecutedVersion: details.ExecutedVersion }),
            // Our child run stands for Lambda's child execution: its ARN is the one our AWS
            // transport gives that run.
            ...(details?.ChildRunId === undefined
              ? {}
              : { DurableExecutionArn: executionArn(details.FunctionName ?? 'function', details.ChildRunId) }),
          },
        },
        at: op.StartTimestamp,
        phase: 'inside',
      },
    ];
    if (!isTerminal(op.Status)) return out;
    const at = op.EndTimestamp ?? op.StartTimestamp;
    const base = (type: AwsHistoryEvent['EventType']) => this.base(op, type, at);
    const error = { Error: this.error(details?.Error) };
    let end: Omit<AwsHistoryEvent, 'EventId'> | undefined;
    if (op.Status === 'SUCCEEDED') {
      end = {
        ...base('ChainedInvokeSucceeded'),
        ChainedInvokeSucceededDetails: { Result: this.result(details?.Result) },
      };
    } else if (op.Status === 'FAILED') end = { ...base('ChainedInvokeFailed'), ChainedInvokeFailedDetails: error };
    else if (op.Status === 'TIMED_OUT') end = { ...base('ChainedInvokeTimedOut'), ChainedInvokeTimedOutDetails: error };
    else end = { ...base('ChainedInvokeStopped'), ChainedInvokeStoppedDetails: error };
    out.push({ event: end, at, phase: 'outside' });
    return out;
  }

  /**
   * `ContextStarted`, then its outcome. A context written straight away with its outcome (no
   * START) gets a `ContextStarted` too: we do not keep whether the START came, and AWS's SDK
   * always sends one.
   */
  private context(op: Operation): Draft[] {
    const out: Draft[] = [
      {
        event: { ...this.base(op, 'ContextStarted', op.StartTimestamp), ContextStartedDetails: {} },
        at: op.StartTimestamp,
        phase: 'inside',
      },
    ];
    const at = op.EndTimestamp ?? op.StartTimestamp;
    const details = op.ContextDetails;
    if (op.Status === 'SUCCEEDED') {
      out.push({
        event: {
          ...this.base(op, 'ContextSucceeded', at),
          ContextSucceededDetails: { Result: this.result(details?.Result) },
        },
        at,
        phase: 'inside',
      });
    } else if (op.Status === 'FAILED') {
      out.push({
        event: { ...this.base(op, 'ContextFailed', at), ContextFailedDetails: { Error: this.error(details?.Error) } },
        at,
        phase: 'inside',
      });
    }
    return out;
  }
}

/**
 * A step's failed attempts, oldest first. A step stored before we kept that history has only its
 * latest error: it stands for its latest attempt.
 */
export function failedAttempts(op: Operation): FailedAttempt[] {
  const details = op.StepDetails;
  const kept = [...(details?.FailedAttempts ?? [])].sort((a, b) => a.Attempt - b.Attempt);
  const failing = op.Status === 'FAILED' || op.Status === 'PENDING' || op.Status === 'READY';
  if (kept.length > 0 || !failing || !details?.Error) return kept;
  return [{ Attempt: details.Attempt, Timestamp: op.EndTimestamp ?? op.StartTimestamp, Error: details.Error }];
}

/**
 * `RetryDetails.CurrentAttempt`. As AWS's checkpoint server writes it: the step's stored attempt
 * count before the update, that is the attempts finished before this one (none on a first
 * success, so left out), and at least 1 on a failure (its `Attempt ?? 1`). As Lambda's service
 * does (`service`): the attempt this event ends (a first success still leaves it out).
 */
function retry(attempt: number, failed: boolean, service: boolean): AwsRetryDetails {
  if (service) return failed || attempt > 1 ? { CurrentAttempt: attempt } : {};
  const before = attempt - 1;
  if (failed) return { CurrentAttempt: Math.max(1, before) };
  return before > 0 ? { CurrentAttempt: before } : {};
}
