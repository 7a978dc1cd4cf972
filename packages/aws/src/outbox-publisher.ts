/**
 * The outbox's AWS publisher: events steps emit (`context.emit`) go to EventBridge (`PutEvents`,
 * up to 10 entries a request) or SQS (`SendMessage`), both in their JSON protocols over the
 * project's signed fetch (no AWS SDK client loads). Publication is at-least-once: PutEvents has
 * no idempotency, so an entry whose answer was lost is sent again with the same id. The id rides
 * with each event: an EventBridge event whose detail is a JSON object gets it as
 * `detail.durableEventId`; an SQS message as the message attribute `durableEventId`, and a FIFO
 * queue's `MessageDeduplicationId` is that id (a repeat within SQS's five minutes is dropped).
 * Requests are signed by `sigv4.ts` (`node:crypto` alone), with the environment's credentials by
 * default (Lambda's role): publishing loads no AWS SDK code, in the function or its reconciler.
 */
import { createHash } from 'node:crypto';
import type { OutboxEntry, OutboxPublisher } from '@durable-lambda/engine';
import { type AwsCredentials, type AwsCredentialsProvider, environmentCredentials } from './aws-credentials';
import { signRequest } from './sigv4';

/** Options of an {@link AwsOutboxPublisher}. */
export interface AwsOutboxPublisherOptions {
  region: string;
  /** Default: the environment's (`AWS_ACCESS_KEY_ID`, …), as Lambda sets them for the function's role. */
  credentials?: AwsCredentials | AwsCredentialsProvider;
  /** The fetch requests go through (tests hand a fake). Default: the global one. */
  fetch?: typeof fetch;
  /** Endpoints (DynamoDB Local-like fakes). Default: the regional ones. */
  endpoints?: { events?: string; sqs?: string };
}

/** PutEvents takes at most 10 entries. */
const PUT_EVENTS_BATCH = 10;

/** Publishes outbox entries to EventBridge and SQS; returns the ids AWS accepted. */
export class AwsOutboxPublisher implements OutboxPublisher {
  private readonly events: typeof fetch;
  private readonly sqs: typeof fetch;
  private readonly eventsUrl: string;
  private readonly sqsUrl: string;

  constructor(options: AwsOutboxPublisherOptions) {
    const given = options.credentials;
    const credentials: AwsCredentialsProvider =
      given === undefined
        ? async () => environmentCredentials()
        : typeof given === 'function'
          ? given
          : async () => given;
    const send = options.fetch ?? ((input, init) => fetch(input, init));
    this.events = signedFetch(send, options.region, 'events', credentials);
    this.sqs = signedFetch(send, options.region, 'sqs', credentials);
    this.eventsUrl = options.endpoints?.events ?? `https://events.${options.region}.amazonaws.com/`;
    this.sqsUrl = options.endpoints?.sqs ?? `https://sqs.${options.region}.amazonaws.com/`;
  }

  async publish(entries: readonly OutboxEntry[]): Promise<string[]> {
    const accepted: string[] = [];
    const toBus = entries.filter((e) => e.event.kind === 'eventbridge');
    for (let i = 0; i < toBus.length; i += PUT_EVENTS_BATCH) {
      accepted.push(...(await this.putEvents(toBus.slice(i, i + PUT_EVENTS_BATCH)).catch(() => [])));
    }
    for (const entry of entries) {
      if (entry.event.kind === 'sqs' && (await this.sendMessage(entry).catch(() => false))) accepted.push(entry.id);
    }
    return accepted;
  }

  private async putEvents(batch: readonly OutboxEntry[]): Promise<string[]> {
    const Entries = batch.map(({ id, event }) => {
      if (event.kind !== 'eventbridge') throw new Error('not an EventBridge event');
      return {
        Source: event.source,
        DetailType: event.detailType,
        Detail: withId(event.detail, id),
        ...(event.eventBusName ? { EventBusName: event.eventBusName } : {}),
      };
    });
    const answer = await this.call(this.events, this.eventsUrl, 'AWSEvents.PutEvents', 'application/x-amz-json-1.1', {
      Entries,
    });
    const results = (answer.Entries ?? []) as Array<{ EventId?: string; ErrorCode?: string }>;
    // An entry is accepted when its result has an EventId (a failed one has an ErrorCode instead).
    return batch.filter((_, i) => typeof results[i]?.EventId === 'string').map((e) => e.id);
  }

  private async sendMessage({ id, event }: OutboxEntry): Promise<boolean> {
    if (event.kind !== 'sqs') return false;
    await this.call(this.sqs, this.sqsUrl, 'AmazonSQS.SendMessage', 'application/x-amz-json-1.0', {
      QueueUrl: event.queueUrl,
      MessageBody: event.body,
      MessageAttributes: { durableEventId: { DataType: 'String', StringValue: id } },
      ...(event.groupId ? { MessageGroupId: event.groupId, MessageDeduplicationId: deduplicationId(id) } : {}),
    });
    return true;
  }

  private async call(
    send: typeof fetch,
    url: string,
    target: string,
    contentType: string,
    body: object,
  ): Promise<Record<string, unknown>> {
    const response = await send(url, {
      method: 'POST',
      headers: { 'content-type': contentType, 'x-amz-target': target },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${target}: HTTP ${response.status} ${text.slice(0, 200)}`);
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  }
}

/** The detail with the event's id added, when it is a JSON object; else as it is. */
function withId(detail: string, id: string): string {
  if (!detail.startsWith('{')) return detail;
  try {
    const parsed = JSON.parse(detail) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return detail;
    return JSON.stringify({ ...parsed, durableEventId: id });
  } catch {
    return detail;
  }
}

/** SQS takes up to 128 characters of letters, digits and punctuation: longer ids are hashed. */
function deduplicationId(id: string): string {
  return id.length <= 128 && /^[\x21-\x7e]+$/.test(id) ? id : createHash('sha256').update(id).digest('hex');
}

/** A fetch of POSTs with a string body, signed for `service` (SigV4 headers added). */
function signedFetch(
  send: typeof fetch,
  region: string,
  service: string,
  credentials: AwsCredentialsProvider,
): typeof fetch {
  return async (input, init) => {
    const url = new URL(String(input));
    const body = typeof init?.body === 'string' ? init.body : '';
    const headers: Record<string, string> = { host: url.host };
    new Headers(init?.headers as ConstructorParameters<typeof Headers>[0]).forEach((value, name) => {
      headers[name] = value;
    });
    const signed = signRequest(
      { method: init?.method ?? 'POST', path: url.pathname || '/', headers, body },
      { credentials: await credentials(), region, service },
    );
    const { host: _host, ...rest } = signed;
    return send(url, { ...init, headers: rest });
  };
}
