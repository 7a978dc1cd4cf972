import { Stack, Validations } from 'aws-cdk-lib/core';
import type { IConstruct } from 'constructs';

/**
 * Acknowledgements of cdk-nag `AwsSolutions` findings, recorded with CDK's own `Validations`
 * API (no dependency on cdk-nag): each one is a deliberate design decision, and its reason says
 * why. A policy validation plugin (cdk-nag 3) reads them at synthesis.
 */
const PLUGIN = 'AwsSolutions';

/** Acknowledges rule `rule` (e.g. `AwsSolutions-L1`) on `scope` and everything below it. */
export function acknowledge(scope: IConstruct, rule: string, reason: string): void {
  Validations.of(scope).acknowledge({ id: `${PLUGIN}::${rule}`, reason });
}

/**
 * Acknowledges the `AwsSolutions-IAM5` finding of a wildcard in `resource` (an ARN, tokens
 * allowed) on `scope`. The finding's id names the resource as cdk-nag flattens it
 * (`<Logical.Arn>:*`), computed here the same way.
 */
export function acknowledgeWildcardResource(scope: IConstruct, resource: string, reason: string): void {
  acknowledge(scope, `AwsSolutions-IAM5[Resource::${flatten(Stack.of(scope).resolve(resource))}]`, reason);
}

/** cdk-nag's `flattenCfnReference`: a CloudFormation value as one string. */
function flatten(node: unknown): string {
  if (node === undefined) return '';
  if (typeof node === 'string') return node.replace(/\$\{/g, '<').replace(/}/g, '>');
  const value = node as Record<string, unknown>;
  if (value['Fn::Join']) {
    const [delimiter, items] = value['Fn::Join'] as [string, unknown[]];
    return items.map(flatten).join(delimiter);
  }
  if (value['Fn::Sub']) return flatten(value['Fn::Sub']);
  if (value['Fn::GetAtt']) {
    const [resource, attribute] = value['Fn::GetAtt'] as [unknown, unknown];
    return `<${flatten(resource)}.${flatten(attribute)}>`;
  }
  if (value['Fn::ImportValue']) return flatten(value['Fn::ImportValue']);
  if (value.Ref) return `<${flatten(value.Ref)}>`;
  return JSON.stringify(node);
}

/** Why each acknowledged finding is right for durable-lambda. */
export const REASONS = {
  runtime:
    'Pinned to nodejs22.x on purpose: the runtime durable-lambda is built and tested on (Node 22 LTS). ' +
    'A newer Lambda runtime is adopted by a deliberate upgrade, not picked up implicitly.',
  failureQueue:
    "This queue is the failure destination of the function's asynchronous invocations: the end of the line " +
    'for events that failed every attempt. It is watched by an alarm and kept 14 days; a DLQ of a DLQ adds nothing.',
  deadLetterQueue:
    "This queue is the dead-letter queue of the table's wake-ups: EventBridge Scheduler sends it the events it " +
    "gave up delivering after a day of retries, and the functions' wake-up queues move there the messages " +
    'delivered five times without success. It is the end of the line, watched by an alarm and kept ' +
    '14 days; the runs those events were for stay due, and the reconciler wakes them.',
  wakeQueueDeadLetters:
    "This queue is the dead-letter queue of the function's on-time wake-up queue: the messages delivered " +
    'five times without success end here, kept 14 days. It is the end of the line; the runs those messages ' +
    'were for stay due in the table, and the reconciler wakes them.',
  triggerDeadLetters:
    "This queue is the dead-letter queue of a durable function's trigger: the events whose run would not start " +
    'after every retry end here, kept 14 days and watched by an alarm. It is the end of the line; a DLQ of a DLQ adds nothing.',
  qualifiedInvoke:
    'The `:*` suffix covers the versions and aliases of this one function and nothing else: a run started ' +
    'through an alias or version is woken and resumed through that same qualified ARN, so the code that started ' +
    'a run finishes it. IAM has no narrower way to say "any qualifier of this function".',
  schedules:
    'Wake-up schedules are created at run time with names derived from the run and the wake-up ' +
    '(`<runId>-<reason>-<second>`), so they cannot be listed in advance. The wildcard is confined to this ' +
    "function's (or the table reconciler's) own schedule group, the narrowest resource EventBridge Scheduler's CreateSchedule and " +
    'DeleteSchedule accept.',
} as const;
