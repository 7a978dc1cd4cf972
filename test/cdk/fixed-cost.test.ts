/**
 * The fixed monthly cost of a DurableFunction: its default stack (synthesized) holds nothing that
 * costs a month beyond what `fixedMonthlyCost` prices — no alarm, no custom metric, no KMS key, no
 * watchdog, no resource type the model does not know — and what the opt-ins add (alarms, custom
 * metrics, the watchdog, a shorter reconciler period) is what the model counts, metric by metric
 * as the runtime publishes them.
 */
import { RECONCILER_METRIC } from '@durable-lambda/aws';
import {
  type CloudFormationTemplate,
  DurableFunction,
  type FixedCostEstimate,
  FREE_RESOURCE_TYPES,
  fixedMonthlyCost,
  METRIC,
  RECONCILER_METRIC_NAMES,
  RUN_METRIC_NAMES,
} from '@durable-lambda/cdk';
import type { DurableBackend, OpenedInvocation } from '@durable-lambda/protocol';
import { Duration } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { withRunMetrics } from '../../packages/cdk/src/runtime/run-metrics';
import { newStack, REPO_ROOT, resources } from './support';

const entry = `${REPO_ROOT}/examples/checkout/handler.ts`;

/** The template of a stack holding one DurableFunction with `props`. */
function synth(props: Partial<ConstructorParameters<typeof DurableFunction>[2]> = {}): Template {
  const stack = newStack('Cost');
  new DurableFunction(stack, 'Checkout', { entry, ...props });
  return Template.fromStack(stack);
}

const ofType = (template: Template, type: string) =>
  Object.entries(resources(template)).filter(([, r]) => r.Type === type);

/** Alarm metrics of the template, read straight from it: one per alarm on a metric, one per metric read by a math alarm. */
function alarmMetricsIn(template: Template): number {
  return ofType(template, 'AWS::CloudWatch::Alarm').reduce((sum, [, r]) => {
    const metrics = (r.Properties?.Metrics ?? []) as Array<{ MetricStat?: unknown }>;
    return sum + (r.Properties?.MetricName ? 1 : metrics.filter((m) => m.MetricStat).length);
  }, 0);
}

const linesFor = (estimate: FixedCostEstimate, logicalId: string) =>
  estimate.lines.filter((line) => line.logicalIds.includes(logicalId));

describe('fixed monthly cost, a DurableFunction at its defaults', () => {
  let template: Template;
  let estimate: FixedCostEstimate;

  beforeAll(() => {
    template = synth();
    estimate = fixedMonthlyCost(template.toJSON() as CloudFormationTemplate);
  }, 60_000);

  it('has no alarm, no custom metric, no KMS key, no watchdog', () => {
    expect(ofType(template, 'AWS::CloudWatch::Alarm')).toEqual([]);
    expect(ofType(template, 'AWS::KMS::Key')).toEqual([]);
    const functions = ofType(template, 'AWS::Lambda::Function');
    // The function and the table's reconciler; no watchdog.
    expect(functions).toHaveLength(2);
    for (const [id, fn] of functions) {
      const variables = fn.Properties?.Environment?.Variables ?? {};
      expect(variables.DURABLE_WATCHDOG_FUNCTIONS, id).toBeUndefined();
      expect([undefined, 'off'], id).toContain(variables.DURABLE_CUSTOM_METRICS);
    }
    // The table under the AWS managed key (no key of its own to pay for); SQS queues SQS-managed.
    template.hasResourceProperties('AWS::DynamoDB::Table', { SSESpecification: { SSEEnabled: true } });
    for (const [id, queue] of ofType(template, 'AWS::SQS::Queue')) {
      expect(queue.Properties?.SqsManagedSseEnabled, id).toBe(true);
      expect(queue.Properties?.KmsMasterKeyId, id).toBeUndefined();
    }
    expect([estimate.alarmMetrics, estimate.customMetrics, estimate.kmsKeys]).toEqual([0, 0, 0]);
  });

  it('knows every resource of the stack, and prices every one that runs while nothing else does', () => {
    expect(estimate.unknown).toEqual([]);
    for (const [id, r] of Object.entries(resources(template))) {
      expect(linesFor(estimate, id).length, `${id} (${r.Type})`).toBeGreaterThan(0);
    }
    // What runs at rest, each on a line with a price: the reconciler on its schedule, the wake-up
    // queue's event source, the table (and its KMS requests).
    const [rule] = ofType(template, 'AWS::Events::Rule');
    expect(rule?.[1].Properties?.ScheduleExpression).toBe('rate(2 minutes)');
    const reconciler = linesFor(estimate, rule?.[0] as string);
    expect(reconciler.map((line) => line.item)).toEqual(['reconciler every 2 min (512 MB arm64)']);
    expect(reconciler[0]?.monthlyUsd).toBeGreaterThan(0);
    const [mapping] = ofType(template, 'AWS::Lambda::EventSourceMapping');
    expect(linesFor(estimate, mapping?.[0] as string)[0]?.monthlyUsd).toBeGreaterThan(0);
    for (const line of estimate.lines) {
      if (line.monthlyUsd > 0) expect(line.sources.length, line.item).toBeGreaterThan(0);
    }
    // Every free line says why.
    for (const type of new Set(Object.values(resources(template)).map((r) => r.Type))) {
      if (!['AWS::Lambda::Function', 'AWS::Events::Rule', 'AWS::Lambda::EventSourceMapping'].includes(type)) {
        if (type !== 'AWS::DynamoDB::Table') expect(FREE_RESOURCE_TYPES[type], type).toBeDefined();
      }
    }
  });
});

