/**
 * A fake of the two AWS services a self-hosted function calls besides DynamoDB (which is
 * DynamoDB Local): Lambda's asynchronous Invoke and EventBridge Scheduler's one-time schedules,
 * as one HTTP endpoint the AWS SDK clients are pointed at (`AWS_ENDPOINT_URL_LAMBDA`,
 * `AWS_ENDPOINT_URL_SCHEDULER`). It delivers what it is sent back to the registered Lambda
 * handlers, in this process and in real time: an invoke at once, a schedule at its time, each
 * delivery retried twice with the same request id when the handler throws (Lambda's
 * asynchronous retries). Rules can drop (lose) or duplicate deliveries.
 */
import { randomUUID } from 'node:crypto';
import type { LambdaContextLike } from '@durable-lambda/protocol';
import { awsError, type CapturedRequest, FakeAwsServer, type FakeResponse } from '../aws/fake-aws-server';

export const ACCOUNT = '123456789012';
export const REGION = 'us-east-1';
export const functionArn = (name: string) => `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${name}`;

/** A Lambda handler as the cloud invokes it. */
export type LambdaHandler = (event: unknown, context: LambdaContextLike) => Promise<unknown>;

/** One delivery of an event to a function (all its attempts). */
export interface Delivery {
  functionName: string;
  /** The ARN it was invoked with (qualified when an alias or version was targeted). */
  arn: string;
  /** `invoke` (Lambda Invoke) or `schedule` (a schedule fired). */
  via: 'invoke' | 'schedule';
  event: unknown;
  requestId: string;
  attempts: number;
  /** What the last attempt returned, or why it threw. */
  result?: unknown;
  error?: unknown;
}

/** What a delivery rule decides: deliver once, `drop` it (a lost wake-up), or deliver it `twice`. */
export type DeliveryRule = (d: {
  via: 'invoke' | 'schedule';
  functionName: string;
  event: unknown;
}) => 'drop' | 'twice' | undefined;

const INVOKE_PATH = /^\/2015-03-31\/functions\/(.+)\/invocations$/;
const SCHEDULE_PATH = /^\/schedules\/(.+)$/;
const BUDGET_MS = 60_000;

/** Lambda and Scheduler, faked over HTTP, delivering to in-process handlers. */
export class FakeCloud {
  readonly server = new FakeAwsServer((request) => this.answer(request));
  readonly functions = new Map<string, LambdaHandler>();
  readonly deliveries: Delivery[] = [];
  /** Schedules created (name → expression), whether fired, pending, dropped or deleted. */
  readonly schedules: Array<{ name: string; expression: string; dropped: boolean }> = [];
  rule: DeliveryRule = () => undefined;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly inFlight = new Set<Promise<void>>();

  start(): Promise<string> {
    return this.server.start();
  }

  /** Cancels pending schedules and waits for deliveries under way, then stops the server. */
  async stop(): Promise<void> {
    this.clearSchedules();
    await this.settled();
    await this.server.stop();
  }

