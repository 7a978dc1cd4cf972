/**
 * On-time wake-ups at the AWS SDK client boundary: the real SQS and Scheduler clients send signed
 * requests to a local fake endpoint, which records them. Which mechanism each wake-up goes by
 * (OnTimeWaker), what the SQS message says (SqsDelayWaker), and how the receiving side handles
 * what arrives (WakeQueueReceiver: early messages re-armed, batches answered per message).
 */
import { createHash } from 'node:crypto';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient } from '@aws-sdk/client-sqs';
import {
  DELAY_ROUNDINGS,
  delaySecondsFor,
  HOP_HOLD_BUDGET_MS,
  OnTimeWaker,
  readProductionConfig,
  SCHEDULER_HOP_LEAD_MS,
  SchedulerWaker,
  SqsDelayWaker,
  timedWakeEvent,
  WakeQueueReceiver,
} from '@durable-lambda/aws';
import { type Invoker, runIdFor, type WakeEvent, type WakeRequest, wakeEvent } from '@durable-lambda/engine';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { awsError, type CapturedRequest, FAKE_CREDENTIALS, FakeAwsServer, type FakeResponse } from '../fake-aws-server';

const ACCOUNT = '123456789012';
const NOW = Date.UTC(2026, 0, 15, 10, 20, 30, 250);
const RUN = runIdFor('order-7');
const QUEUE = (endpoint: string) => `${endpoint}/${ACCOUNT}/orders-wake-ups`;

/** SQS (AWS JSON 1.0, `X-Amz-Target: AmazonSQS.*`) and Scheduler (restJson) on one fake endpoint. */
function answer(request: CapturedRequest): FakeResponse {
  const target = request.headers['x-amz-target'];
  if (target === 'AmazonSQS.SendMessage') {
    const body = JSON.parse(request.body) as { MessageBody: string };
    if (body.MessageBody.includes('"fail-send"')) return awsError(500, 'InternalError', 'SQS is down');
    const md5 = createHash('md5').update(body.MessageBody).digest('hex');
    return { status: 200, body: JSON.stringify({ MessageId: `m-${request.body.length}`, MD5OfMessageBody: md5 }) };
  }
  if (request.method === 'POST' && request.path.startsWith('/schedules/')) {
    return { status: 200, body: JSON.stringify({ ScheduleArn: `arn:aws:scheduler:us-east-1:${ACCOUNT}:schedule/x` }) };
  }
  if (request.method === 'DELETE' && request.path.startsWith('/schedules/')) return { status: 200, body: '{}' };
  return awsError(400, 'ValidationException', `unexpected ${request.method} ${request.path}`);
}

const server = new FakeAwsServer(answer);
let endpoint = '';
beforeAll(async () => {
  endpoint = await server.start();
});
afterAll(() => server.stop());
beforeEach(() => {
  server.requests.length = 0;
  server.respond(answer);
});

class RecordingInvoker implements Invoker {
  calls: Array<{ functionName: string; event: unknown }> = [];
  async invoke(functionName: string, event: unknown): Promise<void> {
    if (functionName === 'unreachable') throw new Error('invoke failed');
    this.calls.push({ functionName, event });
  }
}

const sends = () =>
  server.requests
    .filter((r) => r.headers['x-amz-target'] === 'AmazonSQS.SendMessage')
    .map((r) => JSON.parse(r.body) as { QueueUrl: string; MessageBody: string; DelaySeconds: number });
const creates = () =>
  server.requests
    .filter((r) => r.method === 'POST' && r.path.startsWith('/schedules/'))
    .map((r) => ({ name: r.path.slice('/schedules/'.length), ...JSON.parse(r.body) }));
const deletes = () => server.requests.filter((r) => r.method === 'DELETE').map((r) => r.path);

function setup(options: { now?: () => number; queue?: boolean; lease?: 'reconciler' | 'scheduler' } = {}) {
  const clock = { now: options.now ?? (() => NOW) };
  const invoker = new RecordingInvoker();
  const scheduler = new SchedulerWaker({
    client: new SchedulerClient({ region: 'us-east-1', endpoint, credentials: FAKE_CREDENTIALS, maxAttempts: 1 }),
    groupName: 'durable-orders',
    roleArn: `arn:aws:iam::${ACCOUNT}:role/durable-orders-scheduler`,
    targetArn: (name) => `arn:aws:lambda:us-east-1:${ACCOUNT}:function:${name}`,
    invoker,
    clock,
    sleep: async () => {},
  });
  const queue = new SqsDelayWaker({
    queueUrl: QUEUE(endpoint),
    client: new SQSClient({ region: 'us-east-1', endpoint, credentials: FAKE_CREDENTIALS, maxAttempts: 1 }),
    clock,
  });
  const waker = new OnTimeWaker({
    scheduler,
    ...(options.queue === false ? {} : { queue }),
    feeds: (name) => name.split(':')[0] === 'orders',
    clock,
    ...(options.lease ? { lease: options.lease } : {}),
  });
  return { waker, invoker, clock };
}

