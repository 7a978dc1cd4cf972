import { ErrorCode } from './codes';
import { DurableSdkError } from './sdk-error';

/** A call received bad arguments or configuration. `field` names the offending one. */
export class InvalidArgumentError extends DurableSdkError<'invalid_argument'> {
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
