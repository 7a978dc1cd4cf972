import { ErrorCode } from './codes';
import { DurableSdkError } from './sdk-error';

/** What users see as the name of a runtime fault, by code; AWS reports a plain `Error` for misuse. */
const FAULT_NAMES: Readonly<Record<string, string>> = {
  // AWS's class name, so a run's stored error reads the same on both SDKs.
  [ErrorCode.NON_DETERMINISTIC]: 'NonDeterministicExecutionError',
  [ErrorCode.CONTEXT_MISUSE]: 'Error',
};

/**
 * A fault of the runtime itself, not of user code: non-determinism, a rejected checkpoint, a
 * context used in the wrong place. It ends the invocation with an explicit result; handler
 * code never catches it.
 */
export class DurableRuntimeFault extends DurableSdkError<string> {
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
export class AttemptFailure extends DurableSdkError<string> {
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

/** What a replay found different from the record at an operation's id (AWS checks them in this order). */
export type ReplayMismatch = 'type' | 'name' | 'subtype';

/**
 * The fault of a replay that took another operation than the one recorded at `id`, with AWS's
 * message for the same mismatch (`[Unrecoverable Execution] Non-deterministic execution
 * detected: ...`), so the run's stored error is the same on both SDKs. Code `non_deterministic`.
 */
export function nonDeterministicFault(
  id: string,
  mismatch: ReplayMismatch,
  expected: string | undefined,
  got: string | undefined,
): DurableRuntimeFault {
  const shown = (value: string | undefined) => (mismatch === 'name' ? (value ?? 'undefined') : String(value));
  return new DurableRuntimeFault(
    ErrorCode.NON_DETERMINISTIC,
    `[Unrecoverable Execution] Non-deterministic execution detected: Operation ${mismatch} mismatch for step "${id}". ` +
      `Expected ${mismatch} "${shown(expected)}", but got "${shown(got)}". ` +
      'This indicates non-deterministic control flow in your workflow code.',
  );
}
