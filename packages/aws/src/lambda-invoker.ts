import { FunctionNotFoundError, type Invoker } from '@durable-lambda/engine';
import { countConsumed } from './invocation-meter';
import { type LambdaCommand, lambdaSdk, type SdkClientLike } from './lazy-aws-sdk-clients';

/** Options of a {@link LambdaInvoker}. */
export interface LambdaInvokerOptions {
  /**
   * The Lambda client: a `LambdaClient`, or one built at its first call (`lazyLambdaClient`). The
   * SDK's command is loaded at the first invoke, not at import.
   */
  client: SdkClientLike<LambdaCommand>;
  /** The Lambda ARN (or name) an invoke of `functionName` targets. */
  targetArn(functionName: string): string;
}

// The invoker port's error, the same class the local invoker throws: exported here as before.
export { FunctionNotFoundError };

/**
 * The {@link Invoker} of the production backend: an asynchronous Lambda invoke
 * (`InvocationType: 'Event'`) with the event as JSON payload (at most 1 MB). It has no `knows`:
 * Lambda cannot tell cheaply whether a function exists, so an invoke of a missing function
 * rejects with a {@link FunctionNotFoundError} instead.
 */
export class LambdaInvoker implements Invoker {
  private readonly client: SdkClientLike<LambdaCommand>;
  private readonly targetArn: (functionName: string) => string;

  constructor(options: LambdaInvokerOptions) {
    this.client = options.client;
    this.targetArn = (functionName) => options.targetArn(functionName);
  }

  /** Queues an invocation of `functionName` with `event`; resolves once Lambda accepted it. */
  async invoke(functionName: string, event: unknown): Promise<void> {
    const target = this.targetArn(functionName);
    const { InvokeCommand } = await lambdaSdk();
    try {
      await this.client.send(
        new InvokeCommand({
          FunctionName: target,
          InvocationType: 'Event',
          Payload: new TextEncoder().encode(JSON.stringify(event)),
        }),
      );
      // For the run meter of the invocation that asked (an immediate wake-up, a chained invoke).
      countConsumed({ lambdaInvokes: 1 });
    } catch (error) {
      if ((error as { name?: unknown } | null)?.name === 'ResourceNotFoundException') {
        throw new FunctionNotFoundError(target, {
          message: `no Lambda function ${JSON.stringify(target)}`,
          cause: error,
        });
      }
      throw error;
    }
  }
}
