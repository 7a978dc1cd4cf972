import type { CreateScheduleCommandInput } from '@aws-sdk/client-scheduler';
import { type Clock, type Invoker, systemClock, type WakeRequest, type Waker, wakeEvent } from '@durable-lambda/engine';
import { countConsumed } from './invocation-meter';
import { type SchedulerCommand, type SdkClientLike, schedulerSdk } from './lazy-aws-sdk-clients';
import { atExpression, SCHEDULE_NAME_PATTERN, scheduleClientToken, scheduleName } from './schedule-names';
import { timedWakeEvent } from './wake-queue-events';
import { HOP_COST, scheduleCost } from './wake-up-cost';

/** Options of a {@link SchedulerWaker}. */
export interface SchedulerWakerOptions {
  /**
   * The EventBridge Scheduler client: a `SchedulerClient`, or one built at its first call
   * (`lazySchedulerClient`). The SDK's commands are loaded at the first schedule, not at import.
   */
  client: SdkClientLike<SchedulerCommand>;
  /** The schedule group the one-time schedules are created in. */
  groupName: string;
  /**
   * The role EventBridge Scheduler assumes to invoke the target (needs `lambda:InvokeFunction`,
   * and `sqs:SendMessage` on `deadLetterArn` when one is given).
   */
  roleArn: string;
  /**
   * The SQS queue a schedule sends its event to once every delivery attempt failed. Without it,
   * Scheduler drops such an event; either way the run stays due and the reconciler wakes it.
   */
  deadLetterArn?: string;
  /** The Lambda ARN a wake-up of `functionName` targets. */
  targetArn(functionName: string): string;
  /** Sends the wake-ups that are due now (an asynchronous Lambda invoke). */
  invoker: Invoker;
  /** Default: the system clock. */
  clock?: Clock;
  /**
   * Wake-ups due within this many ms go through the invoker instead of a schedule (after a
   * short in-process sleep until they are due). Default 2000.
   */
  immediateWithinMs?: number;
  /** How the waker sleeps until a wake-up due within `immediateWithinMs` is due. Default: a timer. */
  sleep?(ms: number): Promise<void>;
}

/**
 * How long a schedule keeps retrying a failed invoke: the most the Scheduler API accepts
 * (`MaximumEventAgeInSeconds` 60-86400, `MaximumRetryAttempts` 0-185), so a throttled or briefly
 * unavailable target is retried for a whole day before the event goes to the dead-letter queue.
 */
export const SCHEDULE_RETRY_POLICY = { MaximumEventAgeInSeconds: 86_400, MaximumRetryAttempts: 185 } as const;

/**
 * The {@link Waker} of the production backend. A wake-up due now, or within `immediateWithinMs`,
 * is sent at once through the invoker (EventBridge Scheduler cannot schedule in the past); a
 * later one becomes a one-time EventBridge Scheduler schedule `at(...)` that invokes the target
 * Lambda asynchronously with the wake event and deletes itself after it ran.
 *
 * Every schedule retries a failed delivery for up to a day ({@link SCHEDULE_RETRY_POLICY}) and
 * then sends the event to `deadLetterArn`, when given; the run it was for stays due in the store,
 * so the reconciler wakes it whether or not the event arrived.
 *
 * Schedules are named after the run, the reason and the scheduled second
 * ({@link scheduleName}), so asking for the same wake-up twice is harmless: the duplicate's
 * `ConflictException` counts as success.
 *
 * Latency: the scheduled time is rounded up to the next whole second, and Scheduler fires
 * one-time schedules up to about 60 s late. Short waits are better slept in-process: the SDK's
 * `inProcessWaitMs` (default 5 s) keeps waits due that soon inside the invocation.
 */
