/** A start named an existing run key with a different function or input. */
export class RunKeyConflictError extends Error {
  /** Stable code. */
  readonly code = 'run_key_conflict';
  constructor(
    readonly runKey: string,
    readonly runId: string,
  ) {
    super(`run key ${JSON.stringify(runKey)} already names run ${runId} with a different function or input`);
    this.name = 'RunKeyConflictError';
  }
}

/** A request named a run that does not exist. */
export class RunNotFoundError extends Error {
  /** Stable code. */
  readonly code = 'run_not_found';
  constructor(readonly runId: string) {
    super(`run ${runId} not found`);
    this.name = 'RunNotFoundError';
  }
}

/** Bad input to the engine's own API. */
export class EngineInputError extends Error {
  /** Stable code. */
  readonly code = 'invalid_argument';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'EngineInputError';
  }
}
