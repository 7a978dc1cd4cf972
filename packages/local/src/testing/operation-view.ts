import type { AwsHistoryEvent } from '@durable-lambda/engine';
import type { ErrorObject, Operation, OperationStatus, OperationType } from '@durable-lambda/protocol';
import { isTerminal } from '@durable-lambda/protocol';
import { type CallbackFailureInput, toCallbackError } from './callback-failure';
import { type TestOperation, toTestOperation } from './operation-data';
import {
  type CallbackDetails,
  type ChainedInvokeDetails,
  type ContextDetails,
  callbackDetailsOf,
  chainedInvokeDetailsOf,
  contextDetailsOf,
  type StepDetails,
  stepDetailsOf,
  type WaitDetails,
  waitDetailsOf,
} from './operation-details';

/** What `waitForData` waits for (AWS's values). */
export const WaitingOperationStatus = {
  /** The operation exists (for a waitForCallback: its callback exists, so it has an id). */
  STARTED: 'STARTED',
  /** As COMPLETED, except for a waitForCallback: its submitter has run (its callback can be completed). */
  SUBMITTED: 'SUBMITTED',
  /** The operation has ended (SUCCEEDED, FAILED, CANCELLED, STOPPED or TIMED_OUT). */
  COMPLETED: 'COMPLETED',
} as const;
/** One of {@link WaitingOperationStatus}. */
export type WaitingOperationStatus = (typeof WaitingOperationStatus)[keyof typeof WaitingOperationStatus];

/** What a callback completion resolves to (AWS returns the Lambda API's response). */
export interface CallbackResponse {
  $metadata: Record<string, never>;
}

/** Where a {@link DurableOperation} reads its run and sends callbacks. */
export interface OperationSource {
  /** The run's operations now. */
  operations(): readonly Operation[];
  /** Calls `listener` whenever the run may have changed; returns a function that stops it. */
  subscribe?(listener: () => void): () => void;
  /** True once the run has ended (nothing more will change). */
  ended?(): boolean;
  /**
   * The test is handling the operation `find` resolves to (it waits for it, or heartbeats it):
   * while its callback is open, the virtual clock does not jump to that callback's deadlines.
   */
  hold?(find: () => Operation | undefined): void;
  /** The history events of one operation, in Lambda's `GetDurableExecutionHistory` shape. */
  events?(operationId: string): AwsHistoryEvent[] | undefined;
  sendCallbackSuccess?(callbackId: string, result?: string): Promise<void>;
  sendCallbackFailure?(callbackId: string, error: ErrorObject): Promise<void>;
  sendCallbackHeartbeat?(callbackId: string): Promise<void>;
}

const RESPONSE: CallbackResponse = Object.freeze({ $metadata: Object.freeze({}) }) as CallbackResponse;

/**
 * One operation of a run, as the test runner shows it (AWS's `DurableOperation`). A handle taken
 * before `run` (by name or index) looks the operation up when asked. Like AWS's, the simple
 * getters, the detail getters and `getOperationData` answer undefined while the run has no such
 * operation (a detail getter of the wrong type throws); `getStoredOperation` and the callback
 * senders throw, naming the handle.
 */
export class DurableOperation<TResult = unknown> {
  constructor(
    private readonly find: (operations: readonly Operation[]) => Operation | undefined,
    private readonly source: OperationSource,
    private readonly label: string,
  ) {}

  private resolve(): Operation | undefined {
    return this.find(this.source.operations());
  }

  private stored(): Operation {
    const op = this.resolve();
    if (!op) throw new Error(`no operation ${this.label} in the last run`);
    return op;
  }

  /**
   * The operation as AWS's testing package returns it (`Date` timestamps, AWS's fields), our own
   * fields non-enumerable beside them (see {@link TestOperation}).
   */
  getOperationData(): TestOperation | undefined {
    const op = this.resolve();
    return op && toTestOperation(op);
  }

