import type { ErrorObject, Operation, OperationStatus, OperationType } from '@durable-lambda/protocol';
import { isTerminal } from '@durable-lambda/protocol';

/** What `waitForData` waits for (compat names). */
export const WaitingOperationStatus = {
  /** The operation exists (a callback has its id). */
  STARTED: 'STARTED',
  /** A waitForCallback's submitter has run (its callback can be completed). */
  SUBMITTED: 'SUBMITTED',
  /** The operation has ended. */
  COMPLETED: 'COMPLETED',
} as const;
/** One of {@link WaitingOperationStatus}. */
export type WaitingOperationStatus = (typeof WaitingOperationStatus)[keyof typeof WaitingOperationStatus];

/** Where a {@link DurableOperation} reads its run and sends callbacks. */
export interface OperationSource {
  /** The run's operations now. */
  operations(): readonly Operation[];
  /** Calls `listener` whenever the run may have changed; returns a function that stops it. */
  subscribe?(listener: () => void): () => void;
  /** True once the run has ended (nothing more will change). */
  ended?(): boolean;
  sendCallbackSuccess?(callbackId: string, result?: string): Promise<void>;
  sendCallbackFailure?(callbackId: string, error: ErrorObject & { ErrorMessage: string }): Promise<void>;
  sendCallbackHeartbeat?(callbackId: string): Promise<void>;
}

/** A stored error as tests see it (compat shape, plus our `code`). */
export interface TestError {
  errorType: string;
  errorMessage: string;
  code: string | undefined;
  errorData: string | undefined;
  stackTrace: string[] | undefined;
}

/** Details of a step. */
export interface StepDetails<T = unknown> {
  /** The current or last attempt, 1-based. */
  attempt: number;
  nextAttemptTimestamp: Date | undefined;
  result: T | undefined;
  error: TestError | undefined;
  /** The attempts that failed before, oldest first. */
  failedAttempts: Array<{ attempt: number; timestamp: Date; error: TestError | undefined }>;
}

/** Details of a wait. */
export interface WaitDetails {
  waitSeconds: number;
  scheduledEndTimestamp: Date;
}

/** Details of a callback. */
export interface CallbackDetails<T = unknown> {
  callbackId: string;
  /** The completion's payload, parsed as JSON when it is JSON, else the raw string. */
  result: T | undefined;
  error: TestError | undefined;
  timeoutTimestamp: Date | undefined;
  heartbeatDeadline: Date | undefined;
}

/** Details of a child context. */
export interface ContextDetails<T = unknown> {
  result: T | undefined;
  error: TestError | undefined;
}

/** Converts a stored error to the shape tests assert on. */
export function toTestError(error: ErrorObject | undefined): TestError | undefined {
  if (!error) return undefined;
  return {
    errorType: error.ErrorType ?? 'Error',
    errorMessage: error.ErrorMessage ?? '',
    code: error.ErrorCode,
    errorData: error.ErrorData,
    stackTrace: error.StackTrace,
  };
}

function parse<T>(data: string | undefined): T | undefined {
  return data === undefined ? undefined : (JSON.parse(data) as T);
}

function parseLoose<T>(data: string | undefined): T | undefined {
  if (data === undefined) return undefined;
  try {
    return JSON.parse(data) as T;
  } catch {
    return data as T;
  }
}

const date = (t: number | undefined) => (t === undefined ? undefined : new Date(t));

/**
 * One operation of a run, as the test runner shows it (compat with AWS's testing package).
 * A handle taken before `run` (by name or index) looks the operation up when asked.
 */
export class DurableOperation {
  constructor(
    private readonly find: (operations: readonly Operation[]) => Operation | undefined,
    private readonly source: OperationSource,
    private readonly label: string,
  ) {}

  private resolve(): Operation | undefined {
    return this.find(this.source.operations());
  }

  /** The stored operation; throws when the run has no such operation. */
  getOperationData(): Operation {
    const op = this.resolve();
    if (!op) throw new Error(`no operation ${this.label} in the last run`);
    return op;
  }

  /** True when the last run has this operation. */
  exists(): boolean {
    return this.resolve() !== undefined;
  }

  getId(): string {
    return this.getOperationData().Id;
  }

  getName(): string | undefined {
    return this.getOperationData().Name;
  }

  getType(): OperationType {
    return this.getOperationData().Type;
  }

  getStatus(): OperationStatus {
    return this.getOperationData().Status;
  }

  getParentId(): string | undefined {
    return this.getOperationData().ParentId;
  }

  /** The step's attempt, result (deserialized as JSON) and error. */
  getStepDetails<T = unknown>(): StepDetails<T> {
    const op = this.expectType('STEP');
    const d = op.StepDetails;
    return {
      attempt: d?.Attempt ?? 0,
      nextAttemptTimestamp: d?.NextAttemptTimestamp === undefined ? undefined : new Date(d.NextAttemptTimestamp),
      result: parse<T>(d?.Result),
      error: toTestError(d?.Error),
      failedAttempts: (d?.FailedAttempts ?? []).map((f) => ({
        attempt: f.Attempt,
        timestamp: new Date(f.Timestamp),
        error: toTestError(f.Error),
      })),
    };
  }

