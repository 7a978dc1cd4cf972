/**
 * The run-level execution timeout in the CDK: `DurableFunction`'s `executionTimeout` is checked at
 * synth and set as `DURABLE_EXECUTION_TIMEOUT_SECONDS`, and whoever creates a function's runs is
 * told it (`DURABLE_EXECUTION_TIMEOUTS`): the control API for `POST /v1/runs`, a function that
 * invokes it for child runs. The synthesized map is resolved (each `Ref` to a name) and read back
 * by the control API's own config reader and engine setting, and a run started through the API's
 * `POST /v1/runs` gets its deadline from it.
 */
import { join } from 'node:path';
import { createControlApi } from '@durable-lambda/api';
import { EXECUTION_TIMEOUT_ENV, EXECUTION_TIMEOUTS_ENV, withExecutionTimeoutMap } from '@durable-lambda/aws';
import { DurableApi, DurableFunction, DurableTable } from '@durable-lambda/cdk';
import { Engine, MemoryStore } from '@durable-lambda/engine';
import { Duration, Stack, Token } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import * as prop from '../../packages/cdk/src/execution-timeout-prop';
import { readControlApiConfig } from '../../packages/cdk/src/runtime/control-api-config';
import { logicalId, newApp, newStack, REPO_ROOT, resources } from './support';

const entry = join(REPO_ROOT, 'test/cdk/fixtures/version-pinning/v1.ts');

type Json = unknown;

/** The environment of the function whose logical id starts with `prefix`. */
function envOf(template: Template, prefix: string): Record<string, Json> {
  return resources(template)[logicalId(template, 'AWS::Lambda::Function', prefix)]?.Properties?.Environment.Variables;
}

/** A synthesized string value with each `{ Ref: id }` replaced by `names[id]`, as CloudFormation would. */
function resolve(value: Json, names: Record<string, string>): string {
  if (typeof value === 'string') return value;
  const object = value as Record<string, Json>;
  if ('Ref' in object) {
    const name = names[object.Ref as string];
    if (name === undefined) throw new Error(`unexpected reference ${JSON.stringify(object)}`);
    return name;
  }
  const [separator, parts] = object['Fn::Join'] as [string, Json[]];
  return parts.map((part) => resolve(part, names)).join(separator);
}

describe('DurableFunction executionTimeout', () => {
  it(`sets ${EXECUTION_TIMEOUT_ENV} in whole seconds, and nothing without one`, () => {
    const stack = newStack();
    const table = new DurableTable(stack, 'Runs');
    new DurableFunction(stack, 'Orders', { entry, table, executionTimeout: Duration.days(366) });
    new DurableFunction(stack, 'Plain', { entry, table });
    const template = Template.fromStack(stack);
    expect(envOf(template, 'OrdersFunction')[EXECUTION_TIMEOUT_ENV]).toBe(String(366 * 86_400));
    expect(envOf(template, 'PlainFunction')).not.toHaveProperty(EXECUTION_TIMEOUT_ENV);
    expect(envOf(template, 'PlainFunction')).not.toHaveProperty(EXECUTION_TIMEOUTS_ENV);
    // The construct's names are the runtime's.
    expect([prop.EXECUTION_TIMEOUT_ENV, prop.EXECUTION_TIMEOUTS_ENV]).toEqual([
      EXECUTION_TIMEOUT_ENV,
      EXECUTION_TIMEOUTS_ENV,
    ]);
  });

  it('refuses at synth what AWS would: not whole seconds, under 1 s, over 366 days, a token', () => {
    const bad: Array<[Duration, string]> = [
      [Duration.millis(1500), 'a whole number of seconds'],
      [Duration.millis(0), 'from 1 second to 366 days'],
      [Duration.seconds(366 * 86_400 + 1), 'from 1 second to 366 days'],
      [Duration.days(367), 'from 1 second to 366 days'],
      [Duration.seconds(Token.asNumber({ Ref: 'Timeout' })), 'a literal duration'],
    ];
    for (const [executionTimeout, why] of bad) {
      const stack = newStack();
      expect(() => new DurableFunction(stack, 'Orders', { entry, executionTimeout }), why).toThrow(
        `Test/Orders: executionTimeout must be ${why}`,
      );
    }
    expect(
      () => new DurableFunction(newStack(), 'Orders', { entry, executionTimeout: Duration.seconds(1) }),
    ).not.toThrow();
  });
});

