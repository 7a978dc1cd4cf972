import { LocalError } from '../local-error';

/** The codes of the faults the injector throws. */
export type InjectedFaultCode = 'throttled' | 'lost_response';

/** Base of the errors the fault injector throws; `injected` tells them from real failures. */
export class InjectedFaultError extends LocalError<InjectedFaultCode> {
  /** Always true: this error was injected on purpose. */
  readonly injected = true;
  constructor(
    message: string,
    /** Stable code. */
    readonly code: InjectedFaultCode,
  ) {
    super(message);
    this.name = 'InjectedFaultError';
  }
}

/**
 * A throttled call, thrown before the call does anything, shaped like the AWS SDK's
 * `ThrottlingException` (EventBridge Scheduler) and `TooManyRequestsException` (Lambda).
 */
export class InjectedThrottlingError extends InjectedFaultError {
  constructor(operation: string) {
    super(`injected fault: ${operation} was throttled (Rate exceeded)`, 'throttled');
    this.name = 'ThrottlingException';
  }
}

/** A store write that succeeded, reported as failed: its response was lost. */
export class InjectedLostResponseError extends InjectedFaultError {
  constructor(operation: string) {
    super(`injected fault: the response of ${operation} was lost after the write succeeded`, 'lost_response');
    this.name = 'TimeoutError';
  }
}

/**
 * The process died at a slot write of its admission or its end (`FaultScope.armSlotKill`): after
 * a slot taken or a queue entry written landed, or before a slot release was sent. The invocation
 * that armed it turns it into its death; it never reaches the SDK.
 */
export class InjectedSlotKill extends Error {
  constructor(operation: string) {
    super(`injected fault: the invocation died at ${operation}`);
    this.name = 'InjectedSlotKill';
  }
}

/** True for an error thrown by the fault injector. */
export function isInjectedFault(error: unknown): error is InjectedFaultError {
  return (error as { injected?: unknown } | null)?.injected === true;
}
