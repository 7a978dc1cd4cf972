import { EngineError } from './engine-error';

/** A start named an existing run key with a different function or input. */
export class RunKeyConflictError extends EngineError<'run_key_conflict'> {
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
export class RunNotFoundError extends EngineError<'run_not_found'> {
  /** Stable code. */
  readonly code = 'run_not_found';
  constructor(readonly runId: string) {
    super(`run ${runId} not found`);
    this.name = 'RunNotFoundError';
  }
}

/** A callback id that is not one this engine issues. */
export class InvalidCallbackIdError extends EngineError<'invalid_callback_id'> {
  /** Stable code. */
  readonly code = 'invalid_callback_id';
  constructor(message = 'malformed callback id') {
    super(message);
    this.name = 'InvalidCallbackIdError';
  }
}

/** A well-formed callback id that names no waiting callback. */
export class CallbackNotFoundError extends EngineError<'callback_not_found'> {
  /** Stable code. */
  readonly code = 'callback_not_found';
  constructor() {
    super('no callback with this id');
    this.name = 'CallbackNotFoundError';
  }
}

/** A callback that already ended: completions are accepted exactly once. */
export class CallbackAlreadyCompletedError extends EngineError<'callback_already_completed'> {
  /** Stable code. */
  readonly code = 'callback_already_completed';
  constructor(readonly status: string) {
    super(`callback already ended (${status}); it accepts one completion only`);
    this.name = 'CallbackAlreadyCompletedError';
  }
}

/** A payload over the engine's size limit. */
export class PayloadTooLargeError extends EngineError<'payload_too_large'> {
  /** Stable code. */
  readonly code = 'payload_too_large';
  constructor(
    readonly field: string,
    bytes: number,
    limit: number,
  ) {
    super(`${field}: ${bytes} bytes, over the limit of ${limit}`);
    this.name = 'PayloadTooLargeError';
  }
}

/** Bad input to the engine's own API. */
export class EngineInputError extends EngineError<'invalid_argument'> {
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

/**
 * An invoke named a function its `Invoker` does not know (a Lambda that does not exist or is
 * not visible, a name not in the local registry). The invoker port's one way to say so: the engine
 * fails a chained invoke at once on its code. Each invoker gives its own message.
 */
export class FunctionNotFoundError extends EngineError<'function_not_found'> {
  /** Stable code. */
  readonly code = 'function_not_found';
  constructor(
    /** The name (or ARN) the invoke targeted. */
    readonly functionName: string,
    options?: { message?: string; cause?: unknown },
  ) {
    super(options?.message ?? `no function ${JSON.stringify(functionName)}`, options);
    this.name = 'FunctionNotFoundError';
  }
}
