/**
 * The deployed control API, run locally for the console and signed-CLI tests: the engine on
 * DynamoDB Local, `createControlApi` behind `toLambdaHandler` (as the DurableApi Lambda runs it),
 * fronted by a server that verifies SigV4 like the IAM-auth Function URL. The functions run
 * in-process, each soon after it is invoked (like an asynchronous Lambda invoke).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createControlApi, toLambdaHandler } from '@durable-lambda/api';
import { createDurableTable, DynamoDbStore } from '@durable-lambda/aws';
import { Engine } from '@durable-lambda/engine';
import {
  type DurableExecutionConfig,
  type DurableHandler,
  type DurableLambdaHandler,
  withDurableExecution,
} from '@durable-lambda/sdk';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from './dynamodb-local';
import { type Sigv4Front, startSigv4Front } from './sigv4-verifier';

/** The region the front checks signatures for. */
export const WORLD_REGION = 'eu-west-1';

/** A running world. */
export interface SignedApiWorld {
  engine: Engine;
  front: Sigv4Front;
  /** Resolves once every invocation started so far has ended. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

/** Starts the world serving `functions` (written against its engine), each with its `configs` entry. */
export async function startSignedApiWorld(
  functions: Record<string, DurableHandler<any, any>>,
  configs: Record<string, DurableExecutionConfig> = {},
): Promise<SignedApiWorld> {
  const client: DynamoDBDocumentClient = localDocumentClient(await dynamoDbLocalEndpoint());
  const tableName = uniqueTableName('console');
  await createDurableTable(client, tableName);
  const handlers = new Map<string, DurableLambdaHandler>();
  const running = new Set<Promise<unknown>>();
  const run = (functionName: string, event: unknown) => {
    const handler = handlers.get(functionName);
    if (!handler) return;
    const done = handler(event, { functionName }).catch(() => undefined);
    running.add(done);
    void done.finally(() => running.delete(done));
  };
  const engine: Engine = new Engine({
    store: new DynamoDbStore({ client, tableName }),
    waker: {
      wakeAt: async (w) => {
        if (w.reason === 'lease') return;
        const timer = setTimeout(
          () => run(w.functionName, { durableLambda: { action: 'wake', runId: w.runId } }),
          Math.max(0, w.at - Date.now()),
        );
        timer.unref();
      },
    },
    invoker: {
      invoke: async (functionName, event) => void setImmediate(() => run(functionName, event)),
      knows: (name) => handlers.has(name),
    },
  });
  for (const [name, handler] of Object.entries(functions)) {
    handlers.set(name, withDurableExecution(handler, { backend: engine, logSink: () => {}, ...configs[name] }));
  }
  const api = createControlApi({ engine, functions: Object.keys(functions).sort(), onError: () => {} });
  const front = await startSigv4Front(toLambdaHandler(api), WORLD_REGION);
  const settle = async () => {
    while (running.size > 0) await Promise.all([...running]);
  };
  return {
    engine,
    front,
    settle,
    close: async () => {
      await front.close();
      await settle();
      client.destroy();
    },
  };
}