describe('who creates the runs is told the timeout', () => {
  it(`gives the control API the served functions' timeouts; POST /v1/runs gets the deadline from it`, async () => {
    const plainOnly = newStack();
    const runs = new DurableTable(plainOnly, 'Runs');
    new DurableApi(plainOnly, 'Api', { functions: [new DurableFunction(plainOnly, 'Plain', { entry, table: runs })] });
    // No served function with a timeout: the API's configuration is as it was.
    expect(envOf(Template.fromStack(plainOnly), 'ApiFunction')).not.toHaveProperty(EXECUTION_TIMEOUTS_ENV);

    const stack = new Stack(newApp(), 'Shop');
    const table = new DurableTable(stack, 'Runs');
    const orders = new DurableFunction(stack, 'Orders', { entry, table, executionTimeout: Duration.hours(1) });
    const plain = new DurableFunction(stack, 'Plain', { entry, table });
    // A function served later (`serve`) counts too.
    new DurableApi(stack, 'Api', { functions: [plain] }).serve(orders);
    const template = Template.fromStack(stack);
    const names = {
      [logicalId(template, 'AWS::Lambda::Function', 'OrdersFunction')]: 'orders',
      [logicalId(template, 'AWS::Lambda::Function', 'PlainFunction')]: 'plain',
    };
    const map = resolve(envOf(template, 'ApiFunction')[EXECUTION_TIMEOUTS_ENV], names);
    expect(JSON.parse(map)).toEqual({ orders: 3600 });

    const config = readControlApiConfig({
      DURABLE_TABLE_NAME: 'runs',
      AWS_REGION: 'us-east-1',
      DURABLE_API_FUNCTIONS: JSON.stringify({ orders: 'arn:aws:lambda:us-east-1:123456789012:function:orders' }),
      [EXECUTION_TIMEOUTS_ENV]: map,
    });
    expect(config.executionTimeouts).toEqual({ orders: 3600 });
    const now = Date.UTC(2026, 0, 1);
    const clock = { now: () => now };
    const engine = new Engine({
      store: new MemoryStore(clock),
      clock,
      waker: { wakeAt: async () => {} },
      executionTimeout: withExecutionTimeoutMap(undefined, config.executionTimeouts ?? {}),
    });
    const control = createControlApi({ engine, functions: ['orders', 'plain'] });
    const start = async (body: Record<string, unknown>) => {
      const answer = await control.handle({
        method: 'POST',
        path: '/v1/runs',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(answer.status, answer.body).toBe(201);
      return (await engine.getRun(JSON.parse(answer.body).runId))?.deadlineAt;
    };
    expect(await start({ function: 'orders', input: {} })).toBe(now + 3_600_000);
    expect(await start({ function: 'orders', input: {}, executionTimeout: 60 })).toBe(now + 60_000);
    expect(await start({ function: 'plain', input: {} })).toBeUndefined();
    // The runs the API starts are named by where they run (`orders:live`, `orders:7`): same timeout.
    expect((await engine.startRun({ functionName: 'orders:live', input: '{}' })).run.deadlineAt).toBe(now + 3_600_000);
  });

  it("gives a function that invokes another the child's timeout, without a reference cycle", () => {
    const stack = new Stack(newApp(), 'Shop');
    const table = new DurableTable(stack, 'Runs');
    const payments = new DurableFunction(stack, 'Payments', { entry, table, executionTimeout: Duration.minutes(10) });
    const refunds = new DurableFunction(stack, 'Refunds', { entry, table, executionTimeout: Duration.minutes(5) });
    const saga = new DurableFunction(stack, 'Saga', {
      entry,
      table,
      executionTimeout: Duration.hours(1),
      invokes: [payments, refunds],
    });
    // Payments answers the saga too: its configuration cannot name the saga (a cycle), so the
    // saga's runs payments starts get no deadline (the README's limit). Its own runs' is its own.
    payments.invokes(saga);
    saga.invokes(saga);
    const template = Template.fromStack(stack);
    const names = {
      [logicalId(template, 'AWS::Lambda::Function', 'PaymentsFunction')]: 'payments',
      [logicalId(template, 'AWS::Lambda::Function', 'RefundsFunction')]: 'refunds',
    };
    expect(JSON.parse(resolve(envOf(template, 'SagaFunction')[EXECUTION_TIMEOUTS_ENV], names))).toEqual({
      payments: 600,
      refunds: 300,
    });
    expect(envOf(template, 'SagaFunction')[EXECUTION_TIMEOUT_ENV]).toBe('3600');
    expect(envOf(template, 'PaymentsFunction')).not.toHaveProperty(EXECUTION_TIMEOUTS_ENV);
  });

  it('names a child by its literal functionName, so two functions that invoke each other both know', () => {
    const stack = new Stack(newApp(), 'Shop');
    const table = new DurableTable(stack, 'Runs');
    const a = new DurableFunction(stack, 'A', { entry, table, functionName: 'a', executionTimeout: Duration.hours(2) });
    const b = new DurableFunction(stack, 'B', { entry, table, functionName: 'b', executionTimeout: Duration.hours(3) });
    a.invokes(b);
    b.invokes(a);
    const template = Template.fromStack(stack);
    expect(JSON.parse(resolve(envOf(template, 'AFunction')[EXECUTION_TIMEOUTS_ENV], {}))).toEqual({ b: 10_800 });
    expect(JSON.parse(resolve(envOf(template, 'BFunction')[EXECUTION_TIMEOUTS_ENV], {}))).toEqual({ a: 7_200 });
  });
});
