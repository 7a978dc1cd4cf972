import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { type Invoker, isWakeEvent, runIdFor, type WakeRequest, wakeEvent } from '@durable-lambda/engine';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { scheduleName } from '../../../packages/aws/src/schedule-names';
import { SchedulerWaker } from '../../../packages/aws/src/scheduler-waker';
import { awsError, type CapturedRequest, FAKE_CREDENTIALS, FakeAwsServer } from '../fake-aws-server';

// AWS's documented constraints (EventBridge Scheduler API reference, CreateSchedule).
const NAME = /^[0-9a-zA-Z\-_.]{1,64}$/;
const CLIENT_TOKEN = /^[a-zA-Z0-9\-_]{1,64}$/;
const AT_EXPRESSION = /^at\((\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\)$/;

const GROUP = 'durable-orders';
const ROLE = 'arn:aws:iam::123456789012:role/durable-orders-scheduler';
const DLQ = 'arn:aws:sqs:us-east-1:123456789012:durable-wake-up-dead-letters';
const targetArn = (name: string) => `arn:aws:lambda:us-east-1:123456789012:function:${name}:live`;
const NOW = Date.UTC(2026, 0, 15, 10, 20, 30, 250);
const RUN = runIdFor('order-42');

class RecordingInvoker implements Invoker {
  calls: Array<{ functionName: string; event: unknown }> = [];
  async invoke(functionName: string, event: unknown): Promise<void> {
    this.calls.push({ functionName, event });
  }
}

const server = new FakeAwsServer(answer);
let endpoint = '';

function answer(request: CapturedRequest) {
  if (request.method === 'POST' && request.path.startsWith('/schedules/')) {
    const name = request.path.slice('/schedules/'.length);
    const group = JSON.parse(request.body).GroupName;
    return {
      status: 200,
      body: JSON.stringify({ ScheduleArn: `arn:aws:scheduler:us-east-1:123456789012:schedule/${group}/${name}` }),
    };
  }
  if (request.method === 'DELETE') return { status: 200, body: '{}' };
  return awsError(400, 'ValidationException', `unexpected ${request.method} ${request.path}`);
}

beforeAll(async () => {
  endpoint = await server.start();
});
afterAll(() => server.stop());
beforeEach(() => {
  server.requests.length = 0;
  server.respond(answer);
});

function setup(options: { now?: number; deadLetterArn?: string } = {}) {
  const client = new SchedulerClient({ region: 'us-east-1', endpoint, credentials: FAKE_CREDENTIALS, maxAttempts: 1 });
  const invoker = new RecordingInvoker();
  const sleeps: number[] = [];
  const waker = new SchedulerWaker({
    client,
    groupName: GROUP,
    roleArn: ROLE,
    ...(options.deadLetterArn === undefined ? {} : { deadLetterArn: options.deadLetterArn }),
    targetArn,
    invoker,
    clock: { now: () => options.now ?? NOW },
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
  return { waker, invoker, sleeps };
}

const request = (over: Partial<WakeRequest> = {}): WakeRequest => ({
  runId: RUN,
  functionName: 'orders',
  at: Date.UTC(2026, 0, 15, 10, 22, 0, 1),
  reason: 'due',
  ...over,
});

function createBody(captured: CapturedRequest | undefined) {
  expect(captured).toBeDefined();
  return JSON.parse(captured?.body ?? '{}');
}

describe('SchedulerWaker: a later wake-up becomes a one-time schedule', () => {
  it('sends a CreateSchedule that meets AWS constraints, field by field', async () => {
    const { waker, invoker } = setup();
    await waker.wakeAt(request());

    expect(invoker.calls).toEqual([]);
    expect(server.requests).toHaveLength(1);
    const sent = server.requests[0] as CapturedRequest;
    expect(sent.method).toBe('POST');
    const name = sent.path.slice('/schedules/'.length);
    expect(sent.path).toBe(`/schedules/${name}`);
    expect(name).toMatch(NAME);
    expect(sent.headers['content-type']).toBe('application/json');
    expect(sent.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDFAKEFAKEFAKE\/\d{8}\/us-east-1\/scheduler\/aws4_request, SignedHeaders=.*, Signature=[0-9a-f]{64}$/,
    );

    const body = createBody(sent);
    expect(Object.keys(body).sort()).toEqual(
      [
        'ActionAfterCompletion',
        'ClientToken',
        'FlexibleTimeWindow',
        'GroupName',
        'ScheduleExpression',
        'ScheduleExpressionTimezone',
        'State',
        'Target',
      ].sort(),
    );
    expect(body.ClientToken).toMatch(CLIENT_TOKEN);
    expect(body.GroupName).toBe(GROUP);
    expect(body.GroupName).toMatch(NAME);
    // 10:22:00.001 is rounded UP to the next whole second: never early.
    expect(body.ScheduleExpression).toBe('at(2026-01-15T10:22:01)');
    expect(body.ScheduleExpression).toMatch(AT_EXPRESSION);
    expect(body.ScheduleExpressionTimezone).toBe('UTC');
    expect(body.FlexibleTimeWindow).toEqual({ Mode: 'OFF' });
    expect(body.ActionAfterCompletion).toBe('DELETE');
    expect(body.State).toBe('ENABLED');

    expect(Object.keys(body.Target).sort()).toEqual(['Arn', 'Input', 'RetryPolicy', 'RoleArn']);
    expect(body.Target.Arn).toBe('arn:aws:lambda:us-east-1:123456789012:function:orders:live');
    expect(body.Target.RoleArn).toBe(ROLE);
    const input = JSON.parse(body.Target.Input);
    expect(input).toEqual(wakeEvent(RUN));
    expect(isWakeEvent(input)).toBe(true);
    // Documented ranges: MaximumEventAgeInSeconds 60..86400, MaximumRetryAttempts 0..185.
    expect(body.Target.RetryPolicy).toEqual({ MaximumEventAgeInSeconds: 86_400, MaximumRetryAttempts: 185 });
  });

  it('sends the events it could not deliver after a day of retries to the dead-letter queue, when given one', async () => {
    const { waker } = setup({ deadLetterArn: DLQ });
    await waker.wakeAt(request({ reason: 'lease' }));
    const body = createBody(server.requests[0]);
    expect(Object.keys(body.Target).sort()).toEqual(['Arn', 'DeadLetterConfig', 'Input', 'RetryPolicy', 'RoleArn']);
    expect(body.Target.DeadLetterConfig).toEqual({ Arn: DLQ });
    // AWS's DeadLetterConfig.Arn pattern (a standard queue).
    expect(body.Target.DeadLetterConfig.Arn).toMatch(/^arn:aws(-[a-z]+)?:sqs:[a-z0-9-]+:\d{12}:[a-zA-Z0-9_-]+$/);
    expect(body.Target.RetryPolicy).toEqual({ MaximumEventAgeInSeconds: 86_400, MaximumRetryAttempts: 185 });
  });

  it('rounds the UTC time up to the next whole second, and keeps an exact second', async () => {
    const { waker } = setup();
    const cases: Array<[number, string]> = [
      [Date.UTC(2026, 0, 15, 10, 22, 0, 0), 'at(2026-01-15T10:22:00)'],
      [Date.UTC(2026, 0, 15, 10, 22, 0, 999), 'at(2026-01-15T10:22:01)'],
      [Date.UTC(2026, 11, 31, 23, 59, 59, 1), 'at(2027-01-01T00:00:00)'],
      [Date.UTC(2026, 1, 28, 23, 59, 59, 500), 'at(2026-03-01T00:00:00)'],
    ];
    for (const [at] of cases) await waker.wakeAt(request({ at }));
    const expressions = server.requests.map((r) => createBody(r).ScheduleExpression);
    expect(expressions).toEqual(cases.map(([, expression]) => expression));
    for (const [i, expression] of expressions.entries()) {
      const m = AT_EXPRESSION.exec(expression) as RegExpExecArray;
      const scheduled = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
      const at = cases[i]![0];
      expect(scheduled).toBeGreaterThanOrEqual(at);
      expect(scheduled - at).toBeLessThan(1000);
    }
  });

  it('treats a duplicate wake-up (ConflictException) as success', async () => {
    const { waker } = setup();
    await waker.wakeAt(request());
    server.respond(() => awsError(409, 'ConflictException', 'Schedule already exists.'));
    await expect(waker.wakeAt(request())).resolves.toBeUndefined();
    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests.map(createBody);
    expect(second.ClientToken).toBe(first.ClientToken);
    expect(server.requests[1]?.path).toBe(server.requests[0]?.path);
  });

  it('fails on any other service error', async () => {
    const { waker } = setup();
    server.respond(() => awsError(400, 'ValidationException', 'The expression is invalid.'));
    await expect(waker.wakeAt(request())).rejects.toMatchObject({ name: 'ValidationException' });
  });
});

describe('SchedulerWaker: a wake-up due now goes through the invoker', () => {
  it('invokes at once for a wake-up due now or in the past, without the Scheduler', async () => {
    const { waker, invoker, sleeps } = setup();
    await waker.wakeAt(request({ at: NOW, reason: 'event' }));
    await waker.wakeAt(request({ at: NOW - 60_000 }));
    expect(server.requests).toEqual([]);
    expect(sleeps).toEqual([]);
    expect(invoker.calls).toEqual([
      { functionName: 'orders', event: wakeEvent(RUN) },
      { functionName: 'orders', event: wakeEvent(RUN) },
    ]);
  });

  it('sleeps until a wake-up due within the window is due, then invokes (never early)', async () => {
    const { waker, invoker, sleeps } = setup();
    await waker.wakeAt(request({ at: NOW + 1_500 }));
    expect(sleeps).toEqual([1_500]);
    expect(invoker.calls).toHaveLength(1);
    expect(server.requests).toEqual([]);
  });

  it('schedules once the wake-up is beyond the window (default 2 s)', async () => {
    const { waker, invoker } = setup();
    await waker.wakeAt(request({ at: NOW + 2_001 }));
    expect(invoker.calls).toEqual([]);
    expect(createBody(server.requests[0]).ScheduleExpression).toBe('at(2026-01-15T10:20:33)');
  });
});

describe('SchedulerWaker: schedule names and client tokens', () => {
  async function sent(...requests: WakeRequest[]) {
    const { waker } = setup();
    for (const r of requests) await waker.wakeAt(r);
    return server.requests.map((r) => ({ name: r.path.slice('/schedules/'.length), token: createBody(r).ClientToken }));
  }

  it('derives the same name and token for the same wake-up', async () => {
    const [a, b] = await sent(request(), request());
    expect(a).toEqual(b);
    expect(a?.name).toBe(scheduleName(request()));
  });

  it('derives different names and tokens for other reasons, times and runs', async () => {
    const base = request();
    const all = await sent(
      base,
      request({ reason: 'lease' }),
      request({ reason: 'event' }),
      request({ reason: 'reconcile' }),
      request({ at: base.at + 1_000 }),
      request({ at: base.at + 86_400_000 }),
      request({ runId: runIdFor('order-43') }),
      request({ runId: runIdFor(undefined) }),
    );
    expect(new Set(all.map((x) => x.name)).size).toBe(all.length);
    expect(new Set(all.map((x) => x.token)).size).toBe(all.length);
  });

  it('keeps names and tokens within AWS limits for every engine run id shape and reason', async () => {
    const farFuture = Date.UTC(2286, 0, 1);
    const runs = [runIdFor('key'), runIdFor(undefined)];
    for (const runId of runs) {
      for (const reason of ['due', 'lease', 'event', 'reconcile'] as const) {
        const name = scheduleName({ runId, at: farFuture, reason });
        expect(name).toMatch(NAME);
        // Readable in the console: the run, then the reason as it is.
        expect(name.startsWith(`${runId}-${reason}-`)).toBe(true);
      }
    }
    const odd = await sent(request({ runId: 'a run/id with spaces and a very long tail'.repeat(3) }));
    expect(odd[0]?.name).toMatch(NAME);
    expect(odd[0]?.token).toMatch(CLIENT_TOKEN);
  });
});

describe('SchedulerWaker.cancel', () => {
  it('deletes the schedule of the same wake-up', async () => {
    const { waker } = setup();
    await waker.wakeAt(request({ reason: 'lease' }));
    await waker.cancel(request({ reason: 'lease' }));
    const [created, deleted] = server.requests;
    expect(deleted?.method).toBe('DELETE');
    expect(deleted?.path).toBe(created?.path);
    expect(deleted?.query.get('groupName')).toBe(GROUP);
  });

  it('treats a schedule already gone (ResourceNotFoundException) as success', async () => {
    const { waker } = setup();
    server.respond(() => awsError(404, 'ResourceNotFoundException', 'Schedule not found.'));
    await expect(waker.cancel(request())).resolves.toBeUndefined();
  });

  it('fails on any other service error', async () => {
    const { waker } = setup();
    server.respond(() => awsError(403, 'AccessDeniedException', 'not allowed'));
    await expect(waker.cancel(request())).rejects.toMatchObject({ name: 'AccessDeniedException' });
  });
});
