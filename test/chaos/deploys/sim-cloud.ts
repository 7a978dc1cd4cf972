/**
 * The AWS services a deployed durable function meets, simulated in virtual time for the deploy
 * world: Lambda (published versions, the `live` alias moving at each deploy, `$LATEST` holding the
 * newest code, versions deleted; asynchronous invokes queued, retried twice when they fail,
 * sometimes delivered twice or never), the function's SQS wake-up queue (delays, early, late,
 * duplicate and lost messages, redelivery after the visibility timeout, a dead-letter queue) and
 * EventBridge Scheduler (one-time schedules firing up to a minute late, retried, deleted).
 *
 * The production backend reaches them through its SDK clients (`ProductionParts`): the fake
 * clients here read each command's name and input, exactly what the real ones would send.
 */
import type { LambdaContextLike } from '@durable-lambda/protocol';
import {
  ACCOUNT,
  awsError,
  type CloudFaults,
  type Container,
  type FaultTally,
  ProcessKilled,
  parseArn,
  REGION,
  type SimFunction,
  unqualifiedArn,
} from './sim-functions';
import type { Dice, SimTime } from './sim-time';

/** An AWS SDK command as a client's `send` receives it: its class name and input. */
type SdkCommand = { input: object; constructor: { name: string } };

/** A fake client: sends any command of its service, answers as the service would. */
export interface FakeClient {
  send(command: never): Promise<unknown>;
  readonly config: { region(): Promise<string> };
}

const config = { region: async () => REGION };

/** Lambda, SQS and Scheduler of one world. */
export class SimCloud {
  readonly functions = new Map<string, SimFunction>();
  readonly faults: FaultTally = {};
  /** Every invocation started, with what it ran on. */
  readonly invocations: Array<{ container: Container; via: string; at: number }> = [];
  /** Invocations that threw (not counting injected kills), by message. */
  readonly invocationErrors: string[] = [];
  private readonly schedules = new Map<string, { fireAt: number; arn: string; input: string }>();
  private messageSeq = 0;
  /** The qualifier the wake-up queue's event source invokes (`live`, or undefined: `$LATEST`). */
  queueTarget: { functionName: string; qualifier?: string } | undefined;
  /** The start event of each run started by an invoke (by run id), to deliver again. */
  readonly startEvents = new Map<string, { arn: string; payload: unknown; requestId: string }>();
  /** A scripted scenario's choice of asynchronous events to lose (true: dropped). */
  dropWhen: ((arn: string, payload: unknown) => boolean) | undefined;

  /** Delivers a run's start event again now (same request id, its qualifier resolved now). */
  async deliverStartAgain(runId: string): Promise<void> {
    const start = this.startEvents.get(runId);
    if (!start) throw new Error(`no start event of run ${runId}`);
    await this.run(start.arn, start.payload, start.requestId, 'start again');
  }

  constructor(
    private readonly time: SimTime,
    private readonly dice: Dice,
    private readonly rates: CloudFaults,
    /** Errors that are injected faults (kills), not worth reporting. */
    private readonly injected: (error: unknown) => boolean,
  ) {}

  add(fn: SimFunction): void {
    this.functions.set(fn.name, fn);
  }

  private count(kind: string): void {
    this.faults[kind] = (this.faults[kind] ?? 0) + 1;
  }

  /** Whether a call throws before it happens (`throttle`) or after (`lost`): decided once a call. */
  private callFault(): 'throttle' | 'lost' | undefined {
    if (this.dice.chance(this.rates.throttle)) {
      this.count('throttled call');
      return 'throttle';
    }
    if (this.dice.chance(this.rates.lostResponse)) {
      this.count('lost response');
      return 'lost';
    }
    return undefined;
  }

  // --- Lambda -------------------------------------------------------------------------------

  /**
   * `Invoke` with `InvocationType: Event`: checks the target exists (a deleted version is
   * `ResourceNotFoundException`), queues the event. `source` names who sent it (for faults: only
   * wake-ups are ever dropped).
   */
  invokeAsync(arn: string, payload: unknown, options: { requestId?: string; droppable?: boolean } = {}): void {
    const { name, qualifier } = parseArn(arn);
    const fn = this.functions.get(name);
    if (!fn?.resolve(qualifier)) throw awsError('ResourceNotFoundException', `Function not found: ${arn}`);
    const requestId = options.requestId ?? `req-${this.time.now()}-${this.messageSeq++}`;
    const scripted = this.dropWhen?.(arn, payload) === true;
    if (scripted || (options.droppable !== false && this.dice.chance(this.rates.eventDropped))) {
      this.count('event dropped');
      return;
    }
    this.time.after(this.dice.between(20, 400), `invoke ${arn}`, () => this.deliverAsync(arn, payload, requestId, 0));
    if (this.dice.chance(this.rates.eventTwice)) {
      this.count('event delivered twice');
      // Lambda's asynchronous queue may deliver an event again, much later: after a deploy, say.
      const later = this.dice.chance(0.5) ? this.dice.between(1_000, 60_000) : this.dice.between(60_000, 2 * 3_600_000);
      this.time.after(later, `invoke again ${arn}`, () => this.deliverAsync(arn, payload, requestId, 0));
    }
  }

