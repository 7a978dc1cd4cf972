import type { AwsErrorObject, AwsHistoryEvent, AwsOperation } from '@durable-lambda/engine';
import { isTerminal, type OperationStatus, type OperationType } from '@durable-lambda/protocol';
import type { CloudRunState } from './cloud-run-state';
import type {
  CloudCallbackDetails,
  CloudChainedInvokeDetails,
  CloudContextDetails,
  CloudStepDetails,
  CloudTestResultError,
  CloudWaitDetails,
  CloudWaitingStatus,
} from './cloud-types';
import type { OperationEvents } from './history-operations';

/** AWS's `tryJsonParse`: JSON when it parses, else the text itself. */
function tryJsonParse<T>(text: string | undefined): T | undefined {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return text as T;
  }
}

/** AWS's `transformErrorObjectToErrorResult`. */
export function toCloudError(error: AwsErrorObject | undefined): CloudTestResultError | undefined {
  if (!error) return undefined;
  return {
    errorData: error.ErrorData,
    errorMessage: error.ErrorMessage,
    errorType: error.ErrorType,
    stackTrace: error.StackTrace ? [...error.StackTrace] : undefined,
  };
}

const asDate = (value: Date | string | undefined): Date | undefined =>
  value === undefined ? undefined : value instanceof Date ? value : new Date(value);

/** AWS's `doesStatusMatch`: STARTED matches any status, SUBMITTED and COMPLETED a final one. */
function statusMatches(status: OperationStatus | undefined, wanted: CloudWaitingStatus): boolean {
  if (status === undefined) return false;
  return wanted === 'STARTED' || isTerminal(status);
}

/**
 * One operation of a cloud run, with the methods of AWS's `DurableOperation`, read from the run's
 * history as AWS's cloud runner reads it. A handle taken before `run()` (by name, index or id)
 * finds its operation as the history comes in.
 */
export class CloudDurableOperation<TResult = unknown> {
  constructor(
    private readonly state: CloudRunState,
    private readonly find: (state: CloudRunState) => OperationEvents | undefined,
    private readonly label: string,
  ) {}

  private current(): OperationEvents | undefined {
    return this.find(this.state);
  }

