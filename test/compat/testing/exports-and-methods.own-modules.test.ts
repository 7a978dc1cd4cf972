/**
 * Our test runner has every runtime export of AWS's `@aws/durable-execution-sdk-js-testing` 1.1.4
 * and every method of its runner, result and operation objects (compared on live objects of both).
 */
import * as ours from '@durable-lambda/local/testing';
import { withDurableExecution } from '@durable-lambda/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { importAwsSdk } from '../../support/aws-sdk';
import { type AwsDurableTesting, importAwsTesting } from '../dual/harness/load-aws-testing';

let aws: AwsDurableTesting;

beforeAll(async () => {
  aws = await importAwsTesting();
});

/** Every method name on an object's prototype chain, below Object.prototype. */
function methods(value: object): string[] {
  const names = new Set<string>();
  for (
    let proto = Object.getPrototypeOf(value);
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto)
  ) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name !== 'constructor' && typeof (value as Record<string, unknown>)[name] === 'function') names.add(name);
    }
  }
  for (const [name, v] of Object.entries(value)) if (typeof v === 'function') names.add(name);
  return [...names].sort();
}

/** Public statics (no leading underscore) of a class. */
function statics(klass: object): string[] {
  return Object.getOwnPropertyNames(klass)
    .filter(
      (n) =>
        !['length', 'name', 'prototype'].includes(n) && typeof (klass as Record<string, unknown>)[n] === 'function',
    )
    .sort();
}

describe("AWS's testing package surface on ours", () => {
  it('exports every runtime name AWS exports, with the same enum values', () => {
    const missing = Object.keys(aws).filter((name) => !(name in ours));
    expect(missing).toEqual([]);
    for (const name of [
      'ExecutionStatus',
      'InvocationType',
      'OperationStatus',
      'OperationType',
      'WaitingOperationStatus',
    ]) {
      const theirs = (aws as unknown as Record<string, Record<string, unknown>>)[name];
      const mine = (ours as unknown as Record<string, Record<string, unknown>>)[name];
      for (const [key, value] of Object.entries(theirs ?? {})) expect(mine?.[key], `${name}.${key}`).toBe(value);
    }
  });

  it('has every method of the runner, its result and its operations (static ones too)', async () => {
    const sdk = await importAwsSdk();
    const awsHandler = sdk.withDurableExecution(async (_e: unknown, ctx) => ctx.step('s', async () => 1));
    const ourHandler = withDurableExecution(async (_e: unknown, ctx) => ctx.step('s', async () => 1));

    await aws.LocalDurableTestRunner.setupTestEnvironment({ skipTime: true });
    const theirRunner = new aws.LocalDurableTestRunner({ handlerFunction: awsHandler });
    const theirResult = await theirRunner.run();
    const theirOperation = theirRunner.getOperation('s');
    await aws.LocalDurableTestRunner.teardownTestEnvironment();

    const ourRunner = new ours.LocalDurableTestRunner({ handlerFunction: ourHandler });
    const ourResult = await ourRunner.run();
    const ourOperation = ourRunner.getOperation('s');

    // Not AWS's API: TypeScript-private members of its classes (`handlerFunction`,
    // `getWaitForCallbackDetails`, `getCreateCallbackDetails`) and `populateData`, which its
    // internal OperationWithData class has beyond the public DurableOperation interface.
    const internal = new Set([
      'handlerFunction',
      'getWaitForCallbackDetails',
      'getCreateCallbackDetails',
      'populateData',
      // private static on AWS's LocalDurableTestRunner
      'createCheckpointApiClient',
      'createDurableApi',
    ]);
    const lacking = (theirs: object, mine: object) =>
      methods(theirs).filter((m) => !internal.has(m) && !methods(mine).includes(m));
    expect(lacking(theirRunner, ourRunner)).toEqual([]);
    expect(lacking(theirResult, ourResult)).toEqual([]);
    expect(lacking(theirOperation, ourOperation)).toEqual([]);
    expect(
      statics(aws.LocalDurableTestRunner).filter(
        (s) => !internal.has(s) && !statics(ours.LocalDurableTestRunner).includes(s),
      ),
    ).toEqual([]);
    expect(
      statics(aws.CloudDurableTestRunner).filter(
        (s) => !internal.has(s) && !statics(ours.CloudDurableTestRunner).includes(s),
      ),
    ).toEqual([]);
    expect(
      methods(Object.create(aws.CloudDurableTestRunner.prototype)).filter(
        (m) => !internal.has(m) && !methods(Object.create(ours.CloudDurableTestRunner.prototype)).includes(m),
      ),
    ).toEqual([]);
  });
});
