import { isWakeEvent } from '../wake-event';

/** Where a trigger event came from (a Kinesis record comes through an EventBridge pipe only). */
export type TriggerSource = 'sqs' | 'eventbridge' | 'dynamodb-stream' | 'kinesis';

/**
 * One event of a trigger batch, ready to start its run: its source, the id the batch answer names
 * it by when its start fails (`itemIdentifier`: the SQS message id; the stream record's sequence
 * number from Lambda's event source mapping, its `eventID` from an EventBridge pipe; none for an
 * EventBridge event, delivered alone), the run key its source gives it, and the run's input (the
 * parts of the event that stay the same on every delivery).
 */
export interface TriggerRecord {
  source: TriggerSource;
  itemIdentifier?: string;
  /**
   * `sqs:<messageId>`, `events:<id>`, `dynamodb:<eventID>`, `kinesis:<eventID>`; a run's key has
   * the function after the source (`TriggerReceiver.runKeyOf`).
   */
  defaultKey: string;
  /** The run's input: what the handler is given. */
  input: TriggerInput;
  /**
   * The id an outbox gave the event (`durableEventId`, see `EMITTED_EVENT_ID`) when it has one: its
   * key is then `outbox:<id>` whatever the delivery, so an event published twice (a publish whose
   * answer was lost) starts one run; the second delivery, whose message id differs, is that run's.
   */
  emittedId?: string;
}

/**
 * The name of the id an outbox event carries (`detail.durableEventId` on EventBridge, the message
 * attribute `durableEventId` on SQS): one per emitted event, the same on every publish of it.
 */
export const EMITTED_EVENT_ID = 'durableEventId';

/** An emitted event's id: 1-512 characters, none of them control characters. */
function emittedIdOf(value: unknown): string | undefined {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  return typeof value === 'string' && value.length > 0 && value.length <= 512 && !/[\u0000-\u001f]/.test(value)
    ? value
    : undefined;
}

/** The keys of a record: its source's own, or `outbox:<id>` for an event an outbox emitted. */
function keyed(record: TriggerRecord, emitted: unknown): TriggerRecord {
  const emittedId = emittedIdOf(emitted);
  return emittedId === undefined ? record : { ...record, emittedId, defaultKey: `outbox:${emittedId}` };
}

/** A run's input from a trigger: a JSON value. */
export type TriggerInput = { [key: string]: unknown };

