/**
 * The issue 23 examples of a history whose order was inferred wrong, as handlers of our SDK and
 * the order each must have: run on the test runner (`test/local/test-runner/history-recorded-order.test.ts`)
 * and on DynamoDB Local through the Lambda-shaped history route
 * (`test/aws/history-recorded-order.dynamodb.test.ts`). Each event is written `Type` or
 * `Type name`.
 */
import type { AwsHistoryEvent } from '@durable-lambda/engine';
import type { DurableContext } from '@durable-lambda/sdk';

/** An event as the cases compare it. */
export const eventLabel = (event: Pick<AwsHistoryEvent, 'EventType' | 'Name'>): string =>
  event.Name === undefined ? event.EventType : `${event.EventType} ${event.Name}`;

/**
 * A callback the handler suspends on, completed from outside at the same millisecond the
 * invocation ended: its completion comes after that invocation's `InvocationCompleted`
 * (conformance 4-1: 2 CallbackStarted, 3 InvocationCompleted, 4 CallbackSucceeded).
 */
export async function awaitsCallback(_event: unknown, ctx: DurableContext): Promise<unknown> {
  const [answer] = await ctx.createCallback<string>('approval');
  return answer;
}

export const AWAITS_CALLBACK_ORDER = [
  'ExecutionStarted',
  'CallbackStarted approval',
  'InvocationCompleted',
  'CallbackSucceeded approval',
  'InvocationCompleted',
  'ExecutionSucceeded',
];

/** A map with `maxConcurrency: 1`: its items run one after the other, and so are they listed (conformance 8-2). */
export async function mapOneAtATime(_event: unknown, ctx: DurableContext): Promise<unknown> {
  const result = await ctx.map(
    'items',
    ['a', 'b'],
    async (item, value) => item.step(`work-${value}`, async () => value.toUpperCase()),
    { maxConcurrency: 1 },
  );
  return result.getResults();
}

export const MAP_ONE_AT_A_TIME_ORDER = [
  'ExecutionStarted',
  'ContextStarted items',
  'ContextStarted map-item-0',
  'StepStarted work-a',
  'StepSucceeded work-a',
  'ContextSucceeded map-item-0',
  'ContextStarted map-item-1',
  'StepStarted work-b',
  'StepSucceeded work-b',
  'ContextSucceeded map-item-1',
  'ContextSucceeded items',
  'InvocationCompleted',
  'ExecutionSucceeded',
];

/**
 * Two steps started side by side (`Promise.all`), all in one millisecond of the virtual clock: both
 * start before either ends, as they ran (the inference listed them one after the other).
 */
export async function stepsSideBySide(_event: unknown, ctx: DurableContext): Promise<unknown> {
  return Promise.all([ctx.step('left', async () => 'l'), ctx.step('right', async () => 'r')]);
}

export const STEPS_SIDE_BY_SIDE_ORDER = [
  'ExecutionStarted',
  'StepStarted left',
  'StepStarted right',
  'StepSucceeded left',
  'StepSucceeded right',
  'InvocationCompleted',
  'ExecutionSucceeded',
];
