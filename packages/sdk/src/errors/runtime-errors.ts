import { ErrorCode } from './codes';

/** What users see as the name of a runtime fault, by code; AWS reports a plain `Error` for misuse. */
const FAULT_NAMES: Readonly<Record<string, string>> = {
  [ErrorCode.NON_DETERMINISTIC]: 'NonDeterministicError',
  [ErrorCode.CONTEXT_MISUSE]: 'Error',
};

/**
 * A fault of the runtime itself, not of user code: non-determinism, a rejected checkpoint, a
 * context used in the wrong place. It ends the invocation with an explicit result; handler
 * code never catches it.
 */
export class DurableRuntimeFault extends Error {
  constructor(
    /** Stable code. */
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = FAULT_NAMES[code] ?? 'DurableRuntimeFault';
  }
}

/** What users see as the type of an attempt failure of ours, by code. */
const ATTEMPT_FAILURE_NAMES: Readonly<Record<string, string>> = {
  [ErrorCode.STEP_TIMEOUT]: 'StepTimeoutError',
  [ErrorCode.SERDES_FAILED]: 'SerdesError',
  [ErrorCode.PAYLOAD_TOO_LARGE]: 'PayloadTooLargeError',
};

/** Internal failure of an attempt with a code of ours (timeout, serdes, size). */
export class AttemptFailure extends Error {
  constructor(
    /** Stable code. */
    readonly code: string,
    message: string,
    /** Whether the retry policy may retry it. */
    readonly retriable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = ATTEMPT_FAILURE_NAMES[code] ?? 'AttemptFailure';
  }
}
