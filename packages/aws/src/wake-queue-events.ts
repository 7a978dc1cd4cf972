import { isWakeEvent, type WakeEvent, type WakeRequest, wakeEvent } from '@durable-lambda/engine';

/**
 * A wake-up event that also says when it is due and for which function: what the SQS delay waker
 * puts in its messages and what a Scheduler schedule with a final SQS hop delivers. The engine
 * reads it as a plain wake event (`isWakeEvent`); the production backend reads `at` first, so a
 * message that arrives early (SQS delays are whole seconds, at most 15 minutes; a hop's schedule
 * fires ahead of the due time on purpose) is re-armed instead of opening a run with nothing due.
 */
export interface TimedWakeEvent {
  durableLambda: {
    action: 'wake';
    runId: string;
    /** When the wake-up is due, epoch ms. */
    at: number;
    /** The function (as the run records it, qualifier included) the wake-up is for. */
    functionName: string;
  };
}

/** The timed wake-up event of `request`. */
export function timedWakeEvent(request: Pick<WakeRequest, 'runId' | 'functionName' | 'at'>): TimedWakeEvent {
  return {
    durableLambda: { action: 'wake', runId: request.runId, at: request.at, functionName: request.functionName },
  };
}

/** The due time and function of a wake-up event, when it carries them (a {@link TimedWakeEvent}). */
export function wakeTiming(event: WakeEvent): { at?: number; functionName?: string } {
  const d = event.durableLambda as { at?: unknown; functionName?: unknown };
  return {
    ...(typeof d.at === 'number' && Number.isFinite(d.at) ? { at: d.at } : {}),
    ...(typeof d.functionName === 'string' && d.functionName.length > 0 ? { functionName: d.functionName } : {}),
  };
}

/** The plain wake event of a (possibly timed) one: what the engine and a pinned version are handed. */
export function plainWakeEvent(event: WakeEvent): WakeEvent {
  return wakeEvent(event.durableLambda.runId);
}

/** One message of an SQS event, as Lambda's SQS event source delivers it (the fields read here). */
export interface SqsRecordLike {
  messageId: string;
  body: string;
  eventSource: 'aws:sqs';
}

/** The event Lambda's SQS event source invokes a function with. */
export interface SqsEventLike {
  Records: SqsRecordLike[];
}

/** The answer to an SQS event with `ReportBatchItemFailures`: the messages to deliver again. */
export interface SqsBatchResponse {
  batchItemFailures: Array<{ itemIdentifier: string }>;
}

/** True for an event of Lambda's SQS event source (every record from `aws:sqs`). */
export function isSqsEvent(event: unknown): event is SqsEventLike {
  const records = (event as { Records?: unknown } | null)?.Records;
  return (
    Array.isArray(records) &&
    records.length > 0 &&
    records.every((r: Partial<SqsRecordLike> | null) => {
      return r?.eventSource === 'aws:sqs' && typeof r.messageId === 'string' && typeof r.body === 'string';
    })
  );
}

/** The wake-up an SQS message carries; undefined for a body that is not one (never deliverable). */
export function wakeOfRecord(record: SqsRecordLike): WakeEvent | undefined {
  let body: unknown;
  try {
    body = JSON.parse(record.body);
  } catch {
    return undefined;
  }
  return isWakeEvent(body) ? body : undefined;
}

/** The batch answer naming `failed` message ids (none: the whole batch is done). */
export function batchResponse(failed: readonly string[] = []): SqsBatchResponse {
  return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
}
