import {
  CheckpointRejectedError,
  type DurableInvocation,
  executionArn,
  FencedError,
  type Operation,
  type OperationUpdate,
} from '@durable-lambda/protocol';
import { EXECUTION_OPERATION_ID } from '../engine';
import { EngineError } from '../engine-error';
import { EngineInputError } from '../errors';
import { fromAwsUpdate, toAwsOperation } from './aws-mapping';
import type {
  AwsCheckpointRequest,
  AwsCheckpointResponse,
  AwsDurableExecutionClient,
  AwsGetStateRequest,
  AwsGetStateResponse,
  AwsOperation,
} from './aws-shapes';

/** How far a transport failure reaches, in AWS's `DurableExecutionClientErrorScope` words. */
export type AwsErrorScope = 'INVOCATION' | 'EXECUTION';

/** The stable codes of an {@link AwsTransportError}. */
export type AwsTransportErrorCode =
  | 'stale_checkpoint_token'
  | 'checkpoint_rejected'
  | 'invalid_argument'
  | 'backend_fault';

/**
 * A failure of {@link EngineDurableExecutionClient}, classified the way AWS's SDK reads a
 * `DurableExecutionClientError` (it matches the `isDurableExecutionClientError` marker and
 * `scope`, not the class): INVOCATION ends only this invocation (a stale token, a store fault),
 * EXECUTION fails the run (an update the engine refuses, a malformed request).
 */
export class AwsTransportError extends EngineError<AwsTransportErrorCode> {
  /** The marker AWS's `isDurableExecutionClientError` looks for. */
  readonly isDurableExecutionClientError = true;
  constructor(
    message: string,
    /** How far the failure reaches. */
    readonly scope: AwsErrorScope,
    /** Stable code: `stale_checkpoint_token`, `checkpoint_rejected`, `invalid_argument`, `backend_fault`. */
    readonly code: AwsTransportErrorCode,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = code === 'stale_checkpoint_token' ? 'InvalidParameterValueException' : 'DurableExecutionClientError';
  }
}

/** Options of an {@link EngineDurableExecutionClient}. */
export interface EngineClientOptions {
  /** Operations per page of `getExecutionState` and of the invocation input. Default 1,000 (Lambda's). */
  pageSize?: number;
}

const DEFAULT_PAGE = 1000;

/**
 * What an invocation may offer besides {@link DurableInvocation} (our engine's session does): the
 * operations time alone changed since it was last asked. With it a checkpoint's answer is built
 * from the operations that changed, not from a scan of every operation of the run.
 */
interface SettledByTimeSource {
  takeSettledByTime(): readonly Operation[];
}

function settledByTimeSource(invocation: DurableInvocation): SettledByTimeSource | undefined {
  const candidate = invocation as DurableInvocation & Partial<SettledByTimeSource>;
  return typeof candidate.takeSettledByTime === 'function' ? (candidate as SettledByTimeSource) : undefined;
}

/**
 * AWS's `DurableExecutionClient` over one invocation of our engine: `getExecutionState` pages
 * through the run's operations in AWS's shape, `checkpoint` applies AWS's updates through the
 * invocation's fenced `checkpoint` and answers with a new token and the operations that changed
 * since the SDK last saw them. A fenced write (a newer invocation owns the run) is reported as a
 * stale checkpoint token, which AWS's SDK treats as the end of this invocation only.
 */
export class EngineDurableExecutionClient implements AwsDurableExecutionClient {
  /** The Lambda-style ARN this transport answers to. */
  readonly durableExecutionArn: string;
  private readonly prefix: string;
  private sequence = 0;
  private readonly pageSize: number;
  /**
   * What the SDK was last told of each operation, so answers carry only changes: the operation as
   * it was shown, and its AWS shape's JSON once a comparison needed it (most never do).
   */
  private readonly seen = new Map<string, { op: Operation; json?: string }>();
  /** The state the invocation input pages through, fixed at its start so pages do not shift. */
  private snapshot: AwsOperation[] = [];
  private fencedError: FencedError | undefined;
  private executionResult: string | undefined;
  /** Undefined for an invocation that cannot say what time changed: each checkpoint then scans. */
  private readonly byTime: SettledByTimeSource | undefined;

  constructor(
    private readonly invocation: DurableInvocation,
    options: EngineClientOptions = {},
  ) {
    const size = options.pageSize ?? DEFAULT_PAGE;
    if (!Number.isInteger(size) || size < 1) throw new EngineInputError('pageSize', 'must be a positive integer');
    this.pageSize = size;
    // Unique to this creation of the run id, as our SDK names it too.
    this.durableExecutionArn = executionArn(invocation.functionName, invocation.runId, invocation.incarnation);
    this.prefix = `dl1.${invocation.runId}.`;
    this.byTime = settledByTimeSource(invocation);
  }

  /** The token the next checkpoint must carry. */
  get checkpointToken(): string {
    return `${this.prefix}${this.sequence}`;
  }

  /** True once a checkpoint was refused because a newer invocation owns the run. */
  get fenced(): boolean {
    return this.fencedError !== undefined;
  }

  /**
   * The result AWS's SDK checkpointed as an EXECUTION update (it does so for results too large
   * for a Lambda response, then returns an empty `Result`).
   */
  get checkpointedResult(): string | undefined {
    return this.executionResult;
  }

