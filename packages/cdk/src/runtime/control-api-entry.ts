/**
 * The control API's Lambda entry (bundled by the `DurableApi` construct): the HTTP API of
 * `@durable-lambda/api` over the DynamoDB store, resuming the functions it serves by
 * asynchronous Lambda invokes. Configured from the environment (`CONTROL_API_ENV`).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createControlApi, toLambdaHandler } from '@durable-lambda/api';
import { DynamoDbStore, LambdaInvoker, PinnedRunsEngine, withExecutionTimeoutMap } from '@durable-lambda/aws';
import { type Engine, systemClock, type WakeRequest, type Waker, wakeEvent } from '@durable-lambda/engine';
import { functionTarget, readControlApiConfig } from './control-api-config';

const config = readControlApiConfig(process.env);
const invoker = new LambdaInvoker({
  client: new LambdaClient({ region: config.region }),
  targetArn: (functionName) => functionTarget(config.functions, functionName),
});

/** How far ahead a wake-up may be asked for: the API only ever wakes runs now. */
const IMMEDIATE_WITHIN_MS = 2_000;

/**
 * The API's waker. The control API wakes a run only to have it act now (a callback completed, a
 * retry, a child run cancelled), so a wake-up is an asynchronous invoke of the run's function.
 * Scheduling later wake-ups is the functions' own business (their schedule groups); one asked of
 * the API is an error rather than an early wake-up that would find nothing due.
 */
const waker: Waker = {
  async wakeAt(request: WakeRequest) {
    const delay = request.at - systemClock.now();
    if (delay > IMMEDIATE_WITHIN_MS) {
      throw new Error(`durable-lambda control API: cannot schedule a wake-up ${delay} ms ahead (run ${request.runId})`);
    }
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    await invoker.invoke(request.functionName, wakeEvent(request.runId));
  },
};

/**
 * Starts runs on their function's alias: a run started as `orders` is recorded as `orders:live`
 * (its first invocation, on the version the alias points at, pins it there). A run that opted
 * into `$LATEST` (`orders:$LATEST`) or names a qualifier is started as asked; a start repeated
 * after the run was pinned finds it (`PinnedRunsEngine`).
 */
class AliasStartingEngine extends PinnedRunsEngine {
  override startRun(request: Parameters<Engine['startRun']>[0]): ReturnType<Engine['startRun']> {
    const alias = Object.hasOwn(config.aliases, request.functionName)
      ? config.aliases[request.functionName]
      : undefined;
    return super.startRun(
      alias === undefined ? request : { ...request, functionName: `${request.functionName}:${alias}` },
    );
  }
}

const engine = new AliasStartingEngine({
  store: new DynamoDbStore({
    client: DynamoDBDocumentClient.from(new DynamoDBClient({ region: config.region }), {
      marshallOptions: { removeUndefinedValues: true },
    }),
    tableName: config.tableName,
    // The table still has the layout-1 listing indexes (DurableTable's legacyRunIndexes).
    legacyIndexes: process.env.DURABLE_LEGACY_INDEXES === '1',
  }),
  waker,
  invoker,
  // A run started here gets its function's timeout, by bare name (it is `orders:live` by then).
  executionTimeout: withExecutionTimeoutMap(undefined, config.executionTimeouts ?? {}),
});

export const handler = toLambdaHandler(
  createControlApi({ engine, functions: Object.keys(config.functions).sort(), invoker }),
);
