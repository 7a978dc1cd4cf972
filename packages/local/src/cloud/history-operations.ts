/**
 * Operations rebuilt from history events, as AWS's `CloudDurableTestRunner` rebuilds them
 * (`historyEventsToOperationEvents` in its testing package 1.1.4): a cloud run is seen through its
 * history, so details come from the events (a step's `attempt` only from a failed attempt's
 * retry details, a wait's length from its start event), exactly as AWS's runner shows them.
 */
import type { AwsErrorObject, AwsHistoryEvent, AwsHistoryEventType, AwsOperation } from '@durable-lambda/engine';
import type { OperationStatus, OperationType } from '@durable-lambda/protocol';

/** An operation with the events it was rebuilt from. */
export interface OperationEvents {
  operation: AwsOperation;
  events: AwsHistoryEvent[];
}

type DetailsField =
  | 'ExecutionDetails'
  | 'CallbackDetails'
  | 'ContextDetails'
  | 'ChainedInvokeDetails'
  | 'StepDetails'
  | 'WaitDetails';

interface EventKind {
  type: OperationType;
  status: OperationStatus;
  /** Where the event's data goes on the operation. */
  details: DetailsField | undefined;
  /** Where the event carries its data. */
  place: keyof AwsHistoryEvent;
  start: boolean;
  end: boolean;
  result: boolean;
}

const kind = (
  type: OperationType,
  status: OperationStatus,
  details: DetailsField | undefined,
  place: keyof AwsHistoryEvent,
  flags: { start?: boolean; end?: boolean; result?: boolean },
): EventKind => ({
  type,
  status,
  details,
  place,
  start: flags.start ?? false,
  end: flags.end ?? false,
  result: flags.result ?? false,
});

/** AWS's `historyEventTypes`, less `InvocationCompleted` (which names no operation). */
const KINDS: Readonly<Record<Exclude<AwsHistoryEventType, 'InvocationCompleted'>, EventKind>> = {
  ExecutionStarted: kind('EXECUTION', 'STARTED', 'ExecutionDetails', 'ExecutionStartedDetails', { start: true }),
  ExecutionFailed: kind('EXECUTION', 'FAILED', undefined, 'ExecutionFailedDetails', { end: true }),
  ExecutionStopped: kind('EXECUTION', 'STOPPED', undefined, 'ExecutionStoppedDetails', { end: true }),
  ExecutionSucceeded: kind('EXECUTION', 'SUCCEEDED', undefined, 'ExecutionSucceededDetails', { end: true }),
  ExecutionTimedOut: kind('EXECUTION', 'TIMED_OUT', undefined, 'ExecutionTimedOutDetails', { end: true }),
  CallbackStarted: kind('CALLBACK', 'STARTED', 'CallbackDetails', 'CallbackStartedDetails', { start: true }),
  CallbackFailed: kind('CALLBACK', 'FAILED', 'CallbackDetails', 'CallbackFailedDetails', { end: true, result: true }),
  CallbackSucceeded: kind('CALLBACK', 'SUCCEEDED', 'CallbackDetails', 'CallbackSucceededDetails', {
    end: true,
    result: true,
  }),
  CallbackTimedOut: kind('CALLBACK', 'TIMED_OUT', 'CallbackDetails', 'CallbackTimedOutDetails', {
    end: true,
    result: true,
  }),
  ContextStarted: kind('CONTEXT', 'STARTED', undefined, 'ContextStartedDetails', { start: true }),
  ContextFailed: kind('CONTEXT', 'FAILED', 'ContextDetails', 'ContextFailedDetails', { end: true, result: true }),
  ContextSucceeded: kind('CONTEXT', 'SUCCEEDED', 'ContextDetails', 'ContextSucceededDetails', {
    end: true,
    result: true,
  }),
  ChainedInvokeStarted: kind('CHAINED_INVOKE', 'STARTED', 'ChainedInvokeDetails', 'ChainedInvokeStartedDetails', {
    start: true,
  }),
  // AWS's table puts no details place on the chained invoke's ends: their result is not kept.
  ChainedInvokeFailed: kind('CHAINED_INVOKE', 'FAILED', undefined, 'ChainedInvokeFailedDetails', {
    end: true,
    result: true,
  }),
  ChainedInvokeSucceeded: kind('CHAINED_INVOKE', 'SUCCEEDED', undefined, 'ChainedInvokeSucceededDetails', {
    end: true,
    result: true,
  }),
  ChainedInvokeTimedOut: kind('CHAINED_INVOKE', 'TIMED_OUT', undefined, 'ChainedInvokeTimedOutDetails', {
    end: true,
    result: true,
  }),
  ChainedInvokeStopped: kind('CHAINED_INVOKE', 'STOPPED', undefined, 'ChainedInvokeStoppedDetails', {
    end: true,
    result: true,
  }),
  StepStarted: kind('STEP', 'STARTED', 'StepDetails', 'StepStartedDetails', { start: true }),
  StepFailed: kind('STEP', 'FAILED', 'StepDetails', 'StepFailedDetails', { end: true, result: true }),
  StepSucceeded: kind('STEP', 'SUCCEEDED', 'StepDetails', 'StepSucceededDetails', { end: true, result: true }),
  WaitStarted: kind('WAIT', 'STARTED', 'WaitDetails', 'WaitStartedDetails', { start: true, result: true }),
  WaitSucceeded: kind('WAIT', 'SUCCEEDED', undefined, 'WaitSucceededDetails', { end: true, result: true }),
  WaitCancelled: kind('WAIT', 'CANCELLED', undefined, 'WaitCancelledDetails', { end: true, result: true }),
};

