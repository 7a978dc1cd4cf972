/**
 * The on-time wake-up queue a DurableFunction deploys: a standard queue with SSE, TLS only and the
 * dead-letter queue of its table's reconciler (one for every function of the table in the stack), feeding the function's alias one message per invocation with partial batch
 * failures, its visibility timeout past the function's lease; and the opt-outs.
 */
import { join } from 'node:path';
import { DurableFunction, DurableTable, WAKE_QUEUE_MAX_RECEIVES } from '@durable-lambda/cdk';
import { Duration } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { arnOf, logicalId, newStack, REPO_ROOT, resources } from './support';

const entry = join(REPO_ROOT, 'examples', 'checkout', 'handler.ts');

// One synth for every case (each is its own function in one stack, sharing one table).
let template: Template;
let checkout: DurableFunction;
let latest: DurableFunction;
let scheduled: DurableFunction;
beforeAll(() => {
  const stack = newStack();
  const table = new DurableTable(stack, 'Runs');
  checkout = new DurableFunction(stack, 'Checkout', { entry, table, timeout: Duration.minutes(2) });
  latest = new DurableFunction(stack, 'Latest', { entry, table, pinning: 'latest', leaseWakeUp: 'scheduler' });
  scheduled = new DurableFunction(stack, 'SchedulerOnly', { entry, table, onTimeWakeUps: false });
  expect(() => new DurableFunction(stack, 'Bad', { entry, table, leaseWakeUp: 'sometimes' as 'scheduler' })).toThrow(
    /leaseWakeUp must be reconciler or scheduler/,
  );
  template = Template.fromStack(stack);
}, 120_000);
const props = (type: string, prefix: string) => resources(template)[logicalId(template, type, prefix)]?.Properties;
const mappings = () => Object.values(resources(template)).filter((r) => r.Type === 'AWS::Lambda::EventSourceMapping');

describe('DurableFunction: the on-time wake-up queue', () => {
  it('feeds the alias from an encrypted, TLS-only standard queue, one message per invocation, reporting failures', () => {
    expect(checkout.wakeQueue).toBeDefined();
    const queue = props('AWS::SQS::Queue', 'CheckoutWakeUpsQueue');
    // The reconciler's dead-letter queue (it alarms on it, and wakes the runs anyway).
    const dlq = logicalId(template, 'AWS::SQS::Queue', 'DurableReconciler');
    expect(checkout.wakeQueue?.deadLetterQueue).toBe(checkout.reconciler.deadLetterQueue);
    expect(queue).toEqual({
      SqsManagedSseEnabled: true,
      // The function's timeout (its lease) plus a minute: a crashed invocation's message comes back after it.
      VisibilityTimeout: 180,
      RedrivePolicy: { deadLetterTargetArn: arnOf(dlq), maxReceiveCount: WAKE_QUEUE_MAX_RECEIVES },
    });
    // Standard (FIFO queues have no per-message delay).
    expect(queue).not.toHaveProperty('FifoQueue');
    // Its messages are kept the default 4 days, the dead-letter queue's 14: a moved message keeps its
    // first enqueue time, so it stays there 10 days or more.
    expect(props('AWS::SQS::Queue', 'DurableReconciler')).toEqual({
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 86_400,
    });
    for (const prefix of ['CheckoutWakeUpsQueuePolicy', 'DurableReconciler']) {
      expect(props('AWS::SQS::QueuePolicy', prefix)?.PolicyDocument.Statement).toEqual([
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      ]);
    }
    const mapping = props('AWS::Lambda::EventSourceMapping', 'CheckoutAlias');
    expect(mapping).toEqual({
      EventSourceArn: arnOf(logicalId(template, 'AWS::SQS::Queue', 'CheckoutWakeUpsQueue')),
      FunctionName: expect.anything(),
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    // The alias `live`: the function's name taken from the alias ARN, qualified `:live`.
    const target = JSON.stringify(mapping?.FunctionName);
    expect(target).toContain(JSON.stringify({ Ref: logicalId(template, 'AWS::Lambda::Alias', 'CheckoutAlias') }));
    expect(target).toContain('":live"');
    const env = props('AWS::Lambda::Function', 'CheckoutFunction')?.Environment.Variables;
    expect(env.DURABLE_WAKE_QUEUE_URL).toEqual({ Ref: logicalId(template, 'AWS::SQS::Queue', 'CheckoutWakeUpsQueue') });
    expect(env).not.toHaveProperty('DURABLE_LEASE_WAKEUP');
  });

  it('feeds $LATEST with pinning "latest", and sets the lease mode when given', () => {
    expect(latest.wakeQueue).toBeDefined();
    expect(props('AWS::Lambda::EventSourceMapping', 'LatestFunction')?.FunctionName).toEqual({
      Ref: logicalId(template, 'AWS::Lambda::Function', 'LatestFunction'),
    });
    expect(props('AWS::Lambda::Function', 'LatestFunction')?.Environment.Variables.DURABLE_LEASE_WAKEUP).toBe(
      'scheduler',
    );
  });

  it('deploys no queue with onTimeWakeUps: false (Scheduler alone), and refuses an unknown lease mode', () => {
    expect(scheduled.wakeQueue).toBeUndefined();
    // The two mappings are the other functions'.
    expect(mappings()).toHaveLength(2);
    expect(JSON.stringify(mappings())).not.toContain('SchedulerOnly');
    expect(Object.keys(resources(template)).filter((id) => id.startsWith('SchedulerOnlyWakeUps'))).toEqual([]);
    expect(props('AWS::Lambda::Function', 'SchedulerOnlyFunction')?.Environment.Variables).not.toHaveProperty(
      'DURABLE_WAKE_QUEUE_URL',
    );
  });
});
