/**
 * The execution timeouts of other functions, by name, for the runs a container starts of them: a
 * run's deadline is set when it is created, by whoever creates it (a parent's container for a
 * child run by `invoke`, the control API for `POST /v1/runs`), not by the function that later runs
 * it. So the creator must know the timeout: the CDK puts the served or invoked functions' timeouts
 * in `DURABLE_EXECUTION_TIMEOUTS`.
 */
import { type ExecutionTimeoutSetting, MAX_EXECUTION_TIMEOUT_SECONDS } from '@durable-lambda/engine';
import { bareFunctionName } from './lambda-targets';
import { ConfigurationError, type ProductionEnvironment } from './production-config';

export { bareFunctionName } from './lambda-targets';

/**
 * Optional environment variable: JSON object, bare function name to the execution timeout of its
 * runs in whole seconds (`{"payments":3600}`). The `DurableFunction` construct sets it for the
 * functions it invokes, `DurableApi` for the functions it serves.
 */
export const EXECUTION_TIMEOUTS_ENV = 'DURABLE_EXECUTION_TIMEOUTS';

/** Bare function name to execution timeout, seconds. */
export type ExecutionTimeoutMap = Readonly<Record<string, number>>;

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Reads {@link EXECUTION_TIMEOUTS_ENV} (empty when unset); a malformed value is a
 * `ConfigurationError` (`invalid_configuration`) naming the variable.
 */
export function readExecutionTimeoutMap(env: ProductionEnvironment): ExecutionTimeoutMap {
  const raw = env[EXECUTION_TIMEOUTS_ENV]?.trim();
  if (!raw) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = undefined;
  }
  const valid =
    parsed !== null &&
    typeof parsed === 'object' &&
    !Array.isArray(parsed) &&
    Object.entries(parsed as object).every(
      ([name, seconds]) =>
        NAME.test(name) &&
        Number.isInteger(seconds) &&
        (seconds as number) >= 1 &&
        (seconds as number) <= MAX_EXECUTION_TIMEOUT_SECONDS,
    );
  if (!valid) {
    throw new ConfigurationError(
      'invalid_configuration',
      [EXECUTION_TIMEOUTS_ENV],
      `durable-lambda: environment variable ${EXECUTION_TIMEOUTS_ENV} must be a JSON object of function names to ` +
        `whole seconds from 1 to ${MAX_EXECUTION_TIMEOUT_SECONDS}, got ${JSON.stringify(raw)}`,
    );
  }
  // A null prototype: a function named `constructor` or `__proto__` finds nothing inherited.
  return Object.assign(Object.create(null) as Record<string, number>, parsed);
}

/**
 * The Engine's `executionTimeout` from `own` (the container's own function's setting, which
 * wins) and the timeouts of other functions by bare name. Undefined when there is neither.
 */
export function withExecutionTimeoutMap(
  own: ExecutionTimeoutSetting | undefined,
  timeouts: ExecutionTimeoutMap,
): ExecutionTimeoutSetting | undefined {
  if (Object.keys(timeouts).length === 0) return own;
  return (functionName) => {
    const mine = typeof own === 'function' ? own(functionName) : own;
    if (mine !== undefined) return mine;
    const name = bareFunctionName(functionName);
    return Object.hasOwn(timeouts, name) ? timeouts[name] : undefined;
  };
}