  /** The operation as our engine stores it (epoch-ms timestamps, our extra fields). */
  getStoredOperation(): Operation {
    return this.stored();
  }

  /** True when the run has this operation. */
  exists(): boolean {
    return this.resolve() !== undefined;
  }

  getId(): string | undefined {
    return this.resolve()?.Id;
  }

  getName(): string | undefined {
    return this.resolve()?.Name;
  }

  getType(): OperationType | undefined {
    return this.resolve()?.Type;
  }

  getSubType(): string | undefined {
    return this.resolve()?.SubType;
  }

  getStatus(): OperationStatus | undefined {
    return this.resolve()?.Status;
  }

  getParentId(): string | undefined {
    return this.resolve()?.ParentId;
  }

  getStartTimestamp(): Date | undefined {
    const t = this.resolve()?.StartTimestamp;
    return t === undefined ? undefined : new Date(t);
  }

  getEndTimestamp(): Date | undefined {
    const t = this.resolve()?.EndTimestamp;
    return t === undefined ? undefined : new Date(t);
  }

  /** True for a `waitForCallback` (a CONTEXT of subtype WaitForCallback). */
  isWaitForCallback(): boolean {
    const op = this.resolve();
    return op?.Type === 'CONTEXT' && op.SubType === 'WaitForCallback';
  }

  /** True for a callback (`createCallback`, or the callback inside a waitForCallback). */
  isCallback(): boolean {
    return this.resolve()?.Type === 'CALLBACK';
  }

  /** The history events of this operation, in Lambda's `GetDurableExecutionHistory` shape. */
  getEvents(): AwsHistoryEvent[] | undefined {
    const op = this.resolve();
    return op && this.source.events ? this.source.events(op.Id) : undefined;
  }

  /** The step's attempts, result (JSON-parsed when it is JSON) and error. */
  getStepDetails<T = TResult>(): StepDetails<T> | undefined {
    const op = this.ofType('STEP');
    return op && stepDetailsOf<T>(op);
  }

  /** The wait's length and end. */
  getWaitDetails(): WaitDetails | undefined {
    const op = this.ofType('WAIT');
    return op && waitDetailsOf(op);
  }

  /** The child context's result or error. */
  getContextDetails<T = TResult>(): ContextDetails<T> | undefined {
    const op = this.ofType('CONTEXT');
    return op && contextDetailsOf<T>(op);
  }

  /** The chained invoke's result or error. */
  getChainedInvokeDetails<T = TResult>(): ChainedInvokeDetails<T> | undefined {
    const op = this.resolve();
    if (!op) return undefined;
    if (op.Type !== 'CHAINED_INVOKE') throw new Error(`Operation type ${op.Type} is not INVOKE`);
    return chainedInvokeDetailsOf<T>(op);
  }

  /** The operations directly inside this one (a child context's). */
  getChildOperations(): DurableOperation[] | undefined {
    const id = this.resolve()?.Id;
    if (id === undefined) return undefined;
    return this.source
      .operations()
      .filter((op) => op.ParentId === id)
      .map((op) => new DurableOperation((all) => all.find((o) => o.Id === op.Id), this.source, `id ${op.Id}`));
  }

  /** The callback's id and outcome (for a waitForCallback: its inner callback's). */
  getCallbackDetails<T = TResult>(): CallbackDetails<T> | undefined {
    return this.resolve() ? callbackDetailsOf<T>(this.callbackOperation()) : undefined;
  }

  /** Completes this callback (or a waitForCallback's) with a result string. */
  async sendCallbackSuccess(result?: string): Promise<CallbackResponse> {
    const id = this.callbackId();
    await this.require('sendCallbackSuccess')(id, result);
    return RESPONSE;
  }

