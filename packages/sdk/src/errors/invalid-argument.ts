import { ErrorCode } from './codes';

/** A call received bad arguments or configuration. `field` names the offending one. */
export class InvalidArgumentError extends Error {
  /** Stable code. */
  readonly code = ErrorCode.INVALID_ARGUMENT;
  constructor(
    /** The argument or configuration field at fault, e.g. `retry.maxAttempts`. */
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'InvalidArgumentError';
  }
}