  /**
   * Before a wake-up of `runId` is delivered, maybe an event of the run delivered again: its start
   * event, or the wake-up itself through the alias (both resolved now: after a deploy, the new code).
   */
  private async beforeWake(functionName: string, runId: string | undefined): Promise<void> {
    if (runId === undefined) return;
    const start = this.startEvents.get(runId);
    if (start && this.dice.chance(this.rates.startAgainAtWake)) {
      this.count('start event again at a wake-up');
      await this.run(start.arn, start.payload, start.requestId, 'start again');
    }
    const fn = this.functions.get(functionName);
    if (fn?.aliases.has('live') && this.dice.chance(this.rates.wakeThroughAlias)) {
      this.count('wake-up again through the alias');
      const wake = { durableLambda: { action: 'wake', runId } };
      await this.run(`${unqualifiedArn(functionName)}:live`, wake, `alias-${this.messageSeq++}`, 'wake via alias');
    }
  }

  /** One asynchronous delivery: run, and on failure retry twice (after 1 and 2 minutes). */
  private async deliverAsync(arn: string, payload: unknown, requestId: string, attempt: number): Promise<void> {
    if (attempt === 0) await this.beforeWake(parseArn(arn).name, wakeRunId(payload));
    const { failed } = await this.run(arn, payload, requestId, `async#${attempt}`);
    if (failed && attempt < 2) {
      this.time.after((attempt + 1) * 60_000, `retry ${arn}`, () =>
        this.deliverAsync(arn, payload, requestId, attempt + 1),
      );
    }
  }

