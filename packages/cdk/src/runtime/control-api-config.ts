import {
  EXECUTION_TIMEOUTS_ENV,
  type ExecutionTimeoutMap,
  readExecutionTimeoutMap,
  splitRunName,
} from '@durable-lambda/aws';

/** The environment variables the control API's Lambda reads (the `DurableApi` construct sets them). */
export const CONTROL_API_ENV = {
  /** Required: the table of the runs it serves. */
  tableName: 'DURABLE_TABLE_NAME',
  /** Required: JSON object, durable function name to its (unqualified) Lambda ARN. */
  functions: 'DURABLE_API_FUNCTIONS',
  /** Required, set by Lambda. */
  region: 'AWS_REGION',
} as const;

/** Optional: JSON object, durable function name to the alias its runs start on (`DurableApi` sets it). */
export const CONTROL_API_ALIASES_ENV = 'DURABLE_API_ALIASES';

/** The control API Lambda's configuration. */
export interface ControlApiConfig {
  tableName: string;
  region: string;
  /** Function name to unqualified ARN. */
  functions: Record<string, string>;
  /** Function name to the alias its runs start on. */
  aliases: Record<string, string>;
  /**
   * Bare function name to the execution timeout of its runs, seconds (`DURABLE_EXECUTION_TIMEOUTS`,
   * `EXECUTION_TIMEOUTS_ENV` of `@durable-lambda/aws`), when set.
   */
  executionTimeouts?: ExecutionTimeoutMap;
}

const FUNCTION_ARN = /^arn:[a-z0-9-]+:lambda:[a-z0-9-]+:\d{12}:function:[a-zA-Z0-9_-]+$/;

/**
 * Reads the configuration; a missing or malformed variable throws an Error naming it (a
 * `ConfigurationError` for `DURABLE_EXECUTION_TIMEOUTS`).
 */
export function readControlApiConfig(env: Readonly<Record<string, string | undefined>>): ControlApiConfig {
  const missing = Object.values(CONTROL_API_ENV).filter((name) => !env[name]?.trim());
  if (missing.length > 0)
    throw new Error(`durable-lambda control API: missing environment variable(s) ${missing.join(', ')}`);
  let functions: unknown;
  try {
    functions = JSON.parse(env[CONTROL_API_ENV.functions] as string);
  } catch {
    functions = undefined;
  }
  const valid =
    functions !== null &&
    typeof functions === 'object' &&
    !Array.isArray(functions) &&
    Object.values(functions as object).every((arn) => typeof arn === 'string' && FUNCTION_ARN.test(arn));
  if (!valid) {
    throw new Error(
      `durable-lambda control API: ${CONTROL_API_ENV.functions} must be a JSON object of function names to unqualified Lambda ARNs`,
    );
  }
  return {
    tableName: (env[CONTROL_API_ENV.tableName] as string).trim(),
    region: (env[CONTROL_API_ENV.region] as string).trim(),
    functions: functions as Record<string, string>,
    aliases: readAliases(env[CONTROL_API_ALIASES_ENV]),
    ...(env[EXECUTION_TIMEOUTS_ENV]?.trim() ? { executionTimeouts: readExecutionTimeoutMap(env) } : {}),
  };
}

function readAliases(raw: string | undefined): Record<string, string> {
  if (!raw?.trim()) return {};
  let aliases: unknown;
  try {
    aliases = JSON.parse(raw);
  } catch {
    aliases = undefined;
  }
  const valid =
    aliases !== null &&
    typeof aliases === 'object' &&
    !Array.isArray(aliases) &&
    Object.values(aliases as object).every(
      (alias) => typeof alias === 'string' && /^(?!\d+$)[a-zA-Z0-9_-]{1,128}$/.test(alias),
    );
  if (!valid) {
    throw new Error(
      `durable-lambda control API: ${CONTROL_API_ALIASES_ENV} must be a JSON object of function names to alias names`,
    );
  }
  return aliases as Record<string, string>;
}

/**
 * The ARN an invoke of `functionName` targets: the served function's ARN, with the qualifier of a
 * `name:qualifier` (a run started through an alias is recorded under that name) appended.
 * Unknown names are returned as given (Lambda then refuses them: the API may invoke only the
 * functions it serves).
 */
export function functionTarget(functions: Readonly<Record<string, string>>, functionName: string): string {
  if (functionName.startsWith('arn:')) return functionName;
  // The run's recorded name, read as version pinning writes it (`orders:7`, `orders:live`).
  const { name, qualifier } = splitRunName(functionName);
  const arn = Object.hasOwn(functions, name) ? functions[name] : undefined;
  if (arn === undefined) return functionName;
  // A run opted into `$LATEST` is invoked unqualified.
  return qualifier === undefined || qualifier === '$LATEST' ? arn : `${arn}:${qualifier}`;
}
