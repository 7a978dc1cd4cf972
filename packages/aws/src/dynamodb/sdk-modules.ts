/**
 * The AWS SDK's DynamoDB modules, loaded at first use: the store and the production backend never
 * import them statically, so a runtime on the light client (`LightDynamoDbClient`) never loads them.
 *
 * A `DurableFunction` bundle leaves them out: its build defines
 * `process.env.DURABLE_DYNAMODB_SDK_BUNDLED` as `"false"` (unless the function's environment asks
 * for the SDK client, `DURABLE_DYNAMODB_CLIENT=sdk`), which makes each `import()` below dead code
 * esbuild drops. Anywhere else (tests, a user's own bundle or `node_modules`), they load as usual.
 */
import { AwsSdkLoadError } from '../lazy-aws-sdk-clients';

type LibDynamoDb = typeof import('@aws-sdk/lib-dynamodb');
type ClientDynamoDb = typeof import('@aws-sdk/client-dynamodb');

/** The AWS SDK's DynamoDB client was left out of this bundle (code `aws_sdk_unavailable`). */
function notBundled(packageName: string): AwsSdkLoadError {
  return new AwsSdkLoadError(packageName, {
    cause: new Error(
      'this bundle was built without the AWS SDK DynamoDB client; set DURABLE_DYNAMODB_CLIENT=sdk in the DurableFunction environment prop and deploy again to bundle it',
    ),
  });
}

let lib: Promise<LibDynamoDb> | undefined;
let client: Promise<ClientDynamoDb> | undefined;

/** `@aws-sdk/lib-dynamodb` (once per process; a failed load is tried again). */
export function libDynamoDb(): Promise<LibDynamoDb> {
  if (process.env.DURABLE_DYNAMODB_SDK_BUNDLED !== 'false') {
    lib ??= import('@aws-sdk/lib-dynamodb').catch((cause: unknown) => {
      lib = undefined;
      throw new AwsSdkLoadError('@aws-sdk/lib-dynamodb', { cause });
    });
    return lib;
  }
  return Promise.reject(notBundled('@aws-sdk/lib-dynamodb'));
}

/** `@aws-sdk/client-dynamodb` (once per process; a failed load is tried again). */
export function clientDynamoDb(): Promise<ClientDynamoDb> {
  if (process.env.DURABLE_DYNAMODB_SDK_BUNDLED !== 'false') {
    client ??= import('@aws-sdk/client-dynamodb').catch((cause: unknown) => {
      client = undefined;
      throw new AwsSdkLoadError('@aws-sdk/client-dynamodb', { cause });
    });
    return client;
  }
  return Promise.reject(notBundled('@aws-sdk/client-dynamodb'));
}
