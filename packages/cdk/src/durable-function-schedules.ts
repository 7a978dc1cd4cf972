import { CronError, isTimeZone, type OverlapPolicy, parseCron } from '@durable-lambda/engine';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import type { Duration } from 'aws-cdk-lib/core';
import { Construct } from 'constructs';

/** The overlap policies a {@link DurableSchedule} accepts (the runtime's `OVERLAP_POLICIES`). */
export const SCHEDULE_OVERLAPS: readonly OverlapPolicy[] = ['skip', 'bufferOne', 'allowAll', 'cancelPrevious'];

/** A JSON value: a schedule's run input. */
export type ScheduleInput = string | number | boolean | null | ScheduleInput[] | { [key: string]: ScheduleInput };

/**
 * A recurring schedule of a durable function: each firing starts one run, keyed by the schedule's
 * name and the firing's time (a duplicate firing is the same run), with `input` as its input.
 * Exactly one of `cron` and `rate`.
 */
export interface DurableSchedule {
  /** Unique in the function: 1-64 of `A-Z a-z 0-9 - _ .`. Part of every run key. */
  readonly name: string;
  /** EventBridge Scheduler's six cron fields, e.g. `0 3 * * ? *` (minutes hours day month weekday year). */
  readonly cron?: string;
  /** Every this long: whole minutes, at least one. */
  readonly rate?: Duration;
  /** The IANA time zone `cron` is read in. Default UTC. */
  readonly timezone?: string;
  /** The input of every run it starts. Default none. */
  readonly input?: ScheduleInput;
  /** What a firing does while the schedule's previous run still runs. Default `skip`. */
  readonly overlap?: OverlapPolicy;
  /**
   * After downtime (the function throttled or failing), deliver each missed firing when it can,
   * for up to 24 hours (`true`, the default), or drop a firing not delivered within a minute to
   * the dead-letter queue (`false`: the next firing runs on time, the missed one does not run).
   */
  readonly catchUp?: boolean;
}

/** What {@link addSchedules} needs of the function. */
export interface ScheduleWiring {
  /** The alias runs start on (or the function, with `pinning: latest`). */
  readonly target: lambda.IFunction;
  /** The function's schedule group (its scheduler role is trusted for this group only). */
  readonly group: scheduler.CfnScheduleGroup;
  /** The role Scheduler assumes: it may invoke the function and its aliases already. */
  readonly role: iam.IRole;
  /** Where Scheduler sends a firing it could not deliver (the table reconciler's dead-letter queue). */
  readonly deadLetterArn: string;
}

const NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** The Scheduler expression of `schedule`, checked (a bad one fails the synth naming it). */
export function scheduleExpression(path: string, schedule: DurableSchedule): string {
  const where = `${path}: schedule ${JSON.stringify(schedule.name)}`;
  if (!NAME.test(schedule.name)) throw new Error(`${where}: name must be 1-64 of A-Z a-z 0-9 - _ .`);
  if ((schedule.cron === undefined) === (schedule.rate === undefined)) {
    throw new Error(`${where}: give exactly one of cron and rate`);
  }
  if (schedule.overlap !== undefined && !SCHEDULE_OVERLAPS.includes(schedule.overlap)) {
    throw new Error(`${where}: overlap must be one of ${SCHEDULE_OVERLAPS.join(', ')}`);
  }
  if (schedule.timezone !== undefined && !isTimeZone(schedule.timezone)) {
    throw new Error(`${where}: timezone ${JSON.stringify(schedule.timezone)} is not an IANA time zone`);
  }
  if (schedule.cron !== undefined) {
    // The parser the dev server fires with: what synthesizes here fires the same way locally.
    try {
      return `cron(${parseCron(schedule.cron).source})`;
    } catch (error) {
      if (error instanceof CronError) throw new Error(`${where}: ${error.message}`, { cause: error });
      throw error;
    }
  }
  const minutes = (schedule.rate as Duration).toSeconds() / 60;
  if (!Number.isInteger(minutes) || minutes < 1) throw new Error(`${where}: rate must be whole minutes, at least one`);
  return `rate(${minutes} ${minutes === 1 ? 'minute' : 'minutes'})`;
}

/**
 * The firing event a schedule's target delivers: what the production backend's `ScheduleReceiver`
 * reads (`ScheduleFiringEvent`), the fire time filled in by Scheduler's
 * `<aws.scheduler.scheduled-time>` context attribute.
 */
export function firingInput(schedule: DurableSchedule): string {
  return JSON.stringify({
    durableLambda: {
      action: 'schedule',
      name: schedule.name,
      scheduledTime: '<aws.scheduler.scheduled-time>',
      overlap: schedule.overlap ?? 'skip',
      ...(schedule.input === undefined ? {} : { input: JSON.stringify(schedule.input) }),
    },
  });
}

/**
 * One EventBridge Scheduler recurring schedule per entry, in the function's schedule group,
 * targeting the alias through the function's scheduler role (which may invoke it already: no new
 * grant), with Scheduler's retries and the table's dead-letter queue for a firing it cannot deliver.
 */
export function addSchedules(
  scope: Construct,
  path: string,
  schedules: readonly DurableSchedule[],
  wiring: ScheduleWiring,
): scheduler.CfnSchedule[] {
  const names = new Set<string>();
  return schedules.map((schedule, i) => {
    const expression = scheduleExpression(path, schedule);
    if (names.has(schedule.name)) throw new Error(`${path}: two schedules named ${JSON.stringify(schedule.name)}`);
    names.add(schedule.name);
    return new scheduler.CfnSchedule(new Construct(scope, `Schedule${i}`), 'Schedule', {
      groupName: wiring.group.ref,
      description: `durable-lambda: schedule ${schedule.name}, one run per firing`,
      scheduleExpression: expression,
      ...(schedule.timezone ? { scheduleExpressionTimezone: schedule.timezone } : {}),
      flexibleTimeWindow: { mode: 'OFF' },
      state: 'ENABLED',
      target: {
        arn: wiring.target.functionArn,
        roleArn: wiring.role.roleArn,
        input: firingInput(schedule),
        // Scheduler's limits: 60 s to 24 h of age, 0 to 185 retries.
        retryPolicy:
          schedule.catchUp === false
            ? { maximumRetryAttempts: 0, maximumEventAgeInSeconds: 60 }
            : { maximumRetryAttempts: 185, maximumEventAgeInSeconds: 86_400 },
        deadLetterConfig: { arn: wiring.deadLetterArn },
      },
    });
  });
}