  /** The wait's length and end. */
  getWaitDetails(): WaitDetails {
    const op = this.expectType('WAIT');
    const end = op.WaitDetails?.ScheduledEndTimestamp ?? op.StartTimestamp;
    return { waitSeconds: (end - op.StartTimestamp) / 1000, scheduledEndTimestamp: new Date(end) };
  }

  /** The child context's result or error. */
  getContextDetails<T = unknown>(): ContextDetails<T> {
    const op = this.expectType('CONTEXT');
    return { result: parse<T>(op.ContextDetails?.Result), error: toTestError(op.ContextDetails?.Error) };
  }

  /** The operations directly inside this one (a child context's). */
  getChildOperations(): DurableOperation[] {
    const id = this.getId();
    return this.source
      .operations()
      .filter((op) => op.ParentId === id)
      .map((op) => new DurableOperation((all) => all.find((o) => o.Id === op.Id), this.source, `id ${op.Id}`));
  }

  /** The callback's id, deadlines and outcome (for a waitForCallback: its inner callback's). */
  getCallbackDetails<T = unknown>(): CallbackDetails<T> {
    const op = this.callbackOperation();
    const d = op.CallbackDetails;
    return {
      callbackId: d?.CallbackId ?? '',
      result: parseLoose<T>(d?.Result),
      error: toTestError(d?.Error),
      timeoutTimestamp: date(d?.TimeoutTimestamp),
      heartbeatDeadline: date(d?.HeartbeatDeadline),
    };
  }

  /** Completes this callback (or a waitForCallback's) with a result string. */
  async sendCallbackSuccess(result?: string): Promise<void> {
    await this.require('sendCallbackSuccess')(this.callbackOperation().CallbackDetails?.CallbackId ?? '', result);
  }

  /** Fails this callback (or a waitForCallback's). */
  async sendCallbackFailure(error: { errorMessage: string; errorType?: string; code?: string } | Error): Promise<void> {
    const e = error instanceof Error ? { errorMessage: error.message, errorType: error.name } : error;
    await this.require('sendCallbackFailure')(this.callbackOperation().CallbackDetails?.CallbackId ?? '', {
      ErrorMessage: e.errorMessage,
      ...(e.errorType === undefined ? {} : { ErrorType: e.errorType }),
      ...('code' in e && e.code !== undefined ? { ErrorCode: e.code } : {}),
    });
  }

  /** Sends a heartbeat to this callback (or a waitForCallback's). */
  async sendCallbackHeartbeat(): Promise<void> {
    await this.require('sendCallbackHeartbeat')(this.callbackOperation().CallbackDetails?.CallbackId ?? '');
  }

  /**
   * Resolves once the operation reaches `status` (default STARTED) in the running run, so a test
   * can complete a callback while `run()` is still going. Rejects if the run ends first.
   */
  waitForData(status: WaitingOperationStatus = WaitingOperationStatus.STARTED): Promise<DurableOperation> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        if (this.reached(status)) {
          resolve(this);
          return true;
        }
        if (this.source.ended?.()) {
          reject(new Error(`the run ended before operation ${this.label} reached ${status}`));
          return true;
        }
        return false;
      };
      if (check()) return;
      if (!this.source.subscribe) {
        reject(new Error('waitForData needs a running LocalDurableTestRunner'));
        return;
      }
      const stop = this.source.subscribe(() => {
        if (check()) stop();
      });
    });
  }

  private reached(status: WaitingOperationStatus): boolean {
    const op = this.resolve();
    if (!op) return false;
    if (status === WaitingOperationStatus.COMPLETED) return isTerminal(op.Status);
    if (op.Type !== 'CONTEXT') return true;
    const children = this.source.operations().filter((o) => o.ParentId === op.Id);
    // A waitForCallback is SUBMITTED once its submitter step succeeded, STARTED once its callback exists.
    if (status === WaitingOperationStatus.SUBMITTED)
      return children.some((o) => o.Type === 'STEP' && o.Status === 'SUCCEEDED');
    return op.SubType !== 'WaitForCallback' || children.some((o) => o.Type === 'CALLBACK');
  }

  private callbackOperation(): Operation {
    const op = this.getOperationData();
    const callback = this.findCallback(op);
    if (!callback) throw new Error(`operation ${this.label} is a ${op.Type} with no callback`);
    return callback;
  }

  private findCallback(op: Operation): Operation | undefined {
    if (op.Type === 'CALLBACK') return op;
    if (op.Type !== 'CONTEXT') return undefined;
    return this.source.operations().find((o) => o.ParentId === op.Id && o.Type === 'CALLBACK');
  }

  private require<K extends 'sendCallbackSuccess' | 'sendCallbackFailure' | 'sendCallbackHeartbeat'>(
    name: K,
  ): NonNullable<OperationSource[K]> {
    const fn = this.source[name];
    if (!fn) throw new Error(`${name} needs a LocalDurableTestRunner run`);
    return fn.bind(this.source) as NonNullable<OperationSource[K]>;
  }

  private expectType(type: OperationType): Operation {
    const op = this.getOperationData();
    if (op.Type !== type) throw new Error(`operation ${this.label} is a ${op.Type}, not a ${type}`);
    return op;
  }
}