  /** The first page of the run's state for the invocation input; the rest is read through `getExecutionState`. */
  initialState(): { Operations: AwsOperation[]; NextMarker?: string } {
    const ops = [...this.invocation.operations];
    // AWS's SDK takes the first operation it is handed as the execution (it reads the input there).
    ops.sort((a, b) => Number(b.Id === EXECUTION_OPERATION_ID) - Number(a.Id === EXECUTION_OPERATION_ID));
    this.snapshot = ops.map((op) => this.show(op));
    return this.page(0, this.pageSize);
  }

  async getExecutionState(params: AwsGetStateRequest): Promise<AwsGetStateResponse> {
    this.checkTarget(params, false);
    const start = params.Marker === undefined || params.Marker === '' ? 0 : Number(params.Marker);
    if (!Number.isInteger(start) || start < 0 || start > this.snapshot.length) {
      throw new AwsTransportError('Marker: not a marker this backend issued', 'EXECUTION', 'invalid_argument');
    }
    const size = Math.min(this.pageSize, params.MaxItems ?? this.pageSize);
    return this.page(start, size > 0 ? size : this.pageSize);
  }

  async checkpoint(params: AwsCheckpointRequest): Promise<AwsCheckpointResponse> {
    this.checkTarget(params, true);
    const updates: OperationUpdate[] = [];
    try {
      (params.Updates ?? []).forEach((update, i) => {
        const ours = fromAwsUpdate(update, i);
        // Our engine records the run's result when the invocation closes, not as an operation.
        if (ours.Type === 'EXECUTION' && ours.Action === 'SUCCEED') this.executionResult = ours.Payload ?? '';
        else updates.push(ours);
      });
    } catch (error) {
      throw this.classify(error);
    }
    /** The operations this checkpoint wrote: changed by definition, shown without comparing. */
    let written: readonly Operation[] = [];
    /** Operations that may have changed (time, outside events): shown only if they did. */
    let others: readonly Operation[];
    try {
      // An empty checkpoint is how AWS's SDK polls: read what outside events changed.
      if (updates.length === 0) others = await this.invocation.refresh();
      else {
        written = await this.invocation.checkpoint(updates);
        // Between polls only this checkpoint and time change the invocation's operations (outside
        // events reach it through `refresh`, above): answering from those keeps a run linear.
        others = this.byTime ? this.byTime.takeSettledByTime() : this.invocation.operations;
      }
    } catch (error) {
      throw this.classify(error);
    }
    this.sequence += 1;
    const news = new Map<string, AwsOperation>();
    for (const op of written) {
      if (news.has(op.Id)) continue;
      this.seen.set(op.Id, { op });
      news.set(op.Id, toAwsOperation(op));
    }
    for (const op of others) {
      if (news.has(op.Id)) continue;
      const shown = this.changed(op);
      if (shown) news.set(op.Id, shown);
    }
    return { CheckpointToken: this.checkpointToken, NewExecutionState: { Operations: [...news.values()] } };
  }

  private page(start: number, size: number): { Operations: AwsOperation[]; NextMarker?: string } {
    const end = start + size;
    const Operations = this.snapshot.slice(start, end);
    return end < this.snapshot.length ? { Operations, NextMarker: String(end) } : { Operations };
  }

  /** The operation in AWS's shape, remembered as seen. */
  private show(op: Operation): AwsOperation {
    this.seen.set(op.Id, { op });
    return toAwsOperation(op);
  }

  /**
   * The operation in AWS's shape when it differs from what the SDK last saw, else undefined. The
   * engine never changes an operation in place (a change is a new object), so the object shown
   * last is unchanged for sure; any other is compared by its AWS shape, as the SDK sees it.
   */
  private changed(op: Operation): AwsOperation | undefined {
    const last = this.seen.get(op.Id);
    if (last?.op === op) return undefined;
    const aws = toAwsOperation(op);
    const json = JSON.stringify(aws);
    if (last) last.json ??= JSON.stringify(toAwsOperation(last.op));
    this.seen.set(op.Id, { op, json });
    return last?.json === json ? undefined : aws;
  }

  private checkTarget(params: { DurableExecutionArn?: string; CheckpointToken?: string }, write: boolean): void {
    if (params?.DurableExecutionArn !== this.durableExecutionArn) {
      throw new AwsTransportError(
        `DurableExecutionArn: expected ${this.durableExecutionArn}`,
        'EXECUTION',
        'invalid_argument',
      );
    }
    const token = params.CheckpointToken;
    // Reads accept any token this invocation issued; a write must carry the latest.
    const valid = write ? token === this.checkpointToken : typeof token === 'string' && token.startsWith(this.prefix);
    if (!valid || this.fencedError) {
      throw new AwsTransportError(
        'Invalid Checkpoint Token: not the latest token of this invocation',
        'INVOCATION',
        'stale_checkpoint_token',
      );
    }
  }

  private classify(error: unknown): AwsTransportError {
    if (error instanceof FencedError) {
      this.fencedError = error;
      return new AwsTransportError(
        `Invalid Checkpoint Token: ${error.message}`,
        'INVOCATION',
        'stale_checkpoint_token',
        {
          cause: error,
        },
      );
    }
    if (error instanceof CheckpointRejectedError) {
      return new AwsTransportError(error.message, 'EXECUTION', 'checkpoint_rejected', { cause: error });
    }
    if (error instanceof EngineInputError) {
      return new AwsTransportError(error.message, 'EXECUTION', 'invalid_argument', { cause: error });
    }
    // Left to the caller: the invocation ends, the run resumes later (lease, wake-up or reconciler).
    const message = error instanceof Error ? error.message : String(error);
    return new AwsTransportError(message, 'INVOCATION', 'backend_fault', { cause: error });
  }
}
