/**
 * The control API's Lambda entry (bundled by the `DurableApi` construct): the HTTP API of
 * `@durable-lambda/api` over the DynamoDB store, resuming the functions it serves by
 * asynchronous Lambda invokes. Configured from the environment (`CONTROL_API_ENV`).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createControlApi, toLambdaHandler } from '@durable-lambda/api';
import {
  DynamoDbStore,
  LambdaInvoker,
  payloadBucketOptions,
  withExecutionTimeoutMap,
  withPayloadKey,
} from '@durable-lambda/aws';
import { functionTarget, readControlApiConfig } from './control-api-config';
import { controlApiEngine, immediateInvokeWaker } from './control-api-engine';

const config = readControlApiConfig(process.env);
const invoker = new LambdaInvoker({
  client: new LambdaClient({ region: config.region }),
  targetArn: (functionName) => functionTarget(config.functions, functionName),
});

const waker = immediateInvokeWaker(invoker);

const engine = controlApiEngine({
  aliases: config.aliases,
  // Large payloads in the bucket and payloads sealed with the customer key, when the functions'
  // construct configured them (the API reads what they wrote, with kms:Decrypt granted).
  store: withPayloadKey(
    new DynamoDbStore({
      client: DynamoDBDocumentClient.from(new DynamoDBClient({ region: config.region }), {
        marshallOptions: { removeUndefinedValues: true },
      }),
      tableName: config.tableName,
      // The table still has the layout-1 listing indexes (DurableTable's legacyRunIndexes).
      legacyIndexes: process.env.DURABLE_LEGACY_INDEXES === '1',
      ...payloadBucketOptions(process.env, config.region),
    }),
    process.env,
    config.region,
  ),
  waker,
  invoker,
  // A run started here gets its function's timeout, by bare name (it is `orders:live` by then).
  executionTimeout: withExecutionTimeoutMap(undefined, config.executionTimeouts ?? {}),
});

export const handler = toLambdaHandler(
  createControlApi({
    engine,
    functions: Object.keys(config.functions).sort(),
    invoker,
    // Listed by GET /v1/functions (the dashboard's functions page).
    executionTimeouts: config.executionTimeouts ?? {},
  }),
);