  /**
   * Fails this callback (or a waitForCallback's) with AWS's `ErrorObject`
   * (`{ ErrorMessage, ErrorType, ErrorData, StackTrace }`), or our `{ errorMessage, errorType }`,
   * or an `Error`.
   */
  async sendCallbackFailure(error?: CallbackFailureInput): Promise<CallbackResponse> {
    const id = this.callbackId();
    await this.require('sendCallbackFailure')(id, toCallbackError(error));
    return RESPONSE;
  }

  /** Sends a heartbeat to this callback (or a waitForCallback's). */
  async sendCallbackHeartbeat(): Promise<CallbackResponse> {
    const id = this.callbackId();
    this.source.hold?.(() => this.resolve());
    await this.require('sendCallbackHeartbeat')(id);
    return RESPONSE;
  }

  /**
   * Resolves once the operation reaches `status` (default STARTED) in the running run, so a test
   * can complete a callback while `run()` is still going. Rejects if the run ends first.
   */
  waitForData(status: WaitingOperationStatus = WaitingOperationStatus.STARTED): Promise<DurableOperation<TResult>> {
    // The test means to act on this operation: its callback's deadlines wait for the test.
    this.source.hold?.(() => this.resolve());
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        if (this.reached(status)) {
          resolve(this);
          return true;
        }
        if (this.source.ended?.()) {
          reject(
            new Error(
              `Operation was not found after execution completion. Expected status: ${status}. ` +
                `(operation ${this.label}) This typically means the operation was never executed or the test is waiting for the wrong operation.`,
            ),
          );
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

  /**
   * AWS's rules: STARTED once the operation exists, COMPLETED (and SUBMITTED) once it ended. A
   * waitForCallback is STARTED once its callback exists (so it has an id to complete),
   * SUBMITTED once its submitter ended, COMPLETED once its callback ended.
   */
  private reached(status: WaitingOperationStatus): boolean {
    const op = this.resolve();
    if (!op) return false;
    if (op.Type !== 'CONTEXT' || op.SubType !== 'WaitForCallback') {
      return status === WaitingOperationStatus.STARTED || isTerminal(op.Status);
    }
    if (isTerminal(op.Status)) return true;
    const children = this.source.operations().filter((o) => o.ParentId === op.Id);
    const callback = children.find((o) => o.Type === 'CALLBACK');
    if (status === WaitingOperationStatus.STARTED) return callback !== undefined;
    if (status === WaitingOperationStatus.COMPLETED) return callback !== undefined && isTerminal(callback.Status);
    return callback !== undefined && children.some((o) => o.Type === 'STEP' && isTerminal(o.Status));
  }

  private callbackOperation(): Operation {
    const op = this.stored();
    if (op.Type === 'CALLBACK') return op;
    if (op.Type === 'CONTEXT') {
      // AWS looks inside a waitForCallback only; any context holding a callback is accepted here.
      const callback = this.source.operations().find((o) => o.ParentId === op.Id && o.Type === 'CALLBACK');
      if (callback) return callback;
      if (op.SubType === 'WaitForCallback')
        throw new Error('Could not find CALLBACK operation in WAIT_FOR_CALLBACK context');
    }
    throw new Error(`Operation with Type ${op.Type} and SubType ${op.SubType} is not a valid callback`);
  }

  private require<K extends 'sendCallbackSuccess' | 'sendCallbackFailure' | 'sendCallbackHeartbeat'>(
    name: K,
  ): NonNullable<OperationSource[K]> {
    const fn = this.source[name];
    if (!fn) throw new Error(`${name} needs a LocalDurableTestRunner run`);
    return fn.bind(this.source) as NonNullable<OperationSource[K]>;
  }

  /** The operation, or undefined while the run has none; a wrong type throws (AWS's rules). */
  private ofType(type: OperationType): Operation | undefined {
    const op = this.resolve();
    if (op && op.Type !== type) throw new Error(`Operation type ${op.Type} is not ${type}`);
    return op;
  }

  /** The id to complete: a missing operation or one with no callback throws, naming it. */
  private callbackId(): string {
    return callbackDetailsOf(this.callbackOperation()).callbackId;
  }
}
