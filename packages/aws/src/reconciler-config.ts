import {
  ConfigurationError,
  type ProductionConfig,
  type ProductionEnvironment,
  readProductionConfig,
} from './production-config';

/**
 * The environment variables the reconciler reads on top of the production backend's
 * (`PRODUCTION_ENV`: its table, its own schedule group and scheduler role, the wake-ups'
 * dead-letter queue). The `DurableFunction` construct sets them on the table's reconciler.
 */
export const RECONCILER_ENV = {
  /**
   * Optional: JSON array of the (unqualified) function names whose runs this reconciler wakes.
   * Runs of other functions sharing the table are left to the reconciler of the stack that
   * deploys them. Default: every function.
   */
  functions: 'DURABLE_RECONCILER_FUNCTIONS',
  /** Optional: due runs looked at per pass (1-1000). Default {@link DEFAULT_RECONCILE_LIMIT}. */
  limit: 'DURABLE_RECONCILE_LIMIT',
} as const;

/** Due runs one reconcile pass looks at when `DURABLE_RECONCILE_LIMIT` is not set. */
export const DEFAULT_RECONCILE_LIMIT = 100;

/** The reconciler's configuration, as read from the environment. */
export interface ReconcilerConfig {
  /** The production backend it builds its engine with. */
  production: ProductionConfig;
  /** The functions it serves; undefined serves every function. */
  functions?: readonly string[];
  /** Due runs per pass. */
  limit: number;
}

const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Reads the reconciler's configuration from `env`: the production backend's variables (same
 * rules and errors as `readProductionConfig`), then {@link RECONCILER_ENV}; a malformed value is a
 * {@link ConfigurationError} (`invalid_configuration`) naming the variable.
 */
export function readReconcilerConfig(env: ProductionEnvironment): ReconcilerConfig {
  const production = readProductionConfig(env);
  const config: ReconcilerConfig = { production, limit: DEFAULT_RECONCILE_LIMIT };
  const functions = env[RECONCILER_ENV.functions]?.trim();
  if (functions) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(functions);
    } catch {
      parsed = undefined;
    }
    const valid = Array.isArray(parsed) && parsed.every((name) => typeof name === 'string' && FUNCTION_NAME.test(name));
    if (!valid) invalid(RECONCILER_ENV.functions, 'a JSON array of Lambda function names', functions);
    config.functions = parsed as string[];
  }
  const limit = env[RECONCILER_ENV.limit]?.trim();
  if (limit) {
    const value = Number(limit);
    if (!Number.isInteger(value) || value < 1 || value > 1000) {
      invalid(RECONCILER_ENV.limit, 'an integer from 1 to 1000', limit);
    }
    config.limit = value;
  }
  return config;
}

function invalid(name: string, expected: string, got: string): never {
  throw new ConfigurationError(
    'invalid_configuration',
    [name],
    `durable-lambda: environment variable ${name} must be ${expected}, got ${JSON.stringify(got)}`,
  );
}