export class SchedulerWaker implements Waker {
  private readonly client: SdkClientLike<SchedulerCommand>;
  private readonly groupName: string;
  private readonly roleArn: string;
  private readonly deadLetterArn: string | undefined;
  private readonly targetArn: (functionName: string) => string;
  private readonly invoker: Invoker;
  private readonly clock: Clock;
  private readonly immediateWithinMs: number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(options: SchedulerWakerOptions) {
    if (!SCHEDULE_NAME_PATTERN.test(options.groupName)) {
      throw new TypeError(`groupName must be 1-64 of [0-9a-zA-Z-_.], got ${JSON.stringify(options.groupName)}`);
    }
    const immediateWithinMs = options.immediateWithinMs ?? 2_000;
    if (!Number.isFinite(immediateWithinMs) || immediateWithinMs < 0) {
      throw new TypeError(`immediateWithinMs must be a non-negative number, got ${immediateWithinMs}`);
    }
    this.client = options.client;
    this.groupName = options.groupName;
    this.roleArn = options.roleArn;
    this.deadLetterArn = options.deadLetterArn;
    this.targetArn = (functionName) => options.targetArn(functionName);
    this.invoker = options.invoker;
    this.clock = options.clock ?? systemClock;
    this.immediateWithinMs = immediateWithinMs;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /**
   * Wakes the run at `request.at`: at once through the invoker, or by a one-time schedule. With
   * `leadMs` (the final short hop of `OnTimeWaker`), the schedule fires that long ahead of the due
   * time and delivers a `TimedWakeEvent`, which the function re-arms for the rest by SQS.
   */
  async wakeAt(request: WakeRequest, options: { leadMs?: number } = {}): Promise<void> {
    const delay = request.at - this.clock.now();
    if (delay <= this.immediateWithinMs) {
      // Never early: an invocation that finds nothing due yet exits without arranging another wake-up.
      if (delay > 0) await this.sleep(delay);
      await this.invoker.invoke(request.functionName, wakeEvent(request.runId));
      return;
    }
    // A lead that would fire at once is no use: the schedule is then at the due time itself.
    const leadMs = Math.max(0, options.leadMs ?? 0);
    const lead = delay - leadMs > this.immediateWithinMs ? leadMs : 0;
    const { CreateScheduleCommand } = await schedulerSdk();
    try {
      await this.client.send(new CreateScheduleCommand(this.scheduleInput(request, lead)));
      // For the run meter: the schedule, and with a lead the hop it fires (see wake-up-cost.ts).
      countConsumed(scheduleCost(request));
      if (lead > 0) countConsumed(HOP_COST);
    } catch (error) {
      // The same wake-up was asked for before: its schedule exists (counted when it was created).
      if (errorName(error) !== 'ConflictException') throw error;
      countConsumed({ schedulerRequests: 1 });
    }
  }

  /**
   * Deletes the schedule a {@link wakeAt} with the same request created, for a wake-up that is
   * no longer needed (for example the lease safety wake-up after a clean close). A schedule that
   * is gone already (it fired, or never existed) counts as success.
   */
  async cancel(request: WakeRequest): Promise<void> {
    const { DeleteScheduleCommand } = await schedulerSdk();
    try {
      await this.client.send(new DeleteScheduleCommand({ Name: scheduleName(request), GroupName: this.groupName }));
    } catch (error) {
      if (errorName(error) !== 'ResourceNotFoundException') throw error;
    }
  }

  /**
   * The `CreateSchedule` request of a wake-up; with `leadMs`, firing that long before the due
   * time with a `TimedWakeEvent`. The name is the wake-up's either way (its due second), so
   * {@link cancel} of the same request finds it.
   */
  scheduleInput(request: WakeRequest, leadMs = 0): CreateScheduleCommandInput {
    const name = scheduleName(request);
    const event = leadMs > 0 ? timedWakeEvent(request) : wakeEvent(request.runId);
    return {
      Name: name,
      GroupName: this.groupName,
      ClientToken: scheduleClientToken(this.groupName, name),
      ScheduleExpression: atExpression(request.at - leadMs),
      ScheduleExpressionTimezone: 'UTC',
      FlexibleTimeWindow: { Mode: 'OFF' },
      ActionAfterCompletion: 'DELETE',
      State: 'ENABLED',
      Target: {
        Arn: this.targetArn(request.functionName),
        RoleArn: this.roleArn,
        Input: JSON.stringify(event),
        RetryPolicy: { ...SCHEDULE_RETRY_POLICY },
        ...(this.deadLetterArn === undefined ? {} : { DeadLetterConfig: { Arn: this.deadLetterArn } }),
      },
    };
  }
}

function errorName(error: unknown): string | undefined {
  return (error as { name?: unknown } | null)?.name as string | undefined;
}