const request = (over: Partial<WakeRequest> = {}): WakeRequest => ({
  runId: RUN,
  functionName: 'orders:7',
  at: NOW + 30_000,
  reason: 'due',
  ...over,
});

describe('OnTimeWaker: each wake-up by the mechanism that keeps it on time', () => {
  it('sends a wait within 15 minutes as one SQS message delayed to its due time, signed for sqs', async () => {
    const { waker } = setup();
    await waker.wakeAt(request({ at: NOW + 30_000 }));
    await waker.wakeAt(request({ at: NOW + 299_700 }));
    await waker.wakeAt(request({ at: NOW + 900_000 }));
    expect(creates()).toEqual([]);
    // Rounded down: visible up to a second early, held in-process by its receiver until due.
    expect(sends().map((s) => s.DelaySeconds)).toEqual([30, 299, 900]);
    const [first] = sends();
    expect(first?.QueueUrl).toBe(QUEUE(endpoint));
    expect(JSON.parse(first?.MessageBody ?? '')).toEqual({
      durableLambda: { action: 'wake', runId: RUN, at: NOW + 30_000, functionName: 'orders:7' },
    });
    const signed = server.requests[0]?.headers.authorization;
    expect(signed).toMatch(/Credential=AKIDFAKEFAKEFAKE\/\d{8}\/us-east-1\/sqs\/aws4_request/);
  });

  it('rounds DelaySeconds down by default for a send made as the wait starts (nearest when asked), within 0-900', () => {
    expect(delaySecondsFor(NOW + 29_999, NOW)).toBe(29);
    expect(delaySecondsFor(NOW + 30_000, NOW)).toBe(30);
    expect(delaySecondsFor(NOW + 29_999, NOW, 'adaptive', 'fixed')).toBe(29);
    expect(delaySecondsFor(NOW + 29_501, NOW, 'nearest')).toBe(30);
    expect(delaySecondsFor(NOW + 29_499, NOW, 'nearest')).toBe(29);
    for (const rounding of DELAY_ROUNDINGS) {
      for (const phase of ['fixed', 'random'] as const) {
        expect(delaySecondsFor(NOW - 5_000, NOW, rounding, phase)).toBe(0);
        expect(delaySecondsFor(NOW + 3_600_000, NOW, rounding, phase)).toBe(900);
      }
    }
  });

  it('rounds a send at a random point of the second down only when at most 0.7 s is left to hold (adaptive)', () => {
    expect(HOP_HOLD_BUDGET_MS).toBe(700);
    // 540.7 s: 0.7 s to hold if rounded down, within the budget.
    expect(delaySecondsFor(NOW + 540_700, NOW, 'adaptive', 'random')).toBe(540);
    // 540.701 s: rounded up (visible 0.299 s late, the poll latency on top) rather than hold 0.701 s.
    expect(delaySecondsFor(NOW + 540_701, NOW, 'adaptive', 'random')).toBe(541);
    expect(delaySecondsFor(NOW + 540_999, NOW, 'adaptive', 'random')).toBe(541);
    expect(delaySecondsFor(NOW + 540_000, NOW, 'adaptive', 'random')).toBe(540);
    // The opt-in roundings do not look at the phase.
    expect(delaySecondsFor(NOW + 540_999, NOW, 'down', 'random')).toBe(540);
    expect(delaySecondsFor(NOW + 540_600, NOW, 'nearest', 'random')).toBe(541);
    expect(delaySecondsFor(NOW + 540_400, NOW, 'nearest', 'fixed')).toBe(540);
    // Another budget (what the bench's model tries).
    expect(delaySecondsFor(NOW + 540_300, NOW, 'adaptive', 'random', 200)).toBe(541);
  });

  it('sends a wake-up hinted at a random phase with the adaptive rounding, the rest rounded down', async () => {
    const { waker } = setup();
    await waker.wakeAt(request({ at: NOW + 540_900 }), { phase: 'random' });
    await waker.wakeAt(request({ at: NOW + 540_900 }));
    await waker.wakeAt(request({ at: NOW + 540_500 }), { phase: 'random' });
    expect(sends().map((s) => s.DelaySeconds)).toEqual([541, 540, 540]);
  });

  it('takes the rounding from DURABLE_WAKE_DELAY_ROUNDING, and names the variable when it is wrong', () => {
    const env = {
      DURABLE_TABLE_NAME: 'runs',
      DURABLE_SCHEDULE_GROUP: 'group',
      DURABLE_SCHEDULER_ROLE_ARN: 'arn:aws:iam::123456789012:role/scheduler',
      DURABLE_WAKE_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/wake',
      AWS_REGION: 'us-east-1',
    };
    expect(readProductionConfig(env).wakeDelayRounding).toBeUndefined();
    expect(readProductionConfig({ ...env, DURABLE_WAKE_DELAY_ROUNDING: 'nearest' }).wakeDelayRounding).toBe('nearest');
    expect(readProductionConfig({ ...env, DURABLE_WAKE_DELAY_ROUNDING: 'down' }).wakeDelayRounding).toBe('down');
    expect(readProductionConfig({ ...env, DURABLE_WAKE_DELAY_ROUNDING: 'adaptive' }).wakeDelayRounding).toBe(
      'adaptive',
    );
    expect(() => readProductionConfig({ ...env, DURABLE_WAKE_DELAY_ROUNDING: 'up' })).toThrow(
      /DURABLE_WAKE_DELAY_ROUNDING must be adaptive or down or nearest/,
    );
    expect(
      () =>
        new SqsDelayWaker({
          queueUrl: QUEUE('http://localhost'),
          client: { send: async () => ({}) },
          rounding: 'up' as never,
        }),
    ).toThrow(/rounding must be adaptive or down or nearest/);
  });

  it('schedules a longer wait ahead of its due time, with the due time in the event, named for the due second', async () => {
    const { waker } = setup();
    const at = NOW + 3_600_000;
    await waker.wakeAt(request({ at }));
    expect(sends()).toEqual([]);
    const [schedule] = creates();
    // Fires SCHEDULER_HOP_LEAD_MS early (rounded up to the second); the hop covers the rest.
    const fires = new Date(Math.ceil((at - SCHEDULER_HOP_LEAD_MS) / 1000) * 1000).toISOString().slice(0, 19);
    expect(schedule?.ScheduleExpression).toBe(`at(${fires})`);
    expect(schedule?.name).toBe(`${RUN}-due-${Math.ceil(at / 1000)}`);
    expect(JSON.parse(schedule?.Target.Input)).toEqual(timedWakeEvent({ runId: RUN, functionName: 'orders:7', at }));
    expect(schedule?.Target.Arn).toBe(`arn:aws:lambda:us-east-1:${ACCOUNT}:function:orders:7`);
    // Cancelling the same request deletes that schedule.
    await waker.cancel(request({ at }));
    expect(deletes()).toEqual([`/schedules/${schedule?.name}`]);
  });

  it('invokes at once what is due within 2 s, and leaves other functions and a missing queue to Scheduler', async () => {
    const { waker, invoker } = setup();
    await waker.wakeAt(request({ at: NOW + 1_500 }));
    expect(invoker.calls).toEqual([{ functionName: 'orders:7', event: wakeEvent(RUN) }]);
    // The queue feeds this function only.
    await waker.wakeAt(request({ functionName: 'billing', at: NOW + 30_000 }));
    expect(sends()).toEqual([]);
    expect(creates().map((c) => [c.Target.Arn, c.ScheduleExpression])).toEqual([
      [`arn:aws:lambda:us-east-1:${ACCOUNT}:function:billing`, 'at(2026-01-15T10:21:01)'],
    ]);
    server.requests.length = 0;
    const { waker: without } = setup({ queue: false });
    await without.wakeAt(request({ at: NOW + 30_000 }));
    await without.wakeAt(request({ at: NOW + 3_600_000 }));
    expect(sends()).toEqual([]);
    // Without the queue there is no hop: the schedule is at the due time, with a plain wake event.
    expect(creates().map((c) => JSON.parse(c.Target.Input))).toEqual([wakeEvent(RUN), wakeEvent(RUN)]);
  });

  it('makes no call at all for the lease safety wake-up by default (the reconciler covers it)', async () => {
    const { waker, invoker } = setup();
    const lease = request({ reason: 'lease', at: NOW + 310_000 });
    expect(waker.route(lease)).toBe('none');
    await waker.wakeAt(lease);
    await waker.cancel(lease);
    expect(server.requests).toEqual([]);
    expect(invoker.calls).toEqual([]);
  });

  it('keeps the lease schedule, created and deleted, with lease "scheduler"', async () => {
    const { waker } = setup({ lease: 'scheduler' });
    const lease = request({ reason: 'lease', at: NOW + 310_000 });
    await waker.wakeAt(lease);
    await waker.cancel(lease);
    expect(sends()).toEqual([]);
    expect(creates().map((c) => c.name)).toEqual([`${RUN}-lease-${Math.ceil(lease.at / 1000)}`]);
    expect(deletes()).toHaveLength(1);
  });

  it('refuses an unknown lease mode and a hop lead outside 1-15 minutes', () => {
    const { waker } = setup();
    const scheduler = (waker as unknown as { scheduler: SchedulerWaker }).scheduler;
    expect(() => new OnTimeWaker({ scheduler, feeds: () => true, lease: 'never' as 'reconciler' })).toThrow(/lease/);
    expect(() => new OnTimeWaker({ scheduler, feeds: () => true, hopLeadMs: 30_000 })).toThrow(/hopLeadMs/);
    expect(() => new OnTimeWaker({ scheduler, feeds: () => true, hopLeadMs: 900_000 })).toThrow(/hopLeadMs/);
  });
});