describe('fixed monthly cost, the opt-ins', () => {
  it('counts the alarm metrics of the alarms stack, and each custom metric the runtime publishes', async () => {
    const template = synth({ alarms: true, expectedRunDuration: Duration.hours(2) });
    const estimate = fixedMonthlyCost(template.toJSON() as CloudFormationTemplate);
    expect(estimate.unknown).toEqual([]);
    // 4 of the function (one reads 2 metrics), 3 of the reconciler (its dead-letter queue's is the
    // function's dead-lettered wake-ups alarm too).
    expect(ofType(template, 'AWS::CloudWatch::Alarm')).toHaveLength(7);
    expect(estimate.alarmMetrics).toBe(alarmMetricsIn(template));
    expect(estimate.alarmMetrics).toBe(8);

    // The names the runtime publishes: a run's end (both outcomes), the watchdog's, the reconciler's.
    const published = new Set<string>();
    const opened = {
      invocation: {
        functionName: 'checkout',
        operations: [{ Id: '0', StartTimestamp: 0 }],
      },
      close: async () => ({}),
      abort: async () => undefined,
    } as unknown as OpenedInvocation;
    const backend: DurableBackend = { open: async () => ({ opened }) };
    const metered = withRunMetrics(backend, {
      write: (line) => {
        for (const m of JSON.parse(line)._aws.CloudWatchMetrics[0].Metrics) published.add(m.Name);
      },
    });
    for (const Status of ['SUCCEEDED', 'FAILED'] as const) {
      await (await metered.open({}, { functionName: 'checkout' })).opened?.close({ Status });
    }
    expect([...published].sort()).toEqual([...RUN_METRIC_NAMES].sort());
    expect([...RECONCILER_METRIC_NAMES].sort()).toEqual(Object.values(RECONCILER_METRIC).sort());
    const expected = RUN_METRIC_NAMES.length + 1 /* StuckRuns */ + RECONCILER_METRIC_NAMES.length;
    expect(estimate.customMetrics).toBe(expected);
    expect(METRIC.stuckRuns).toBe('StuckRuns');

    // The function, the reconciler and the watchdog all publish: their variables say so.
    const variables = ofType(template, 'AWS::Lambda::Function').map(([, r]) => r.Properties?.Environment?.Variables);
    const reconciler = variables.find((v) => v?.DURABLE_RECONCILER_FUNCTIONS !== undefined);
    expect(reconciler?.DURABLE_CUSTOM_METRICS).toBe('on');
    expect(variables.find((v) => v?.DURABLE_WAKE_QUEUE_URL !== undefined)?.DURABLE_CUSTOM_METRICS).toBe('on');
    expect(variables.filter((v) => v?.DURABLE_WATCHDOG_FUNCTIONS !== undefined)).toHaveLength(1);

    const defaults = fixedMonthlyCost(synth().toJSON() as CloudFormationTemplate);
    // Alarms at $0.10 per metric, metrics at $0.30, plus the watchdog's passes.
    expect(estimate.monthlyUsd - defaults.monthlyUsd).toBeGreaterThan(8 * 0.1 + expected * 0.3);
  }, 60_000);

  it('prices metrics without alarms, and a shorter reconciler period, at what they add', () => {
    const metrics = synth({ metrics: true });
    expect(ofType(metrics, 'AWS::CloudWatch::Alarm')).toEqual([]);
    expect(fixedMonthlyCost(metrics.toJSON() as CloudFormationTemplate).customMetrics).toBe(
      RUN_METRIC_NAMES.length + 1 + RECONCILER_METRIC_NAMES.length,
    );
    const everyMinute = synth({ reconcilerPeriod: Duration.minutes(1) });
    expect(ofType(everyMinute, 'AWS::Events::Rule')[0]?.[1].Properties?.ScheduleExpression).toBe('rate(1 minute)');
    const cost = (t: Template) => fixedMonthlyCost(t.toJSON() as CloudFormationTemplate).monthlyUsd;
    expect(cost(everyMinute)).toBeGreaterThan(cost(synth()));
  }, 60_000);

  it('refuses alarms without metrics, and a reconciler period that is not whole minutes from 1 to 60', () => {
    expect(() => synth({ alarms: true, metrics: false })).toThrow(/Cost\/Checkout: alarms need metrics/);
    expect(() => synth({ reconcilerPeriod: Duration.seconds(30) })).toThrow(
      /reconcilerPeriod must be whole minutes from 1 minute to 1 hour, got 30 seconds/,
    );
    expect(() => synth({ reconcilerPeriod: Duration.minutes(90) })).toThrow(/reconcilerPeriod must be whole minutes/);
  });
});
