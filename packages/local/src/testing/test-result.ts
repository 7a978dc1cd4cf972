import type { RunRecord, RunStatus } from '@durable-lambda/engine';
import type { Operation, OperationStatus } from '@durable-lambda/protocol';
import type { LogEntry } from '@durable-lambda/sdk';
import type { FaultRecord } from '../faults/fault-plan';
import { DurableOperation, type TestError, toTestError } from './operation-view';

/** One invocation the runner made. */
export interface TestInvocation {
  /** 0-based. */
  index: number;
  /** Virtual time it started at. */
  startedAt: Date;
  /**
   * How it ended: SUCCEEDED, FAILED, PENDING, or STOPPED (fenced). With faults also KILLED (an
   * injected fault killed it) and FAULTED (it threw, and Lambda retried its event).
   */
  status: string;
}

/** What `LocalDurableTestRunner.run` returns (compat names). */
export class DurableTestResult<TResult = unknown> {
  constructor(
    private readonly run: RunRecord,
    private readonly operations: readonly Operation[],
    private readonly invocations: readonly TestInvocation[],
    private readonly logs: readonly LogEntry[],
    private readonly faults: readonly FaultRecord[] = [],
  ) {}

  /** SUCCEEDED, FAILED, or RUNNING when the run waits for an outside event. */
  getStatus(): RunStatus {
    return this.run.status;
  }

  /** The run's id. */
  getRunId(): string {
    return this.run.runId;
  }

  /** The run's result; throws with the run's error when it did not succeed. */
  getResult(): TResult {
    if (this.run.status !== 'SUCCEEDED') {
      const error = this.getError();
      throw new Error(
        `the run did not succeed (${this.run.status})${error ? `: ${error.errorType}: ${error.errorMessage}` : ''}`,
      );
    }
    return (this.run.result === undefined ? undefined : JSON.parse(this.run.result)) as TResult;
  }

  /** The run's error, when it failed. */
  getError(): TestError | undefined {
    return toTestError(this.run.error);
  }

  /** Every operation but the execution itself, in the order they were created. */
  getOperations(filter: { status?: OperationStatus } = {}): DurableOperation[] {
    return this.operations
      .filter((op) => op.Type !== 'EXECUTION' && (filter.status === undefined || op.Status === filter.status))
      .map(
        (op) =>
          new DurableOperation(
            (all) => all.find((o) => o.Id === op.Id),
            { operations: () => this.operations },
            `id ${op.Id}`,
          ),
      );
  }

  /** The invocations the run took, in order. */
  getInvocations(): readonly TestInvocation[] {
    return this.invocations;
  }

  /** How many invocations the run took (each wait or backoff ends one). */
  getInvocationCount(): number {
    return this.invocations.length;
  }

  /**
   * The faults injected into this run (and its child runs), in order, when the runner was given
   * `faults`; empty otherwise. Each names its kind, run, invocation and operation.
   */
  getFaults(): readonly FaultRecord[] {
    return this.faults;
  }

  /** Log entries written by the handler and its steps. */
  getLogs(): readonly LogEntry[] {
    return this.logs;
  }
}