  /**
   * Resolves once the operation reaches `status` (default STARTED) while `run()` polls, so a test
   * can complete a callback mid-run; rejects when the run ends first. For a waitForCallback,
   * STARTED and SUBMITTED follow its submitter step and COMPLETED its callback, as AWS's.
   */
  waitForData(status: CloudWaitingStatus = 'STARTED'): Promise<CloudDurableOperation<TResult>> {
    const error = new Error(
      `Operation was not found after execution completion. Expected status: ${status}. This typically means the operation was never executed or the test is waiting for the wrong operation. (operation ${this.label})`,
    );
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        if (this.reached(status)) resolve(this);
        else if (this.state.ended) reject(error);
        else return false;
        return true;
      };
      if (check()) return;
      const stop = this.state.subscribe(() => {
        if (check()) stop();
      });
    });
  }

  private reached(status: CloudWaitingStatus): boolean {
    const op = this.current()?.operation;
    if (!op?.Id) return false;
    if (!this.isWaitForCallback()) return statusMatches(op.Status, status);
    if (status === 'STARTED' && statusMatches(op.Status, status)) return true;
    const children = this.state.children(op.Id).map((child) => child.operation);
    const callback = children.find((child) => child.Type === 'CALLBACK');
    if (statusMatches(callback?.Status, status)) return true;
    const submitter = children.find((child) => child.Type === 'STEP');
    return status !== 'COMPLETED' && statusMatches(submitter?.Status, status);
  }

  /** The operation in AWS's `Operation` shape, or undefined while the run has no such operation. */
  getOperationData(): AwsOperation | undefined {
    return this.current()?.operation;
  }

  /** This operation's history events (Lambda's `GetDurableExecutionHistory` shape), in order. */
  getEvents(): AwsHistoryEvent[] | undefined {
    return this.current()?.events;
  }

  /** The child context's result and error; throws for another type. */
  getContextDetails(): CloudContextDetails<TResult> | undefined {
    const data = this.ofType('CONTEXT');
    if (!data) return undefined;
    return {
      result: tryJsonParse<TResult>(data.ContextDetails?.Result),
      error: toCloudError(data.ContextDetails?.Error),
    };
  }

  /** The step's attempt (from a failed attempt's retry details), next attempt, result and error. */
  getStepDetails(): CloudStepDetails<TResult> | undefined {
    const data = this.ofType('STEP');
    if (!data) return undefined;
    const details = data.StepDetails;
    return {
      attempt: details?.Attempt,
      nextAttemptTimestamp: asDate(details?.NextAttemptTimestamp),
      result: tryJsonParse<TResult>(details?.Result),
      error: toCloudError(details?.Error),
    };
  }

  /** The chained invoke's result and error; throws for another type. */
  getChainedInvokeDetails(): CloudChainedInvokeDetails<TResult> | undefined {
    const data = this.ofType('CHAINED_INVOKE');
    if (!data) return undefined;
    const details = data.ChainedInvokeDetails;
    let result: TResult | undefined;
    try {
      result = details?.Result ? (JSON.parse(details.Result) as TResult) : undefined;
    } catch (cause) {
      throw new Error('Could not parse result for invoke details', { cause });
    }
    return { error: toCloudError(details?.Error), result };
  }

  /** The callback's id, result and error (for a waitForCallback, its callback's). */
  getCallbackDetails(): CloudCallbackDetails<TResult> | undefined {
    const op = this.current()?.operation;
    if (!op) return undefined;
    let callback: AwsOperation | undefined = op;
    if (this.isWaitForCallback()) {
      callback = this.state.children(op.Id as string).find((child) => child.operation.Type === 'CALLBACK')?.operation;
      if (!callback) throw new Error('Could not find CALLBACK operation in WAIT_FOR_CALLBACK context');
    } else if (op.Type !== 'CALLBACK') {
      throw new Error(`Operation with Type ${op.Type} and SubType ${op.SubType} is not a valid callback`);
    }
    const details = callback.CallbackDetails;
    if (details?.CallbackId === undefined) throw new Error('Could not find callback ID in callback details');
    return {
      callbackId: details.CallbackId,
      error: toCloudError(details.Error),
      result: tryJsonParse<TResult>(details.Result),
    };
  }

  /** The wait's length in seconds and its scheduled end, from its start event; throws for another type. */
  getWaitDetails(): CloudWaitDetails | undefined {
    const data = this.ofType('WAIT');
    if (!data) return undefined;
    const details = this.current()?.events[0]?.WaitStartedDetails;
    if (!details) throw new Error('First wait event does not have WaitStartedDetails');
    return {
      ...(details.Duration === undefined ? {} : { waitSeconds: details.Duration }),
      ...(details.ScheduledEndTimestamp === undefined ? {} : { scheduledEndTimestamp: details.ScheduledEndTimestamp }),
    };
  }

  /** The operations directly inside this one. */
  getChildOperations(): CloudDurableOperation[] | undefined {
    const id = this.current()?.operation.Id;
    if (id === undefined) return undefined;
    return this.state.children(id).map((child) => {
      const childId = child.operation.Id as string;
      return new CloudDurableOperation(this.state, (state) => state.byId(childId), `id ${childId}`);
    });
  }

  getId(): string | undefined {
    return this.current()?.operation.Id;
  }

  getParentId(): string | undefined {
    return this.current()?.operation.ParentId;
  }

  getName(): string | undefined {
    return this.current()?.operation.Name;
  }

  getType(): OperationType | undefined {
    return this.current()?.operation.Type;
  }

  getSubType(): string | undefined {
    return this.current()?.operation.SubType;
  }

  getStatus(): OperationStatus | undefined {
    return this.current()?.operation.Status;
  }

  getStartTimestamp(): Date | undefined {
    return asDate(this.current()?.operation.StartTimestamp);
  }

  getEndTimestamp(): Date | undefined {
    return asDate(this.current()?.operation.EndTimestamp);
  }

  isWaitForCallback(): boolean {
    const op = this.current()?.operation;
    return op?.Type === 'CONTEXT' && op.SubType === 'WaitForCallback';
  }

  isCallback(): boolean {
    return this.getType() === 'CALLBACK';
  }

  /** Completes the callback with `result`, the exact text it receives (AWS's `Result`). */
  async sendCallbackSuccess(result?: string): Promise<void> {
    await this.state.callbacks.success(this.requireCallback().callbackId, result);
  }

  /** Fails the callback with AWS's `ErrorObject` (`ErrorMessage`, `ErrorType`, `ErrorData`). */
  async sendCallbackFailure(error?: AwsErrorObject): Promise<void> {
    await this.state.callbacks.failure(this.requireCallback().callbackId, error);
  }

  /** Sends a heartbeat to the callback, keeping it alive past its heartbeat timeout. */
  async sendCallbackHeartbeat(): Promise<void> {
    await this.state.callbacks.heartbeat(this.requireCallback().callbackId);
  }

  private requireCallback(): CloudCallbackDetails<TResult> {
    const details = this.getCallbackDetails();
    if (!details) throw new Error('Could not find callback details');
    return details;
  }

  private ofType(type: OperationType): AwsOperation | undefined {
    const data = this.getOperationData();
    if (!data) return undefined;
    if (data.Type !== type) throw new Error(`Operation type ${data.Type} is not ${type}`);
    return data;
  }
}
