import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type Engine,
  type Invoker,
  isScheduleFiring,
  type ScheduleFiringEvent,
  ScheduleReceiver,
  systemClock,
  TriggerReceiver,
  triggerBatchOf,
  type Waker,
} from '@durable-lambda/engine';

/** The dev server's route delivering trigger events and schedule firings to a function. */
export const EVENTS_ROUTE = /^\/v1\/functions\/([^/]+)\/events$/;

const MAX_EVENT_BYTES = 1024 * 1024;

/** What the events route starts runs through (the dev server's runtime). */
export interface EventRouteDeps {
  engine: Engine;
  invoker: Invoker;
  waker: Waker;
  functions: readonly string[];
}

/**
 * `POST /v1/functions/<name>/events` with an event shaped as AWS delivers it to the function: an
 * SQS batch (`Records` from `aws:sqs`), a DynamoDB Streams batch (`aws:dynamodb`), an EventBridge
 * event, an EventBridge pipe's batch (a JSON array of SQS, DynamoDB Streams or Kinesis records),
 * or a schedule firing (`{ durableLambda: { action: 'schedule', ... } }`). Each event
 * starts one run keyed by the event (as in production: a second delivery is the same run), run by
 * the dev server's runtime; the answer is what the function answers its event source
 * (`batchItemFailures`, or the run). 400 for a body that is none of these, 404 for an unknown function.
 */
export function eventRoute(deps: EventRouteDeps) {
  const triggers = new TriggerReceiver({
    engine: deps.engine,
    invoker: deps.invoker,
    waker: deps.waker,
    clock: systemClock,
  });
  const schedules = new ScheduleReceiver({
    engine: deps.engine,
    invoker: deps.invoker,
    waker: deps.waker,
    clock: systemClock,
  });
  const route = async (name: string, req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'POST') return answer(405, { code: 'method_not_allowed', message: 'POST an event' });
    if (!deps.functions.includes(name)) {
      return answer(404, { code: 'function_not_found', message: `no function ${JSON.stringify(name)}` });
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_EVENT_BYTES) return answer(413, { code: 'payload_too_large', message: 'at most 1 MiB' });
      chunks.push(chunk as Buffer);
    }
    let event: unknown;
    try {
      event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return answer(400, { code: 'invalid_json', message: 'the body is not JSON' });
    }
    if (isScheduleFiring(event)) return answer(200, await schedules.receive(event, name));
    const batch = triggerBatchOf(event);
    if (!batch) {
      return answer(400, {
        code: 'not_a_trigger_event',
        message:
          "POST an SQS or DynamoDB Streams batch, an EventBridge event, a pipe's batch (an array of SQS, DynamoDB Streams or Kinesis records), or a schedule firing",
      });
    }
    return answer(200, await triggers.receive(batch, name));
  };
  /** Fires one schedule firing for `name` (the dev server's schedule timers). */
  const fire = (name: string, event: ScheduleFiringEvent) => schedules.receive(event, name);
  return Object.assign(route, { fire });
}