/** The kind of an event naming an operation (undefined for `InvocationCompleted`). */
export function eventKind(event: AwsHistoryEvent): EventKind | undefined {
  return event.EventType === 'InvocationCompleted' ? undefined : KINDS[event.EventType];
}

interface EventDetails {
  Input?: { Payload?: string | undefined } | undefined;
  Result?: { Payload?: string | undefined } | undefined;
  Error?: { Payload?: AwsErrorObject | undefined } | undefined;
}

function detailsOf(event: AwsHistoryEvent, place: keyof AwsHistoryEvent): EventDetails | undefined {
  return event[place] as EventDetails | undefined;
}

/** The payload an event carries (its input or its result). */
export function payloadOf(event: AwsHistoryEvent, place: keyof AwsHistoryEvent): string | undefined {
  const details = detailsOf(event, place);
  if (!details) return undefined;
  if ('Input' in details) return details.Input?.Payload;
  if ('Result' in details) return details.Result?.Payload;
  return undefined;
}

/** The error an event carries. */
export function errorOf(event: AwsHistoryEvent, place: keyof AwsHistoryEvent): AwsErrorObject | undefined {
  const details = detailsOf(event, place);
  return details && 'Error' in details ? details.Error?.Payload : undefined;
}

/** Sets the defined values of `values` on the operation's `field` (AWS's `addOperationDetails`). */
function addDetails(operation: AwsOperation, field: DetailsField | undefined, values: Record<string, unknown>): void {
  if (!field) return;
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) continue;
    const target = operation as unknown as Record<string, Record<string, unknown> | undefined>;
    target[field] = { ...target[field], [key]: value };
  }
}

/** Operations from history events, in the order they first appear, each with its events. */
export function historyToOperations(events: readonly AwsHistoryEvent[]): OperationEvents[] {
  const byId = new Map<string, OperationEvents>();
  for (const event of events) {
    const k = eventKind(event);
    if (!k || event.Id === undefined) continue;
    const previous = byId.get(event.Id);
    const operation: AwsOperation = {
      Name: event.Name,
      ParentId: event.ParentId,
      Id: event.Id,
      Type: k.type,
      SubType: event.SubType,
      StartTimestamp: event.EventTimestamp,
      ...previous?.operation,
      Status: k.status,
    };
    if (k.start) operation.StartTimestamp = event.EventTimestamp;
    if (k.end) operation.EndTimestamp = event.EventTimestamp;
    if (k.result) {
      addDetails(operation, k.details, { Result: payloadOf(event, k.place), Error: errorOf(event, k.place) });
    }
    switch (k.type) {
      case 'CALLBACK':
        addDetails(operation, k.details, { CallbackId: event.CallbackStartedDetails?.CallbackId });
        break;
      case 'STEP': {
        const retry = event.StepFailedDetails?.RetryDetails;
        const delay = retry?.NextAttemptDelaySeconds;
        addDetails(operation, k.details, {
          Attempt: retry?.CurrentAttempt,
          NextAttemptTimestamp:
            delay === undefined ? undefined : new Date(event.EventTimestamp.getTime() + delay * 1000),
        });
        break;
      }
      case 'WAIT':
        addDetails(operation, k.details, { ScheduledEndTimestamp: event.WaitStartedDetails?.ScheduledEndTimestamp });
        break;
      case 'EXECUTION':
        addDetails(operation, k.details, { InputPayload: event.ExecutionStartedDetails?.Input?.Payload });
        break;
    }
    byId.set(event.Id, { operation, events: [...(previous?.events ?? []), event] });
  }
  return [...byId.values()];
}
