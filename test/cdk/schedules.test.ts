/**
 * A DurableFunction's recurring schedules, synthesized with cdk-nag's AwsSolutions checks: one
 * EventBridge Scheduler schedule per entry, in the function's schedule group, targeting the alias
 * through its scheduler role (no new grant), whose input is the firing event the production
 * backend reads, with the fire time from Scheduler's context attribute; bad entries fail the synth.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isScheduleFiring, scheduleRunKey } from '@durable-lambda/aws';
import { DurableFunction, DurableTable } from '@durable-lambda/cdk';
import { Duration, Stack, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { arnOf, logicalId, newApp, newStack, REPO_ROOT, resources, statementsOfRole } from './support';

const entry = join(REPO_ROOT, 'examples', 'checkout', 'handler.ts');

let template: Template;
let outdir: string;
let withoutSchedules: unknown[];
beforeAll(() => {
  const app = newApp();
  const stack = new Stack(app, 'Schedules');
  const table = new DurableTable(stack, 'Runs');
  new DurableFunction(stack, 'Report', {
    entry,
    table,
    schedules: [
      { name: 'nightly', cron: '0 3 * * ? *', timezone: 'Europe/Paris', input: { kind: 'full' }, overlap: 'skip' },
      { name: 'every-5', rate: Duration.minutes(5), overlap: 'cancelPrevious', catchUp: false },
    ],
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  outdir = app.synth().directory;
  template = Template.fromStack(stack);
  const plain = newStack();
  new DurableFunction(plain, 'Report', { entry, table: new DurableTable(plain, 'Runs') });
  const t = Template.fromStack(plain);
  withoutSchedules = statementsOfRole(t, logicalId(t, 'AWS::IAM::Role', 'ReportSchedulerRole'));
}, 120_000);

const schedules = () =>
  Object.values(resources(template))
    .filter((r) => r.Type === 'AWS::Scheduler::Schedule')
    .map((r) => r.Properties as Record<string, any>);

describe('DurableFunction schedules', () => {
  it('cdk-nag finds nothing', () => {
    const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8')) as {
      pluginReports: Array<{ pluginName: string; conclusion: string; violations: unknown[] }>;
    };
    expect(report.pluginReports.map((r) => [r.pluginName, r.conclusion, r.violations])).toEqual([
      ['AwsSolutions', 'success', []],
    ]);
  });

  it('deploys one recurring schedule per entry in its group, targeting the alias, dead-lettering to the table queue', () => {
    const alias = logicalId(template, 'AWS::Lambda::Alias', 'ReportAlias');
    const group = logicalId(template, 'AWS::Scheduler::ScheduleGroup', 'ReportScheduleGroup');
    const role = logicalId(template, 'AWS::IAM::Role', 'ReportSchedulerRole');
    const dlq = logicalId(template, 'AWS::SQS::Queue', 'DurableReconciler');
    expect(schedules().map((s) => [s.ScheduleExpression, s.ScheduleExpressionTimezone])).toEqual([
      ['cron(0 3 * * ? *)', 'Europe/Paris'],
      ['rate(5 minutes)', undefined],
    ]);
    for (const s of schedules()) {
      expect(s).toMatchObject({
        GroupName: { Ref: group },
        FlexibleTimeWindow: { Mode: 'OFF' },
        State: 'ENABLED',
        Target: { Arn: { Ref: alias }, RoleArn: arnOf(role), DeadLetterConfig: { Arn: arnOf(dlq) } },
      });
    }
    // Catching up (the default) retries a missed firing for a day; not catching up, for a minute.
    expect(schedules().map((s) => s.Target.RetryPolicy)).toEqual([
      { MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 86_400 },
      { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 },
    ]);
  });

  it("delivers the firing event the backend reads, keyed by the schedule's name and Scheduler's fire time", () => {
    const [nightly, every5] = schedules().map((s) => s.Target.Input as string);
    expect(nightly).toContain('<aws.scheduler.scheduled-time>');
    const fired = JSON.parse((nightly as string).replace('<aws.scheduler.scheduled-time>', '2026-01-01T02:00:00Z'));
    expect(isScheduleFiring(fired)).toBe(true);
    expect(fired.durableLambda).toEqual({
      action: 'schedule',
      name: 'nightly',
      scheduledTime: '2026-01-01T02:00:00Z',
      overlap: 'skip',
      input: JSON.stringify({ kind: 'full' }),
    });
    expect(scheduleRunKey('report:live', fired.durableLambda.name, fired.durableLambda.scheduledTime)).toBe(
      'schedule:report:nightly:2026-01-01T02:00:00.000Z',
    );
    expect(JSON.parse(every5 as string).durableLambda).toMatchObject({ name: 'every-5', overlap: 'cancelPrevious' });
  });

  it('grants nothing new: the scheduler role invokes the function as it does for wake-ups', () => {
    const role = logicalId(template, 'AWS::IAM::Role', 'ReportSchedulerRole');
    expect(JSON.stringify(statementsOfRole(template, role)).replace(/[A-Fa-f0-9]{8,}/g, '')).toBe(
      JSON.stringify(withoutSchedules).replace(/[A-Fa-f0-9]{8,}/g, ''),
    );
  });

  it('refuses a bad entry, naming it', () => {
    const stack = newStack();
    const table = new DurableTable(stack, 'Runs');
    const bad = (schedule: Record<string, unknown>, message: RegExp) =>
      expect(
        () =>
          new DurableFunction(stack, `F${Math.random().toString(36).slice(2, 8)}`, {
            entry,
            table,
            schedules: [schedule as never],
          }),
      ).toThrow(message);
    bad({ name: 'x', cron: '0 3 * * *' }, /schedule "x": cron expression: "0 3 \* \* \*" needs six fields/);
    bad(
      { name: 'x', cron: '0 3 * * 1 *' },
      /schedule "x": cron dayOfMonth: exactly one of day-of-month and day-of-week must be \?/,
    );
    // The same parser as the dev server's: every field checked, not only the count.
    bad({ name: 'late', cron: '0 25 * * ? *' }, /schedule "late": cron hours: 25 is out of range 0-23/);
    bad({ name: 'x', cron: '0 3 ? * MON/2 *' }, /cron dayOfWeek: \/ is not allowed here/);
    bad({ name: 'x', cron: '0 3 ? * 2#6 *' }, /cron dayOfWeek: "2#6": <day>#<n> needs n from 1 to 5/);
    bad({ name: 'x', cron: '0 3 * * ? 1969' }, /cron year: 1969 is out of range 1970-2199/);
    bad(
      { name: 'x', cron: '0 3 * * ? *', timezone: 'Mars/Olympus' },
      /timezone "Mars\/Olympus" is not an IANA time zone/,
    );
    bad({ name: 'x', rate: Duration.seconds(30) }, /whole minutes/);
    bad({ name: 'x' }, /exactly one of cron and rate/);
    bad({ name: 'no spaces', rate: Duration.minutes(1) }, /name must be/);
    bad({ name: 'x', rate: Duration.minutes(1), overlap: 'sometimes' }, /overlap must be one of/);
  });
});
