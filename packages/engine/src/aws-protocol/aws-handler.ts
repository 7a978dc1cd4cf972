import type { DurableInvocation, ErrorObject, InvocationOutput, LambdaContextLike } from '@durable-lambda/protocol';
import { fromAwsError } from './aws-mapping';
import type {
  AwsDurableExecutionClient,
  AwsDurableLambdaHandler,
  AwsInvocationInput,
  AwsLambdaContext,
  AwsOperation,
} from './aws-shapes';
import { type EngineClientOptions, EngineDurableExecutionClient } from './aws-transport';

/**
 * AWS's invocation input with the transport inside, as AWS's own test runner hands it. AWS's
 * `withDurableExecution` recognises it by its class name and `toStringTag` (its
 * `DurableExecutionInvocationInputWithClient.isInstance`) and then uses `durableExecutionClient`
 * instead of its Lambda client, so a handler needs no config line to run on our engine. The class
 * name is part of that contract (kept below even if a bundler renames the class).
 */
export class DurableExecutionInvocationInputWithClient implements AwsInvocationInput {
  constructor(
    readonly DurableExecutionArn: string,
    readonly CheckpointToken: string,
    readonly InitialExecutionState: { Operations: AwsOperation[]; NextMarker?: string },
    /** The transport AWS's SDK will use for this invocation. */
    readonly durableExecutionClient: AwsDurableExecutionClient,
  ) {}

  get [Symbol.toStringTag](): string {
    return 'DurableExecutionInvocationInputWithClient';
  }
}

// A bundler may rename the class (to avoid a clash, or when minifying); AWS's SDK reads the name.
Object.defineProperty(DurableExecutionInvocationInputWithClient, 'name', {
  value: 'DurableExecutionInvocationInputWithClient',
});

/** How one invocation of a foreign (AWS-wrapped) handler ended; the same shape as our SDK's `InvocationResult`. */
export type AwsHandlerResult =
  | { type: 'completed'; output: InvocationOutput }
  | { type: 'fenced' }
  | { type: 'fault'; error: unknown };

/** Options of {@link runAwsDurableHandler}. */
export interface RunAwsHandlerOptions extends EngineClientOptions {
  /**
   * The remaining time AWS's SDK is told (ms). AWS's SDK waits in-process (polling the backend)
   * for a wait, retry or callback that ends within it, and suspends (PENDING) otherwise; a driver
   * on a virtual clock passes `() => 0` so every wait suspends and the engine wakes the run.
   * Default: the invocation's own `remainingTimeMs`.
   */
  remainingTimeMs?: () => number;
}

/** A Lambda context for an in-process invocation of an AWS-wrapped handler. */
export function awsLambdaContext(
  invocation: DurableInvocation,
  lambda: LambdaContextLike = {},
  remainingTimeMs: () => number = () => invocation.remainingTimeMs(),
): AwsLambdaContext {
  const functionName = lambda.functionName ?? invocation.functionName;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: lambda.invokedFunctionArn ?? `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: lambda.awsRequestId ?? `local-${invocation.runId}`,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, remainingTimeMs()),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

/** True for a handler that is a plain Lambda function without our SDK's entry (e.g. wrapped by AWS's SDK). */
export function isForeignDurableHandler(handler: unknown): handler is AwsDurableLambdaHandler {
  return typeof handler === 'function' && !(Symbol.for('durable-lambda.entry') in handler);
}

/**
 * Runs one invocation of a handler wrapped by AWS's `withDurableExecution` on our engine: it is
 * invoked as Lambda would invoke it, with AWS's input carrying an {@link EngineDurableExecutionClient}
 * over `invocation`, and its output is mapped to ours, for the backend to close the invocation
 * with (PENDING: the engine computes the wake-up from the stored operations).
 */
export async function runAwsDurableHandler(
  handler: AwsDurableLambdaHandler,
  invocation: DurableInvocation,
  lambda: LambdaContextLike = {},
  options: RunAwsHandlerOptions = {},
): Promise<AwsHandlerResult> {
  const client = new EngineDurableExecutionClient(invocation, options);
  const input = new DurableExecutionInvocationInputWithClient(
    client.durableExecutionArn,
    client.checkpointToken,
    client.initialState(),
    client,
  );
  let output: unknown;
  try {
    output = await handler(input, awsLambdaContext(invocation, lambda, options.remainingTimeMs));
  } catch (error) {
    // AWS's SDK throws to have Lambda retry the invocation (a stale token, a transient fault).
    return client.fenced ? { type: 'fenced' } : { type: 'fault', error };
  }
  if (client.fenced) return { type: 'fenced' };
  return { type: 'completed', output: fromAwsOutput(output, client.checkpointedResult) };
}

/**
 * AWS's `DurableExecutionInvocationOutput` as ours. An output that is not one (the handler was not
 * wrapped by AWS's `withDurableExecution`) fails the run with `invalid_handler_output` rather than
 * being retried forever. `checkpointed` is a result AWS's SDK checkpointed instead of returning.
 */
export function fromAwsOutput(output: unknown, checkpointed?: string): InvocationOutput {
  const status = (output as { Status?: unknown } | null)?.Status;
  if (status === 'PENDING') return { Status: 'PENDING' };
  if (status === 'SUCCEEDED') {
    const result = (output as { Result?: unknown }).Result;
    const value = result === '' && checkpointed !== undefined ? checkpointed : result;
    if (value === undefined) return { Status: 'SUCCEEDED' };
    if (typeof value === 'string') return { Status: 'SUCCEEDED', Result: value };
  }
  if (status === 'FAILED') {
    try {
      const error = fromAwsError((output as { Error?: ErrorObject }).Error, 'Error') ?? {};
      return { Status: 'FAILED', Error: error };
    } catch {
      // Falls through to the invalid-output failure below.
    }
  }
  return {
    Status: 'FAILED',
    Error: {
      ErrorType: 'InvalidHandlerOutput',
      ErrorMessage:
        'the handler returned no DurableExecutionInvocationOutput ({ Status: SUCCEEDED | FAILED | PENDING }); wrap it with withDurableExecution',
      ErrorCode: 'invalid_handler_output',
    },
  };
}
