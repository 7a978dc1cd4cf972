import { verboseLog } from '../runtime/verbose';
import type { DurableExecutionClient } from '../types/invocation';
import type { DurableLogger } from '../types/logger';
import type {
  CheckpointDurableExecutionRequest,
  CheckpointDurableExecutionResponse,
  GetDurableExecutionStateRequest,
  GetDurableExecutionStateResponse,
} from '../types/wire';
import { SDK_NAME, SDK_VERSION } from '../version';

/** The part of `@aws-sdk/client-lambda`'s `LambdaClient` this client uses. */
export interface LambdaClientLike {
  send(command: unknown): Promise<unknown>;
}

interface LambdaModule {
  LambdaClient: new (config: unknown) => LambdaClientLike;
  GetDurableExecutionStateCommand: new (input: unknown) => unknown;
  CheckpointDurableExecutionCommand: new (input: unknown) => unknown;
}

// A variable specifier keeps the AWS SDK out of this package's static imports and bundles: it is
// loaded only by functions that use this client, from their own dependencies.
const LAMBDA_MODULE = '@aws-sdk/client-lambda';
let lambdaModule: Promise<LambdaModule> | undefined;
let defaultClient: LambdaClientLike | undefined;

function loadLambdaModule(): Promise<LambdaModule> {
  lambdaModule ??= import(LAMBDA_MODULE).then(
    (loaded: unknown) => {
      // From CommonJS a dynamic import may put the exports under `default`.
      const mod = loaded as Partial<LambdaModule> & { default?: LambdaModule };
      return mod.LambdaClient ? (mod as LambdaModule) : (mod.default as LambdaModule);
    },
    (error: unknown) => {
      // Not kept: a later call may find the module (e.g. after a layer is attached).
      lambdaModule = undefined;
      throw new Error(
        `DurableExecutionApiClient needs ${LAMBDA_MODULE} to call Lambda's durable execution API, and it could not be loaded (${error instanceof Error ? error.message : String(error)}). Install it, or run on durable-lambda's own backend, which needs no client.`,
      );
    },
  );
  return lambdaModule;
}

/**
 * AWS's transport over Lambda's durable execution API (`GetDurableExecutionState`,
 * `CheckpointDurableExecution`) through `@aws-sdk/client-lambda` (AWS's class and shape). It is
 * what AWS's managed durable functions use; durable-lambda's own runs never need it. Without an
 * injected client it creates one with AWS's timeouts. Calls fail with a clear error when
 * `@aws-sdk/client-lambda` is not installed.
 */
export class DurableExecutionApiClient implements DurableExecutionClient {
  private readonly injectedClient: LambdaClientLike | undefined;

  constructor(client?: LambdaClientLike) {
    this.injectedClient = client;
    // Started now so the load overlaps with the rest of the invocation; a failure surfaces at the call.
    void loadLambdaModule().then(
      () => undefined,
      () => undefined,
    );
  }

  private async resolveClient(): Promise<{ client: LambdaClientLike; mod: LambdaModule }> {
    const mod = await loadLambdaModule();
    if (this.injectedClient) return { client: this.injectedClient, mod };
    // One default client per process, so connections are reused across instances.
    defaultClient ??= new mod.LambdaClient({
      customUserAgent: [[SDK_NAME, SDK_VERSION]],
      requestHandler: { connectionTimeout: 5000, socketTimeout: 50000, requestTimeout: 55000 },
    });
    return { client: defaultClient, mod };
  }

  /** Reads the execution's operations (one page). */
  async getExecutionState(
    params: GetDurableExecutionStateRequest,
    logger?: DurableLogger,
  ): Promise<GetDurableExecutionStateResponse> {
    const { client, mod } = await this.resolveClient();
    try {
      return (await client.send(
        new mod.GetDurableExecutionStateCommand({
          DurableExecutionArn: params.DurableExecutionArn,
          CheckpointToken: params.CheckpointToken,
          Marker: params.Marker,
          MaxItems: params.MaxItems,
        }),
      )) as GetDurableExecutionStateResponse;
    } catch (error) {
      verboseLog('GetDurableExecutionState failed', () => ({ arn: params.DurableExecutionArn, error: String(error) }));
      logger?.error('Failed to get durable execution state', error, { requestId: requestIdOf(error) });
      throw error;
    }
  }

  /** Sends one checkpoint of operation updates. */
  async checkpoint(
    params: CheckpointDurableExecutionRequest,
    logger?: DurableLogger,
  ): Promise<CheckpointDurableExecutionResponse> {
    const { client, mod } = await this.resolveClient();
    try {
      return (await client.send(
        new mod.CheckpointDurableExecutionCommand({
          DurableExecutionArn: params.DurableExecutionArn,
          CheckpointToken: params.CheckpointToken,
          ClientToken: params.ClientToken,
          Updates: params.Updates,
        }),
      )) as CheckpointDurableExecutionResponse;
    } catch (error) {
      verboseLog('CheckpointDurableExecution failed', () => ({
        arn: params.DurableExecutionArn,
        error: String(error),
      }));
      logger?.error('Failed to checkpoint durable execution', error, { requestId: requestIdOf(error) });
      throw error;
    }
  }
}

function requestIdOf(error: unknown): string | undefined {
  return (error as { $metadata?: { requestId?: string } } | null)?.$metadata?.requestId;
}
