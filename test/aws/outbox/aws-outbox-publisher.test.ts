/**
 * The outbox's AWS publisher (issue 27) against in-process fakes of EventBridge's PutEvents and
 * SQS's SendMessage that keep their documented semantics: PutEvents answers per entry (an
 * `EventId`, or an `ErrorCode` for an entry it refused) and has no idempotency; a FIFO queue drops
 * a message whose `MessageDeduplicationId` it saw within five minutes. Requests are signed
 * (SigV4 `Authorization`) and carry the JSON protocols' targets.
 */
import { AwsOutboxPublisher } from '@durable-lambda/aws';
import type { OutboxEntry } from '@durable-lambda/engine';
import { describe, expect, it } from 'vitest';

interface Sent {
  target: string;
  body: Record<string, unknown>;
  signed: boolean;
}

/** EventBridge and SQS, in process: `refuse` names sources PutEvents refuses per entry. */
function fakeAws(options: { refuse?: Set<string>; down?: boolean } = {}) {
  const sent: Sent[] = [];
  const bus: Array<Record<string, unknown>> = [];
  const queue: Array<Record<string, unknown>> = [];
  const dedup = new Set<string>();
  const fetch = (async (url: string | URL, init?: RequestInit) => {
    const headers = new Headers(init?.headers as ConstructorParameters<typeof Headers>[0]);
    const target = headers.get('x-amz-target') ?? '';
    const body = JSON.parse(String(init?.body)) as Record<string, unknown>;
    sent.push({ target, body, signed: (headers.get('authorization') ?? '').startsWith('AWS4-HMAC-SHA256') });
    if (options.down) return new Response('{"__type":"InternalFailure"}', { status: 500 });
    if (target === 'AWSEvents.PutEvents' && String(url).includes('events.')) {
      const entries = body.Entries as Array<Record<string, unknown>>;
      const results = entries.map((e, i) => {
        if (options.refuse?.has(String(e.Source))) return { ErrorCode: 'InternalFailure', ErrorMessage: 'refused' };
        bus.push(e);
        return { EventId: `ev-${bus.length}-${i}` };
      });
      return Response.json({ FailedEntryCount: results.filter((r) => 'ErrorCode' in r).length, Entries: results });
    }
    if (target === 'AmazonSQS.SendMessage' && String(url).includes('sqs.')) {
      const id = body.MessageDeduplicationId as string | undefined;
      if (id === undefined || !dedup.has(id)) queue.push(body);
      if (id !== undefined) dedup.add(id);
      return Response.json({ MessageId: `m-${queue.length}` });
    }
    return new Response('{"__type":"UnknownOperation"}', { status: 400 });
  }) as typeof globalThis.fetch;
  return { fetch, sent, bus, queue };
}

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' };
const eb = (id: string, source = 'shop', detail = '{"order":"o-1"}'): OutboxEntry => ({
  id,
  at: 0,
  event: { kind: 'eventbridge', source, detailType: 'OrderPlaced', detail },
});
const fifo = (id: string): OutboxEntry => ({
  id,
  at: 0,
  event: { kind: 'sqs', queueUrl: 'https://sqs.eu-west-1.amazonaws.com/1/mail.fifo', body: 'o-1', groupId: 'o-1' },
});

describe('AwsOutboxPublisher', () => {
  it('puts events 10 a request, signed, with the id in the detail; refused entries are not accepted', async () => {
    const aws = fakeAws({ refuse: new Set(['flaky']) });
    const publisher = new AwsOutboxPublisher({ region: 'eu-west-1', credentials, fetch: aws.fetch });
    const entries = Array.from({ length: 23 }, (_, i) => eb(`r:1:${i}`, i === 4 ? 'flaky' : 'shop'));
    const accepted = await publisher.publish(entries);
    expect(aws.sent.map((s) => [s.target, (s.body.Entries as unknown[]).length, s.signed])).toEqual([
      ['AWSEvents.PutEvents', 10, true],
      ['AWSEvents.PutEvents', 10, true],
      ['AWSEvents.PutEvents', 3, true],
    ]);
    expect(accepted).toEqual(entries.map((e) => e.id).filter((id) => id !== 'r:1:4'));
    expect(JSON.parse(String(aws.bus[0]?.Detail))).toEqual({ order: 'o-1', durableEventId: 'r:1:0' });
  });

  it('sends SQS messages with the id as attribute, and a FIFO queue drops the repeat of a lost answer', async () => {
    const aws = fakeAws();
    const publisher = new AwsOutboxPublisher({ region: 'eu-west-1', credentials, fetch: aws.fetch });
    expect(await publisher.publish([fifo('r:2:0')])).toEqual(['r:2:0']);
    // The answer was lost: the invocation's successor (or the reconciler) sends it again.
    expect(await publisher.publish([fifo('r:2:0')])).toEqual(['r:2:0']);
    expect(aws.queue).toHaveLength(1);
    expect(aws.queue[0]).toMatchObject({
      MessageGroupId: 'o-1',
      MessageDeduplicationId: 'r:2:0',
      MessageAttributes: { durableEventId: { DataType: 'String', StringValue: 'r:2:0' } },
    });
  });

  it('accepts nothing, and throws nothing, when the services fail', async () => {
    const aws = fakeAws({ down: true });
    const publisher = new AwsOutboxPublisher({ region: 'eu-west-1', credentials, fetch: aws.fetch });
    expect(await publisher.publish([eb('r:3:0'), fifo('r:3:1')])).toEqual([]);
    expect(aws.sent).toHaveLength(2);
  });
});