/** The receiving side with recording ports; `open` records the plain wake events it is handed. */
function receiver(now: () => number) {
  const { waker, invoker } = setup({ now });
  const sleeps: number[] = [];
  const opened: WakeEvent[] = [];
  const closes: unknown[] = [];
  const receive = new WakeQueueReceiver({
    rearm: (r, hint) => waker.wakeAt(r, hint),
    forward: (name, event) => invoker.invoke(name, event),
    opensHere: (name) => name.split(':')[0] === 'orders',
    ownName: () => 'orders',
    now,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
  const open = async (event: WakeEvent) => {
    opened.push(event);
    return {
      opened: {
        invocation: {} as never,
        abort: async () => {},
        close: async (output: unknown) => {
          closes.push(output);
          return output;
        },
      },
    };
  };
  return { receive, open, sleeps, opened, closes, invoker };
}

const record = (id: string, body: unknown) => ({
  messageId: id,
  receiptHandle: `rh-${id}`,
  body: typeof body === 'string' ? body : JSON.stringify(body),
  eventSource: 'aws:sqs' as const,
  eventSourceARN: `arn:aws:sqs:us-east-1:${ACCOUNT}:orders-wake-ups`,
  attributes: { ApproximateReceiveCount: '1' },
});
const timed = (at: number, functionName = 'orders:7', runId = RUN) => timedWakeEvent({ runId, functionName, at });

describe('WakeQueueReceiver: what arrives from the queue', () => {
  it('opens a due message in this invocation and answers the batch once the invocation closed', async () => {
    const r = receiver(() => NOW);
    const result = await r.receive.receive({ Records: [record('a', timed(NOW - 200))] }, r.open);
    expect(r.opened).toEqual([wakeEvent(RUN)]);
    expect(r.sleeps).toEqual([]);
    expect(await result?.opened?.close({ Status: 'PENDING' })).toEqual({ batchItemFailures: [] });
    expect(r.closes).toEqual([{ Status: 'PENDING' }]);
    expect(server.requests).toEqual([]);
  });

  it('holds a message found up to 2 s early until due, never opening it before', async () => {
    const r = receiver(() => NOW);
    await r.receive.receive({ Records: [record('a', timed(NOW + 450))] }, r.open);
    expect(r.sleeps).toEqual([450]);
    expect(r.opened).toEqual([wakeEvent(RUN)]);
  });

  it('re-arms a message found early for the rest of its wait, keeping its due time, and opens nothing', async () => {
    const r = receiver(() => NOW);
    // A hop's schedule fired 9 minutes 40 s ahead; SQS's 15-minute cap chained a longer wait.
    const result = await r.receive.receive({ Records: [record('a', timed(NOW + 580_000))] }, r.open);
    expect(result).toEqual({ response: { batchItemFailures: [] } });
    expect(r.opened).toEqual([]);
    expect(sends().map((s) => [s.DelaySeconds, JSON.parse(s.MessageBody)])).toEqual([[580, timed(NOW + 580_000)]]);
    // The re-armed message arrives on time: it opens; a stale copy of it later opens too (and finds
    // nothing due: harmless), but neither is re-armed again.
    const later = receiver(() => NOW + 580_100);
    await later.receive.receive({ Records: [record('b', JSON.parse(sends()[0]?.MessageBody ?? ''))] }, later.open);
    await later.receive.receive({ Records: [record('a', timed(NOW + 580_000))] }, later.open);
    expect(later.opened).toEqual([wakeEvent(RUN), wakeEvent(RUN)]);
    expect(sends()).toHaveLength(1);
  });

  it('re-arms a Scheduler hop delivered straight to the function, and opens it when it comes back due', async () => {
    const r = receiver(() => NOW);
    const hop = timed(NOW + 3_600_000);
    const result = await r.receive.receive(hop, r.open);
    expect(result).toEqual({ response: { Status: 'PENDING', runId: RUN, rearmed: true } });
    // 1 h out: past SQS's reach, so it is scheduled again ahead of its due time.
    expect(creates()).toHaveLength(1);
    server.requests.length = 0;
    await r.receive.receive(timed(NOW + 540_000), r.open);
    expect(sends().map((s) => s.DelaySeconds)).toEqual([540]);
    expect(r.opened).toEqual([]);
    // A plain wake event (no due time) is not the receiver's: the backend opens it as before.
    expect(await r.receive.receive(wakeEvent(RUN), r.open)).toBeUndefined();
    expect(await r.receive.receive({ some: 'start event' }, r.open)).toBeUndefined();
  });

  it('re-arms a hop at its random phase (rounded up past 0.7 s of hold), a message from the queue always rounded down', async () => {
    const r = receiver(() => NOW);
    // Scheduler hops, delivered straight to the function.
    await r.receive.receive(timed(NOW + 540_900), r.open);
    await r.receive.receive(timed(NOW + 540_400), r.open);
    // The same due times arriving early from the queue (its message was sent as a wait started).
    await r.receive.receive({ Records: [record('a', timed(NOW + 540_900))] }, r.open);
    expect(sends().map((s) => s.DelaySeconds)).toEqual([541, 540, 540]);
    expect(r.opened).toEqual([]);
  });

  it('answers a batch message by message: failures only for what could not be re-armed, handed on or read', async () => {
    const r = receiver(() => NOW);
    const other = runIdFor('order-8');
    const result = await r.receive.receive(
      {
        Records: [
          record('due', timed(NOW - 1, 'orders:7')),
          record('early', timed(NOW + 60_000, 'orders:7', other)),
          record('garbled', '{not json'),
          record('not-a-wake', { hello: 'world' }),
          record('cannot-send', timed(NOW + 60_000, 'orders:7', 'fail-send')),
          record('cannot-invoke', timed(NOW - 1, 'unreachable')),
        ],
      },
      r.open,
    );
    expect(r.opened).toEqual([]);
    expect(result?.opened).toBeUndefined();
    const failures = (result as { response: { batchItemFailures: Array<{ itemIdentifier: string }> } }).response
      .batchItemFailures;
    expect(failures.map((f) => f.itemIdentifier).sort()).toEqual(
      ['cannot-invoke', 'cannot-send', 'garbled', 'not-a-wake'].sort(),
    );
    // The due one went to its own invocation; the early one was re-armed.
    expect(r.invoker.calls).toEqual([{ functionName: 'orders:7', event: wakeEvent(RUN) }]);
    expect(sends().map((s) => [s.DelaySeconds, JSON.parse(s.MessageBody).durableLambda.runId])).toEqual(
      expect.arrayContaining([[60, other]]),
    );
  });

  it('hands another function its wake-up, and fails a lone unreadable message so it is dead-lettered', async () => {
    const r = receiver(() => NOW);
    const handed = await r.receive.receive({ Records: [record('a', timed(NOW, 'billing'))] }, r.open);
    expect(handed).toEqual({ response: { batchItemFailures: [] } });
    expect(r.invoker.calls).toEqual([{ functionName: 'billing', event: wakeEvent(RUN) }]);
    const garbled = await r.receive.receive({ Records: [record('z', 'garbage')] }, r.open);
    expect(garbled).toEqual({ response: { batchItemFailures: [{ itemIdentifier: 'z' }] } });
    expect(r.opened).toEqual([]);
  });

  it('fails a lone message whose re-arm failed (SQS delivers it again), and lets a failure to open be thrown', async () => {
    const r = receiver(() => NOW);
    const failing = await r.receive.receive(
      { Records: [record('a', timed(NOW + 60_000, 'orders', 'fail-send'))] },
      r.open,
    );
    expect(failing).toEqual({ response: { batchItemFailures: [{ itemIdentifier: 'a' }] } });
    const broken = async () => {
      throw new Error('DynamoDB throttled');
    };
    await expect(r.receive.receive({ Records: [record('b', timed(NOW))] }, broken)).rejects.toThrow(/throttled/);
    // Never re-armed on a failure to open: a fault that persists cannot spin.
    expect(sends()).toHaveLength(1);
  });
});
