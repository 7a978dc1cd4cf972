/**
 * The module switch of the dual-run suite: every case is written once against `DualModules` and
 * run once with AWS's packages and once with ours.
 */
import * as oursTesting from '@durable-lambda/local/testing';
import * as oursSdk from '@durable-lambda/sdk';
import { type AwsDurableSdk, importAwsSdk } from '../../../support/aws-sdk';
import { type AwsDurableTesting, importAwsTesting } from './load-aws-testing';

/** Which packages a case runs on. */
export type Side = 'aws' | 'ours';

/**
 * What a case sees: an SDK and a testing package. Both are typed by AWS's declarations, since the
 * cases are written as a user of AWS's packages writes them; ours is claimed to be a drop-in, and this
 * suite checks that claim at run time (test/compat/sdk/runtime-exports.test.ts compares the declared shapes).
 */
export interface DualModules {
  side: Side;
  sdk: AwsDurableSdk;
  testing: AwsDurableTesting;
}

/** AWS's `@aws/durable-execution-sdk-js` 2.4.0 and `@aws/durable-execution-sdk-js-testing` 1.1.4. */
export async function awsModules(): Promise<DualModules> {
  const [sdk, testing] = await Promise.all([importAwsSdk(), importAwsTesting()]);
  return { side: 'aws', sdk, testing };
}

/** Ours: `@durable-lambda/sdk` and `@durable-lambda/local/testing`, seen through AWS's types. */
export function ourModules(): DualModules {
  return {
    side: 'ours',
    sdk: oursSdk as unknown as AwsDurableSdk,
    testing: oursTesting as unknown as AwsDurableTesting,
  };
}
