/**
 * How far a {@link DurableExecutionClientError} reaches (AWS's): the invocation only, so the
 * execution resumes in a new one, or the whole execution, which fails.
 */
export const DurableExecutionClientErrorScope = {
  /** The current invocation cannot go on; the execution can resume in a new one. */
  INVOCATION: 'INVOCATION',
  /** The execution cannot proceed at all and must fail. */
  EXECUTION: 'EXECUTION',
} as const;
/** One of {@link DurableExecutionClientErrorScope}'s values. */
export type DurableExecutionClientErrorScope =
  (typeof DurableExecutionClientErrorScope)[keyof typeof DurableExecutionClientErrorScope];

/** Options of {@link DurableExecutionClientError}. */
export interface DurableExecutionClientErrorOptions {
  /** How far the failure reaches. Default `INVOCATION` (assumed transient). */
  scope?: DurableExecutionClientErrorScope;
  /** The underlying error. */
  cause?: unknown;
}

const SCOPES: readonly string[] = Object.values(DurableExecutionClientErrorScope);

/**
 * Thrown by a durable execution client (a transport) to say how a failure must be treated
 * (AWS's class). Recognised by {@link isDurableExecutionClientError} through a marker rather
 * than `instanceof`, so a separately bundled transport is recognised too.
 */
export class DurableExecutionClientError extends Error {
  /** Structural marker read by {@link isDurableExecutionClientError}. */
  readonly isDurableExecutionClientError = true;
  /** How far the failure reaches. */
  readonly scope: DurableExecutionClientErrorScope;
  constructor(message: string, options?: DurableExecutionClientErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DurableExecutionClientError';
    this.scope = options?.scope ?? DurableExecutionClientErrorScope.INVOCATION;
  }
}

/**
 * True when `error` carries a {@link DurableExecutionClientError} classification: an Error with
 * the marker and a known scope (AWS's structural check). An unknown scope is not matched, so a
 * malformed value gets the normal handling rather than being acted on.
 */
export function isDurableExecutionClientError(error: unknown): error is DurableExecutionClientError {
  if (!(error instanceof Error) || !('isDurableExecutionClientError' in error)) return false;
  const e = error as { isDurableExecutionClientError?: unknown; scope?: unknown };
  return e.isDurableExecutionClientError === true && typeof e.scope === 'string' && SCOPES.includes(e.scope);
}

/** An instrumentation plugin selected through the environment could not be loaded (AWS's class). */
export class PluginLoadError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(`Dynamic plugin configuration failed: ${message}`, options);
    this.name = 'PluginLoadError';
  }
}