  /** Runs one invocation of `arn` (its qualifier resolved now): whether it failed, and its answer. */
  private async run(
    arn: string,
    payload: unknown,
    requestId: string,
    via: string,
  ): Promise<{ failed: boolean; answer?: unknown }> {
    const { name, qualifier } = parseArn(arn);
    const fn = this.functions.get(name);
    const container = fn?.resolve(qualifier);
    if (!fn || !container) return { failed: true }; // the version was deleted since: the event fails
    this.invocations.push({ container, via, at: this.time.now() });
    const deadline = this.time.now() + 15 * 60_000;
    const context: LambdaContextLike = {
      awsRequestId: requestId,
      functionName: name,
      invokedFunctionArn: container.arn,
      functionVersion: container.version,
      getRemainingTimeInMillis: () => Math.max(0, deadline - this.time.now()),
    };
    try {
      return { failed: false, answer: await fn.handler(payload, context, container) };
    } catch (error) {
      if (!this.injected(error)) {
        this.invocationErrors.push(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
      }
      return { failed: true };
    }
  }

  /** A fake `LambdaClient`: `Invoke` (asynchronous) only. `alive` false: the caller's process died. */
  lambdaClient(alive: () => boolean = () => true): FakeClient {
    return {
      config,
      send: async (command: SdkCommand): Promise<unknown> => {
        if (!alive()) throw new ProcessKilled();
        const input = command.input as { FunctionName: string; InvocationType?: string; Payload?: Uint8Array };
        if (command.constructor.name !== 'InvokeCommand' || input.InvocationType !== 'Event') {
          throw awsError('ValidationException', `unexpected ${command.constructor.name}`);
        }
        const fault = this.callFault();
        if (fault === 'throttle') throw awsError('TooManyRequestsException', 'Rate exceeded');
        const payload = JSON.parse(new TextDecoder().decode(input.Payload)) as unknown;
        this.invokeAsync(input.FunctionName, payload);
        if (fault === 'lost') throw awsError('TimeoutError', 'socket hang up');
        return { StatusCode: 202 };
      },
    };
  }

  // --- SQS ----------------------------------------------------------------------------------

  /** A fake `SQSClient`: `SendMessage` to the wake-up queue. */
  sqsClient(alive: () => boolean = () => true): FakeClient {
    return {
      config,
      send: async (command: SdkCommand): Promise<unknown> => {
        if (!alive()) throw new ProcessKilled();
        const input = command.input as { MessageBody: string; DelaySeconds?: number };
        if (command.constructor.name !== 'SendMessageCommand') {
          throw awsError('InvalidAction', `unexpected ${command.constructor.name}`);
        }
        const delay = input.DelaySeconds ?? 0;
        if (!(Number.isInteger(delay) && delay >= 0 && delay <= 900)) {
          throw awsError('InvalidParameterValue', `DelaySeconds ${delay}`);
        }
        const fault = this.callFault();
        if (fault === 'throttle') throw awsError('ThrottlingException', 'Rate exceeded');
        this.enqueue(input.MessageBody, delay * 1_000);
        if (fault === 'lost') throw awsError('TimeoutError', 'socket hang up');
        return { MessageId: `m${this.messageSeq}` };
      },
    };
  }

  private enqueue(body: string, delayMs: number): void {
    const id = `m${this.messageSeq++}`;
    if (this.dice.chance(this.rates.messageLost)) {
      this.count('message lost');
      return;
    }
    // The event source polls: a message is seen up to a second after it becomes visible.
    let at = delayMs + this.dice.between(0, 1_000);
    if (this.dice.chance(this.rates.messageEarly)) {
      this.count('message early');
      at = Math.max(0, delayMs - this.dice.between(500, 8_000));
    } else if (this.dice.chance(this.rates.messageLate)) {
      this.count('message late');
      at += this.dice.between(1_000, 180_000);
    }
    const message = { id, body, receives: 0 };
    this.time.after(at, `message ${id}`, () => this.receive(message));
    if (this.dice.chance(this.rates.messageTwice)) {
      this.count('message twice');
      this.time.after(at + this.dice.between(0, 30_000), `message ${id} again`, () => this.receive(message));
    }
  }

  /**
   * The event source's delivery of one message (batch size 1): an answer naming it, or a failed
   * invocation, makes it visible again after the visibility timeout (the function's 15 minutes plus
   * 60 s); the fifth receive that fails dead-letters it.
   */
  private async receive(message: { id: string; body: string; receives: number }): Promise<void> {
    const target = this.queueTarget;
    if (!target) return;
    message.receives += 1;
    const arn =
      target.qualifier === undefined
        ? unqualifiedArn(target.functionName)
        : `${unqualifiedArn(target.functionName)}:${target.qualifier}`;
    if (message.receives === 1) await this.beforeWake(target.functionName, wakeRunId(JSON.parse(message.body)));
    const event = { Records: [{ messageId: message.id, body: message.body, eventSource: 'aws:sqs' }] };
    const { failed, answer } = await this.run(arn, event, `sqs-${message.id}-${message.receives}`, 'sqs');
    const failures = (answer as { batchItemFailures?: unknown[] } | undefined)?.batchItemFailures;
    const again = failed || (failures?.length ?? 0) > 0;
    if (!again) return;
    if (message.receives >= 5) {
      this.count('message dead-lettered');
      return;
    }
    this.time.after(16 * 60_000, `message ${message.id} visible again`, () => this.receive(message));
  }

  // --- Scheduler ----------------------------------------------------------------------------

  /** A fake `SchedulerClient`: one-time schedules, created and deleted. */
  schedulerClient(alive: () => boolean = () => true): FakeClient {
    return {
      config,
      send: async (command: SdkCommand): Promise<unknown> => {
        if (!alive()) throw new ProcessKilled();
        const fault = this.callFault();
        if (fault === 'throttle') throw awsError('ThrottlingException', 'Rate exceeded');
        const answer = this.schedule(command);
        if (fault === 'lost') throw awsError('TimeoutError', 'socket hang up');
        return answer;
      },
    };
  }

  private schedule(command: SdkCommand): unknown {
    const input = command.input as {
      Name: string;
      ScheduleExpression?: string;
      Target?: { Arn: string; Input: string };
    };
    if (command.constructor.name === 'DeleteScheduleCommand') {
      if (!this.schedules.delete(input.Name)) throw awsError('ResourceNotFoundException', `no schedule ${input.Name}`);
      return {};
    }
    if (command.constructor.name !== 'CreateScheduleCommand' || !input.Target || !input.ScheduleExpression) {
      throw awsError('ValidationException', `unexpected ${command.constructor.name}`);
    }
    if (this.schedules.has(input.Name)) throw awsError('ConflictException', `schedule ${input.Name} exists`);
    const at = Date.parse(`${/^at\((.+)\)$/.exec(input.ScheduleExpression)?.[1]}Z`);
    // One-time schedules fire within the minute after their time; sometimes minutes later.
    let fireAt = Math.max(at, this.time.now()) + this.dice.between(0, 60_000);
    if (this.dice.chance(this.rates.scheduleLate)) {
      this.count('schedule late');
      fireAt += this.dice.between(60_000, 10 * 60_000);
    }
    const schedule = { fireAt, arn: input.Target.Arn, input: input.Target.Input };
    this.schedules.set(input.Name, schedule);
    this.time.at(fireAt, `schedule ${input.Name}`, async () => {
      if (this.schedules.get(input.Name) !== schedule) return; // deleted, or replaced
      this.schedules.delete(input.Name);
      this.fire(schedule.arn, JSON.parse(schedule.input) as unknown, 0);
    });
    return { ScheduleArn: `arn:aws:scheduler:${REGION}:${ACCOUNT}:schedule/${input.Name}` };
  }

  /** A schedule's invoke, retried while its target cannot be invoked (a few times here, then dropped). */
  private fire(arn: string, payload: unknown, attempt: number): void {
    try {
      this.invokeAsync(arn, payload);
    } catch {
      if (attempt < 3)
        this.time.after(5 * 60_000, `schedule retry ${arn}`, async () => this.fire(arn, payload, attempt + 1));
      else this.count('schedule event dead-lettered');
    }
  }
}

/** The run a wake-up event is for, if it is one. */
function wakeRunId(payload: unknown): string | undefined {
  const d = (payload as { durableLambda?: { action?: unknown; runId?: unknown } } | null)?.durableLambda;
  return d?.action === 'wake' && typeof d.runId === 'string' ? d.runId : undefined;
}