  /** Forgets every pending schedule (a test's leftovers: lease safety wake-ups). */
  clearSchedules(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  register(name: string, handler: LambdaHandler): void {
    this.functions.set(name, handler);
  }

  /** Waits until no delivery is under way. */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /**
   * An asynchronous invoke from outside (a client starting a run with a plain event), of the
   * function or of one of its aliases (`qualifier`).
   */
  invoke(functionName: string, event: unknown, requestId: string = randomUUID(), qualifier?: string): Promise<void> {
    const arn = qualifier === undefined ? functionArn(functionName) : `${functionArn(functionName)}:${qualifier}`;
    return this.track(this.deliver('invoke', functionName, arn, event, requestId));
  }

  private answer(request: CapturedRequest): FakeResponse {
    const invoke = INVOKE_PATH.exec(request.path);
    if (request.method === 'POST' && invoke) {
      const target = invoke[1] as string;
      const name = nameOf(target);
      if (!this.functions.has(name)) return awsError(404, 'ResourceNotFoundException', `Function not found: ${target}`);
      const event = JSON.parse(request.body) as unknown;
      const verdict = this.rule({ via: 'invoke', functionName: name, event });
      this.dispatch('invoke', name, target.startsWith('arn:') ? target : functionArn(name), event, verdict);
      return { status: 202, headers: { 'x-amzn-requestid': randomUUID() }, body: '' };
    }
    const schedule = SCHEDULE_PATH.exec(request.path);
    if (schedule && request.method === 'POST') {
      const name = schedule[1] as string;
      if (this.timers.has(name)) return awsError(409, 'ConflictException', `Schedule ${name} already exists`);
      const body = JSON.parse(request.body) as { ScheduleExpression: string; Target: { Arn: string; Input: string } };
      const at = Date.parse(`${/^at\((.+)\)$/.exec(body.ScheduleExpression)?.[1]}Z`);
      const event = JSON.parse(body.Target.Input) as unknown;
      const verdict = this.rule({ via: 'schedule', functionName: nameOf(body.Target.Arn), event });
      const dropped = verdict === 'drop';
      this.schedules.push({ name, expression: body.ScheduleExpression, dropped });
      if (!dropped) {
        const timer = setTimeout(
          () => {
            this.timers.delete(name);
            this.dispatch('schedule', nameOf(body.Target.Arn), body.Target.Arn, event, verdict);
          },
          Math.max(0, at - Date.now()),
        );
        this.timers.set(name, timer);
      }
      return {
        status: 200,
        body: JSON.stringify({ ScheduleArn: `arn:aws:scheduler:${REGION}:${ACCOUNT}:schedule/${name}` }),
      };
    }
    if (schedule && request.method === 'DELETE') {
      const name = schedule[1] as string;
      const timer = this.timers.get(name);
      if (!timer) return awsError(404, 'ResourceNotFoundException', `Schedule ${name} does not exist`);
      clearTimeout(timer);
      this.timers.delete(name);
      return { status: 200, body: '{}' };
    }
    return awsError(400, 'ValidationException', `unexpected ${request.method} ${request.path}`);
  }

  /** Delivers (unless the rule drops it; twice when it says so) without holding up the HTTP answer. */
  private dispatch(
    via: Delivery['via'],
    name: string,
    arn: string,
    event: unknown,
    verdict: ReturnType<DeliveryRule>,
  ): void {
    if (verdict === 'drop') return;
    for (let i = 0; i < (verdict === 'twice' ? 2 : 1); i++) {
      const requestId = randomUUID();
      setImmediate(() => void this.track(this.deliver(via, name, arn, event, requestId)));
    }
  }

  private track(work: Promise<void>): Promise<void> {
    this.inFlight.add(work);
    return work.finally(() => this.inFlight.delete(work));
  }

  private async deliver(via: Delivery['via'], name: string, arn: string, event: unknown, requestId: string) {
    const handler = this.functions.get(name);
    if (!handler) throw new Error(`no function ${name}`);
    const delivery: Delivery = { functionName: name, arn, via, event, requestId, attempts: 0 };
    this.deliveries.push(delivery);
    for (let attempt = 0; attempt < 3; attempt++) {
      delivery.attempts += 1;
      const deadline = Date.now() + BUDGET_MS;
      const context: LambdaContextLike = {
        functionName: name,
        invokedFunctionArn: arn,
        awsRequestId: requestId,
        getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
      };
      try {
        delivery.result = await handler(event, context);
        delete delivery.error;
        return;
      } catch (error) {
        // Lambda retries a failed asynchronous invocation twice, with the same request id.
        delivery.error = error;
      }
    }
  }
}

/** The function name of a name or (possibly qualified) ARN. */
function nameOf(target: string): string {
  return target.startsWith('arn:') ? (target.split(':')[6] as string) : (target.split(':')[0] as string);
}
