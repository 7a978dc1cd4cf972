import type { InvocationOutput, LambdaContextLike } from '@durable-lambda/protocol';

/**
 * A plain (non-durable) Lambda handler, reachable by `context.invoke` once registered with
 * `registerFunction`: promise style, or Node's callback style.
 */
export type PlainHandler = (
  event: never,
  context: never,
  callback: (error?: unknown, result?: unknown) => void,
) => unknown;

/**
 * Runs a plain handler as AWS's test runner does: the payload parsed (`{}` when there is none),
 * the result serialized as JSON, a throw (or a callback error) as the invoke's error.
 */
export async function runPlainFunction(
  handler: PlainHandler,
  input: string | undefined,
  lambda: LambdaContextLike,
): Promise<InvocationOutput> {
  try {
    const event: unknown = JSON.parse(input ?? '{}');
    const context = {
      callbackWaitsForEmptyEventLoop: false,
      functionVersion: '1',
      memoryLimitInMB: '1024',
      logGroupName: 'MyLogGroupName',
      logStreamName: 'MyLogStreamName',
      getRemainingTimeInMillis: () => 900_000,
      ...lambda,
    };
    const result = await new Promise<unknown>((resolve, reject) => {
      const returned = (
        handler as (e: unknown, c: unknown, cb: (error?: unknown, result?: unknown) => void) => unknown
      )(event, context, (error, value) =>
        error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(value),
      );
      if (returned instanceof Promise) returned.then(resolve, reject);
      // A handler that neither returns a promise nor calls back ends with its return value.
      else if (handler.length < 3) resolve(returned);
    });
    const serialized = JSON.stringify(result);
    return { Status: 'SUCCEEDED', ...(serialized === undefined ? {} : { Result: serialized }) };
  } catch (error) {
    const e = error instanceof Error ? error : undefined;
    return {
      Status: 'FAILED',
      Error: {
        ErrorMessage: e ? e.message : String(error),
        ...(e ? { ErrorType: e.name } : {}),
        ...(e?.stack === undefined ? {} : { StackTrace: e.stack.split('\n') }),
      },
    };
  }
}
