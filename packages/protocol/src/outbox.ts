/**
 * Events a step emits (`context.emit` inside a step): recorded with the step's SUCCEEDED
 * checkpoint, in the same write, then published by the engine (after the checkpoint) to
 * EventBridge or SQS, or by the reconciler if the invocation died first. Each carries a stable id
 * (run, step, index): publication is at-least-once, and that id lets a consumer (or an SQS FIFO
 * queue, as its MessageDeduplicationId) drop a repeat.
 */
import { CheckpointRejectedError } from './errors';

/** An event for EventBridge's PutEvents. */
export interface EventBridgeOutboxEvent {
  /** The bus (name or ARN); the account's default bus when absent. */
  eventBusName?: string;
  source: string;
  detailType: string;
  /** The event's detail, any JSON value (serialized as JSON). */
  detail: unknown;
}

/** A message for SQS's SendMessage. */
export interface SqsOutboxEvent {
  queueUrl: string;
  body: string;
  /** A FIFO queue's MessageGroupId (its MessageDeduplicationId is the event's id). */
  groupId?: string;
}

/** An event a step emits. */
export type OutboxEvent = EventBridgeOutboxEvent | SqsOutboxEvent;

/** An event as stored and published: `detail` already JSON. */
export type StoredOutboxEvent =
  | { kind: 'eventbridge'; eventBusName?: string; source: string; detailType: string; detail: string }
  | { kind: 'sqs'; queueUrl: string; body: string; groupId?: string };

/** Events per step outcome. */
export const MAX_OUTBOX_EVENTS = 25;
/** Bytes of one event's detail or body (EventBridge and SQS both take 256 KB). */
export const MAX_OUTBOX_EVENT_BYTES = 256 * 1024;

const isString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/**
 * The event as stored, checked; throws `CheckpointRejectedError` naming the field (`at`), which
 * the sdk raises in the step's own code before anything is sent.
 */
export function storedOutboxEvent(event: unknown, at: string, operationId = 'outbox'): StoredOutboxEvent {
  const fail = (field: string, message: string): never => {
    throw new CheckpointRejectedError(`${at}.${field}: ${message}`, operationId);
  };
  if (typeof event !== 'object' || event === null) return fail('', 'must be an object');
  const e = event as Record<string, unknown>;
  if ('queueUrl' in e) {
    if (!isString(e.queueUrl)) fail('queueUrl', 'must be a non-empty string');
    if (typeof e.body !== 'string') fail('body', 'must be a string');
    if (e.groupId !== undefined && !isString(e.groupId)) fail('groupId', 'must be a non-empty string');
    if (Buffer.byteLength(e.body as string, 'utf8') > MAX_OUTBOX_EVENT_BYTES)
      fail('body', `must be at most ${MAX_OUTBOX_EVENT_BYTES} bytes`);
    return {
      kind: 'sqs',
      queueUrl: e.queueUrl as string,
      body: e.body as string,
      ...(e.groupId ? { groupId: e.groupId as string } : {}),
    };
  }
  if (!isString(e.source)) fail('source', 'must be a non-empty string (or give queueUrl for SQS)');
  if (!isString(e.detailType)) fail('detailType', 'must be a non-empty string');
  if (e.eventBusName !== undefined && !isString(e.eventBusName)) fail('eventBusName', 'must be a non-empty string');
  let detail: string | undefined;
  try {
    detail = JSON.stringify(e.detail ?? {});
  } catch {
    detail = undefined;
  }
  if (detail === undefined) return fail('detail', 'must be a JSON value');
  if (Buffer.byteLength(detail, 'utf8') > MAX_OUTBOX_EVENT_BYTES)
    fail('detail', `must be at most ${MAX_OUTBOX_EVENT_BYTES} bytes as JSON`);
  return {
    kind: 'eventbridge',
    source: e.source as string,
    detailType: e.detailType as string,
    detail,
    ...(e.eventBusName ? { eventBusName: e.eventBusName as string } : {}),
  };
}

/** Checks an event already in stored form (what a checkpoint carries); throws as {@link storedOutboxEvent}. */
export function checkStoredOutboxEvent(event: unknown, at: string, operationId = 'outbox'): StoredOutboxEvent {
  const e = (typeof event === 'object' && event !== null ? event : {}) as Record<string, unknown>;
  if (e.kind === 'eventbridge') {
    if (typeof e.detail !== 'string') throw new CheckpointRejectedError(`${at}.detail: must be JSON text`, operationId);
    const { kind: _kind, ...rest } = e;
    storedOutboxEvent({ ...rest, detail: null }, at, operationId);
    if (Buffer.byteLength(e.detail, 'utf8') > MAX_OUTBOX_EVENT_BYTES) {
      throw new CheckpointRejectedError(`${at}.detail: must be at most ${MAX_OUTBOX_EVENT_BYTES} bytes`, operationId);
    }
    return event as StoredOutboxEvent;
  }
  if (e.kind === 'sqs') {
    const { kind: _kind, ...rest } = e;
    storedOutboxEvent(rest, at, operationId);
    return event as StoredOutboxEvent;
  }
  throw new CheckpointRejectedError(`${at}.kind: must be 'eventbridge' or 'sqs'`, operationId);
}
