import type { ErrorObject, Operation, OperationStatus, OperationType } from '@durable-lambda/protocol';

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
}

/** Details of a wait. */
export interface WaitDetails {
  waitSeconds: number;
  scheduledEndTimestamp: Date;
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

/**
 * One operation of a run, as the test runner shows it (compat with AWS's testing package).
 * A handle taken before `run` (by name or index) looks the operation up when asked.
 */
export class DurableOperation {
  constructor(
    private readonly resolve: () => Operation | undefined,
    private readonly all: () => readonly Operation[],
    private readonly label: string,
  ) {}

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
    return this.all()
      .filter((op) => op.ParentId === id)
      .map((op) => new DurableOperation(() => this.all().find((o) => o.Id === op.Id), this.all, `id ${op.Id}`));
  }

  private expectType(type: OperationType): Operation {
    const op = this.getOperationData();
    if (op.Type !== type) throw new Error(`operation ${this.label} is a ${op.Type}, not a ${type}`);
    return op;
  }
}
