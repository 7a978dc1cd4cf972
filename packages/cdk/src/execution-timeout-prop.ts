import { type Duration, Lazy, type Stack } from 'aws-cdk-lib/core';

/**
 * The variable of a function's own execution timeout, whole seconds (`EXECUTION_TIMEOUT_ENV` of
 * `@durable-lambda/aws`; a test keeps them equal).
 */
export const EXECUTION_TIMEOUT_ENV = 'DURABLE_EXECUTION_TIMEOUT_SECONDS';

/**
 * The variable of the execution timeouts of other functions, a JSON object of bare function names
 * to seconds (`EXECUTION_TIMEOUTS_ENV` of `@durable-lambda/aws`): whoever creates a run sets its
 * deadline, so the control API needs its served functions' timeouts, and a function those of the
 * functions it invokes (their child runs are created in its container).
 */
export const EXECUTION_TIMEOUTS_ENV = 'DURABLE_EXECUTION_TIMEOUTS';

/** AWS's largest `ExecutionTimeout`: 366 days, in seconds. */
export const MAX_EXECUTION_TIMEOUT_SECONDS = 366 * 86_400;

/**
 * `executionTimeout` in whole seconds, checked at synth: a literal duration of whole seconds from
 * 1 second to 366 days. Undefined stays undefined. The error names the construct and the prop.
 */
export function executionTimeoutSeconds(path: string, timeout: Duration | undefined): number | undefined {
  if (timeout === undefined) return undefined;
  const fail = (why: string): never => {
    throw new Error(`${path}: executionTimeout must be ${why}, got ${timeout.toString()}`);
  };
  if (timeout.isUnresolved()) fail('a literal duration (not a token)');
  const seconds = timeout.toSeconds({ integral: false });
  if (!Number.isInteger(seconds)) fail('a whole number of seconds');
  if (seconds < 1 || seconds > MAX_EXECUTION_TIMEOUT_SECONDS) fail('from 1 second to 366 days');
  return seconds;
}

/** A function whose runs may have an execution timeout, named as its environment will see it. */
export interface TimedFunction {
  /** The function's name (a token until deploy, or the literal `functionName` given). */
  readonly name: string;
  readonly executionTimeoutSeconds?: number;
}

/** The value of {@link EXECUTION_TIMEOUTS_ENV} for `functions()`, resolved at synth (late additions count). */
export function executionTimeoutsValue(stack: Stack, functions: () => Iterable<TimedFunction>): string {
  return Lazy.string({
    produce: () =>
      stack.toJsonString(
        Object.fromEntries(
          [...functions()].flatMap((fn) =>
            fn.executionTimeoutSeconds === undefined ? [] : [[fn.name, fn.executionTimeoutSeconds]],
          ),
        ),
      ),
  });
}
