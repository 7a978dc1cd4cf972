/**
 * The always-on parts a stack's durable functions share (one table): one reconciler with its
 * schedule, schedule group and scheduler role, and one dead-letter queue for every wake-up of
 * every function (the schedules' events Scheduler gave up on and the wake-up queues' messages
 * delivered 5 times), with one alarm on it. What stays per function, for pinning and least
 * privilege: the wake-up queue feeding its own alias, its schedule group and scheduler role, its
 * roles and its failure queue. Each further function adds the same 18 resources and, at the
 * defaults, only its wake-up queue's polling to the month.
 */
import { join } from 'node:path';
import {
  type CloudFormationTemplate,
  DurableApi,
  DurableFunction,
  DurableTable,
  type FixedCostEstimate,
  fixedMonthlyCost,
  OWN_TABLE_WARNING,
} from '@durable-lambda/cdk';
import type { Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { arnOf, newStack, qualifiedArnOf, REPO_ROOT, resources, statementsOfRole } from './support';

const entry = join(REPO_ROOT, 'examples', 'checkout', 'handler.ts');

/** A stack of `n` durable functions sharing one table, and the control API serving them. */
function stackOf(n: number, props: { alarms?: boolean } = {}): { stack: Stack; functions: DurableFunction[] } {
  const stack = newStack('Shared');
  const table = new DurableTable(stack, 'Runs');
  const functions = Array.from(
    { length: n },
    (_, i) => new DurableFunction(stack, `Fn${i}`, { entry, table, ...props }),
  );
  new DurableApi(stack, 'Api', { functions });
  return { stack, functions };
}

const typeCounts = (template: Template) => {
  const counts: Record<string, number> = {};
  for (const r of Object.values(resources(template))) counts[r.Type] = (counts[r.Type] ?? 0) + 1;
  return counts;
};

describe('three durable functions of one table in a stack', () => {
  let stack: Stack;
  let functions: DurableFunction[];
  let template: Template;
  const idOf = (construct: { node: { defaultChild?: unknown } }) =>
    stack.getLogicalId(construct.node.defaultChild as never);

  beforeAll(() => {
    ({ stack, functions } = stackOf(3, { alarms: true }));
    template = Template.fromStack(stack);
  }, 120_000);

  it('share one reconciler: one function, one schedule, one schedule group and scheduler role of its own', () => {
    const all = Object.entries(resources(template));
    const reconcilers = all.filter(
      ([, r]) =>
        r.Type === 'AWS::Lambda::Function' && r.Properties?.Environment?.Variables?.DURABLE_RECONCILER_FUNCTIONS,
    );
    expect(reconcilers).toHaveLength(1);
    // Its 2-minute schedule, and (alarms on) the one stuck-runs watchdog's 5-minute one.
    const rules = all
      .filter(([, r]) => r.Type === 'AWS::Events::Rule')
      .map(([, r]) => r.Properties?.ScheduleExpression);
    expect(rules.sort()).toEqual(['rate(2 minutes)', 'rate(5 minutes)']);
    const watchdogs = all.filter(
      ([, r]) => r.Type === 'AWS::Lambda::Function' && r.Properties?.Environment?.Variables?.DURABLE_WATCHDOG_FUNCTIONS,
    );
    expect(watchdogs).toHaveLength(1);
    const [reconciler] = functions.map((f) => f.reconciler);
    for (const fn of functions) expect(fn.reconciler).toBe(reconciler);
    // Its group and role, and one per function (below): 4 of each.
    expect(typeCounts(template)['AWS::Scheduler::ScheduleGroup']).toBe(4);
  });

  it('send every dead-lettered wake-up to one queue, watched by one alarm', () => {
    const deadLetters = functions[0]?.reconciler.deadLetterQueue as sqs.Queue;
    const dlq = idOf(deadLetters);
    for (const fn of functions) {
      expect(fn.wakeQueue?.deadLetterQueue).toBe(deadLetters);
      const queue = resources(template)[idOf(fn.wakeQueue?.queue as sqs.Queue)]?.Properties;
      expect(queue?.RedrivePolicy).toEqual({ deadLetterTargetArn: arnOf(dlq), maxReceiveCount: 5 });
      const fnProps = resources(template)[idOf(fn.function)]?.Properties;
      expect(fnProps?.Environment.Variables.DURABLE_SCHEDULE_DLQ_ARN).toEqual(arnOf(dlq));
      expect(fn.alarms?.wakeUpsDeadLettered).toBe(fn.reconciler.alarms?.deadLetteredWakeUps);
    }
    // 3 wake-up queues, 3 failure queues, the one dead-letter queue.
    expect(typeCounts(template)['AWS::SQS::Queue']).toBe(7);
    const onDeadLetters = Object.values(resources(template)).filter(
      (r) => r.Type === 'AWS::CloudWatch::Alarm' && JSON.stringify(r.Properties).includes(`"${dlq}"`),
    );
    expect(onDeadLetters).toHaveLength(1);
    // Nothing may read or write it but its own redrive and the scheduler roles (TLS only).
    const policy = Object.values(resources(template)).find(
      (r) =>
        r.Type === 'AWS::SQS::QueuePolicy' && JSON.stringify(r.Properties?.Queues) === JSON.stringify([{ Ref: dlq }]),
    );
    expect(policy?.Properties?.PolicyDocument.Statement.map((s: { Effect: string }) => s.Effect)).toEqual(['Deny']);
  });

  it('keep a wake-up queue per function, feeding only that function’s alias, sent to only by its role', () => {
    const mappings = Object.values(resources(template)).filter((r) => r.Type === 'AWS::Lambda::EventSourceMapping');
    expect(mappings).toHaveLength(3);
    for (const fn of functions) {
      const queue = idOf(fn.wakeQueue?.queue as sqs.Queue);
      const mine = mappings.filter(
        (m) => JSON.stringify(m.Properties?.EventSourceArn) === JSON.stringify(arnOf(queue)),
      );
      expect(mine).toHaveLength(1);
      // The alias `live` of this function: runs woken where they are pinned (others handed on).
      expect(JSON.stringify(mine[0]?.Properties?.FunctionName)).toContain(JSON.stringify({ Ref: idOf(fn.alias) }));
      const sends = (statementsOfRole(template, idOf(fn.role)) as Array<{ Action: unknown; Resource: unknown }>)
        .filter((s) => s.Action === 'sqs:SendMessage')
        .map((s) => s.Resource);
      expect(sends).toEqual(expect.arrayContaining([arnOf(queue), arnOf(idOf(fn.failureQueue as sqs.Queue))]));
      expect(sends).toHaveLength(2);
    }
  });

  it('keep a schedule group and scheduler role per function: trusted for its group, invoking only its function', () => {
    for (const fn of functions) {
      const role = resources(template)[idOf(fn.schedulerRole as iam.Role)]?.Properties;
      expect(JSON.stringify(role?.AssumeRolePolicyDocument)).toContain(
        JSON.stringify({ 'Fn::GetAtt': [stack.getLogicalId(fn.scheduleGroup), 'Arn'] }),
      );
      const invokes = (
        statementsOfRole(template, idOf(fn.schedulerRole)) as Array<{ Action: unknown; Resource: unknown }>
      )
        .filter((s) => s.Action === 'lambda:InvokeFunction')
        .flatMap((s) => s.Resource as unknown[]);
      const target = idOf(fn.function as lambda.Function);
      expect(invokes).toEqual([arnOf(target), qualifiedArnOf(target)]);
    }
  });
});

describe('what each further function adds', () => {
  let templates: Record<number, Template>;
  let estimates: Record<number, FixedCostEstimate>;

  beforeAll(() => {
    templates = {};
    estimates = {};
    for (const n of [1, 2, 5]) {
      templates[n] = Template.fromStack(stackOf(n).stack);
      estimates[n] = fixedMonthlyCost(templates[n].toJSON() as CloudFormationTemplate);
    }
  }, 180_000);

  it('is 18 resources, none of them a reconciler, a schedule or a dead-letter queue', () => {
    const one = typeCounts(templates[1] as Template);
    const perFunction = {
      'AWS::Lambda::Function': 1,
      'AWS::Logs::LogGroup': 1,
      'AWS::IAM::Role': 2, // execution, scheduler
      'AWS::IAM::Policy': 3, // execution, invokes, scheduler
      'AWS::Scheduler::ScheduleGroup': 1,
      'AWS::SQS::Queue': 2, // wake-up queue, failure queue
      'AWS::SQS::QueuePolicy': 2, // TLS only
      'AWS::Lambda::EventSourceMapping': 1,
      'AWS::Lambda::Version': 1,
      'AWS::Lambda::Alias': 1,
      'AWS::Lambda::EventInvokeConfig': 3, // $LATEST, its version, its alias
    };
    expect(Object.values(perFunction).reduce((a, b) => a + b)).toBe(18);
    for (const n of [2, 5]) {
      const counts = typeCounts(templates[n] as Template);
      const added = Object.fromEntries(
        Object.keys({ ...one, ...counts })
          .map((type) => [type, (counts[type] ?? 0) - (one[type] ?? 0)] as const)
          .filter(([, d]) => d !== 0),
      );
      expect(added).toEqual(Object.fromEntries(Object.entries(perFunction).map(([t, c]) => [t, c * (n - 1)])));
    }
    console.log(
      `resources for 1, 2, 5 functions and the API: ${[1, 2, 5].map((n) => Object.keys(resources(templates[n] as Template)).length).join(', ')}`,
    );
  });

  it('costs, a month at the defaults, only its wake-up queue’s polling', () => {
    const one = estimates[1] as FixedCostEstimate;
    const polling = one.lines.filter((line) => line.item.startsWith('SQS event source'));
    expect(polling).toHaveLength(1);
    for (const n of [2, 5]) {
      const estimate = estimates[n] as FixedCostEstimate;
      expect(estimate.unknown).toEqual([]);
      expect(estimate.monthlyUsd - one.monthlyUsd).toBeCloseTo((n - 1) * (polling[0]?.monthlyUsd ?? 0), 6);
    }
    console.log(
      `fixed monthly cost for 1, 2, 5 functions and the API: ${[1, 2, 5].map((n) => `$${(estimates[n] as FixedCostEstimate).monthlyUsd.toFixed(2)}`).join(', ')}`,
    );
  });
});

describe('functions that each make a table of their own', () => {
  it('are warned of at synth (a reconciler per table), from the second on; one shared table is not', () => {
    const stack = newStack('Apart');
    new DurableFunction(stack, 'A', { entry });
    new DurableFunction(stack, 'B', { entry });
    new DurableFunction(stack, 'C', { entry, table: new DurableTable(stack, 'Runs') });
    const annotations = Annotations.fromStack(stack);
    const warnings = annotations.findWarning('*', Match.anyValue());
    expect(warnings.map((w) => w.id)).toEqual(['/Apart/B']);
    expect(String(warnings[0]?.entry.data)).toMatch(
      /^Apart\/B has a table of its own, as Apart\/A has: each table brings a reconciler of its own \(about \$0\.19 a month\).*one DurableTable/,
    );
    expect(String(warnings[0]?.entry.data)).toContain(`[ack: ${OWN_TABLE_WARNING}]`);
    // A reconciler per table: A's, B's, and the shared table's.
    const reconcilers = Object.values(resources(Template.fromStack(stack))).filter(
      (r) => r.Type === 'AWS::Lambda::Function' && r.Properties?.Environment?.Variables?.DURABLE_RECONCILER_FUNCTIONS,
    );
    expect(reconcilers).toHaveLength(3);

    const shared = stackOf(3).stack;
    expect(Annotations.fromStack(shared).findWarning('*', Match.anyValue())).toEqual([]);
  });
});
