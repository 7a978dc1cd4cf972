import type * as AwsTesting from '../../../../bench/node_modules/@aws/durable-execution-sdk-js-testing/dist-types/index';
import { importBenchPackage } from '../../../support/aws-sdk';

/** AWS's `@aws/durable-execution-sdk-js-testing` module, typed by its own dist-types. */
export type AwsDurableTesting = typeof AwsTesting;

let loaded: Promise<AwsDurableTesting> | undefined;

/**
 * AWS's testing package, loaded as `importAwsSdk` loads AWS's SDK (bench/node_modules first, its ESM
 * entry). Its own `import '@aws/durable-execution-sdk-js'` resolves to the same file `importAwsSdk`
 * loads, so handlers wrapped by that SDK and this runner share one module instance.
 */
export function importAwsTesting(): Promise<AwsDurableTesting> {
  loaded ??= importBenchPackage<AwsDurableTesting>('@aws/durable-execution-sdk-js-testing');
  return loaded;
}