/** A trigger batch: its records, and whether the event source reads `batchItemFailures`. */
export interface TriggerBatch {
  source: TriggerSource;
  records: TriggerRecord[];
  /** SQS, DynamoDB Streams and pipes answer with `batchItemFailures`; EventBridge with the run. */
  batched: boolean;
  /** `pipe`: an EventBridge pipe's batch (a JSON array of its source's records); else Lambda's own. */
  via?: 'pipe';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The queue name at the end of an SQS queue ARN or URL. */
export function queueNameOf(arnOrUrl: string): string {
  const parts = arnOrUrl.split(/[:/]/);
  return parts[parts.length - 1] ?? '';
}

function sqsRecord(record: Record<string, unknown>): TriggerRecord | undefined {
  if (record.eventSource !== 'aws:sqs' || typeof record.messageId !== 'string' || typeof record.body !== 'string') {
    return undefined;
  }
  // `attributes` (receive count, first receive time) and `receiptHandle` change on each delivery:
  // left out, so a redelivered message asks for the same run with the same input.
  const attributes = isObject(record.messageAttributes) ? record.messageAttributes : {};
  const emitted = attributes[EMITTED_EVENT_ID];
  return keyed(
    {
      source: 'sqs',
      itemIdentifier: record.messageId,
      defaultKey: `sqs:${record.messageId}`,
      input: {
        messageId: record.messageId,
        body: record.body,
        ...(isObject(record.messageAttributes) ? { messageAttributes: record.messageAttributes } : {}),
        ...(typeof record.eventSourceARN === 'string' ? { eventSourceARN: record.eventSourceARN } : {}),
      },
    },
    isObject(emitted) ? emitted.stringValue : undefined,
  );
}

function streamRecord(record: Record<string, unknown>, via?: 'pipe'): TriggerRecord | undefined {
  if (record.eventSource !== 'aws:dynamodb' || typeof record.eventID !== 'string' || !isObject(record.dynamodb)) {
    return undefined;
  }
  const sequence = record.dynamodb.SequenceNumber;
  if (typeof sequence !== 'string') return undefined;
  return {
    source: 'dynamodb-stream',
    // Lambda's event source mapping names a failed record by its sequence number, a pipe by its event id.
    itemIdentifier: via === 'pipe' ? record.eventID : sequence,
    defaultKey: `dynamodb:${record.eventID}`,
    input: record,
  };
}

/** A Kinesis record as an EventBridge pipe delivers it (flat: `data` beside `eventID`, no `kinesis` wrapper). */
function kinesisRecord(record: Record<string, unknown>): TriggerRecord | undefined {
  if (
    record.eventSource !== 'aws:kinesis' ||
    typeof record.eventID !== 'string' ||
    typeof record.sequenceNumber !== 'string' ||
    typeof record.data !== 'string'
  ) {
    return undefined;
  }
  return { source: 'kinesis', itemIdentifier: record.eventID, defaultKey: `kinesis:${record.eventID}`, input: record };
}

/**
 * The batch an EventBridge pipe delivers to a Lambda target: a JSON array of its source's records
 * (SQS messages, DynamoDB Streams or Kinesis records, all from one source), answered with
 * `batchItemFailures` naming the SQS message id or the stream record's `eventID`.
 */
function pipeBatchOf(raw: unknown[], wakeQueueName?: string): TriggerBatch | undefined {
  if (raw.length === 0 || !raw.every(isObject)) return undefined;
  const records = raw as Record<string, unknown>[];
  const source = (records[0] as Record<string, unknown>).eventSource;
  if (!records.every((r) => r.eventSource === source)) return undefined;
  const parse: Record<string, [TriggerSource, (r: Record<string, unknown>) => TriggerRecord | undefined]> = {
    'aws:sqs': ['sqs', sqsRecord],
    'aws:dynamodb': ['dynamodb-stream', (r) => streamRecord(r, 'pipe')],
    'aws:kinesis': ['kinesis', kinesisRecord],
  };
  const known = typeof source === 'string' ? parse[source] : undefined;
  if (!known) return undefined;
  const parsed = records.map(known[1]);
  if (!parsed.every((r) => r !== undefined)) return undefined;
  if (known[0] === 'sqs' && isWakeUpBatch(records, wakeQueueName)) return undefined;
  return { source: known[0], batched: true, via: 'pipe', records: parsed as TriggerRecord[] };
}

/** True for SQS records of the wake-up queue, or whose bodies are all wake-ups. */
function isWakeUpBatch(records: Record<string, unknown>[], wakeQueueName?: string): boolean {
  const arn = (records[0] as Record<string, unknown>).eventSourceARN;
  if (typeof arn === 'string' && wakeQueueName !== undefined && queueNameOf(arn) === wakeQueueName) return true;
  return records.every((r) => isWakeBody(r.body));
}

/** True for an EventBridge event (a rule's or a pipe's target input as EventBridge sends it). */
export function isEventBridgeEvent(event: unknown): event is TriggerInput & { id: string } {
  return (
    isObject(event) &&
    typeof event.id === 'string' &&
    typeof event['detail-type'] === 'string' &&
    typeof event.source === 'string' &&
    'detail' in event
  );
}

/**
 * The trigger batch `event` is, or undefined (a plain start event, a wake-up, the wake-up queue's
 * own batch). An SQS batch is a trigger batch when it comes from a queue other than the wake-up
 * queue (`wakeQueueName`, by the records' `eventSourceARN`) and not every body is a wake-up. A
 * record of a batch that is not a well-formed record of its source makes the whole batch not a
 * trigger batch. An EventBridge pipe's batch is a JSON array of one source's records (SQS,
 * DynamoDB Streams, Kinesis; see `pipeBatchOf`); any other array is not a trigger batch.
 */
export function triggerBatchOf(event: unknown, wakeQueueName?: string): TriggerBatch | undefined {
  if (Array.isArray(event)) return pipeBatchOf(event, wakeQueueName);
  if (isEventBridgeEvent(event)) {
    return {
      source: 'eventbridge',
      batched: false,
      records: [
        keyed(
          { source: 'eventbridge', defaultKey: `events:${event.id}`, input: event },
          isObject(event.detail) ? event.detail[EMITTED_EVENT_ID] : undefined,
        ),
      ],
    };
  }
  const raw = isObject(event) ? event.Records : undefined;
  if (!Array.isArray(raw) || raw.length === 0 || !raw.every(isObject)) return undefined;
  const records = raw as Record<string, unknown>[];
  const first = records[0] as Record<string, unknown>;
  if (first.eventSource === 'aws:dynamodb') {
    const parsed = records.map((r) => streamRecord(r));
    return parsed.every((r) => r !== undefined)
      ? { source: 'dynamodb-stream', batched: true, records: parsed as TriggerRecord[] }
      : undefined;
  }
  if (first.eventSource !== 'aws:sqs') return undefined;
  const parsed = records.map((r) => sqsRecord(r));
  if (!parsed.every((r) => r !== undefined)) return undefined;
  if (isWakeUpBatch(records, wakeQueueName)) return undefined;
  return { source: 'sqs', batched: true, records: parsed as TriggerRecord[] };
}

function isWakeBody(body: unknown): boolean {
  if (typeof body !== 'string') return false;
  try {
    return isWakeEvent(JSON.parse(body));
  } catch {
    return false;
  }
}
