import type { AwsHistoryEvent, RunRecord } from '@durable-lambda/engine';
import type { Operation, OperationStatus } from '@durable-lambda/protocol';
import type { LogEntry } from '@durable-lambda/sdk';
import type { FaultRecord } from '../faults/fault-plan';
import { ExecutionStatus } from './aws-enums';
import type { ResultHistory } from './history';
import type { TestInvocation } from './invocations';
import { parseLoose } from './operation-details';
import { DurableOperation, type OperationSource } from './operation-view';
import { type PrintConfig, printOperations } from './result-print';
import { type TestError, toTestError, withHidden } from './test-errors';

export type { ResultHistory } from './history';
export type { TestInvocation } from './invocations';

/**
 * What `LocalDurableTestRunner.run` returns: AWS's `TestResult`, plus our extras (run id, logs,
 * faults, invocation count).
 */
export class DurableTestResult<TResult = unknown> {
  constructor(
    private readonly run: RunRecord,
    private readonly operations: readonly Operation[],
    private readonly invocations: readonly TestInvocation[],
    private readonly logs: readonly LogEntry[],
    private readonly faults: readonly FaultRecord[] = [],
    private readonly history?: ResultHistory,
  ) {}

  /**
   * SUCCEEDED, FAILED, TIMED_OUT, or STOPPED (a run cancelled through our API is shown as
   * STOPPED, the status Lambda gives a stopped execution).
   */
  getStatus(): ExecutionStatus {
    if (this.run.status === 'QUEUED') return ExecutionStatus.RUNNING;
    return this.run.status === 'CANCELLED' ? ExecutionStatus.STOPPED : this.run.status;
  }

  /** The run's id. */
  getRunId(): string {
    return this.run.runId;
  }

  /**
   * The run's result (JSON-parsed when it is JSON, as AWS does). When the run did not succeed it
   * throws, as AWS's does, an `Error` whose message is the run's error message and whose stack is
   * the run's stack trace; the error's type and our code ride along, non-enumerable.
   */
  getResult(): TResult {
    if (this.run.status !== 'SUCCEEDED') {
      const failure = this.failure();
      const error = new Error(failure.errorMessage?.trim());
      if (failure.stackTrace) error.stack = failure.stackTrace.join('\n');
      throw withHidden(error, { errorType: failure.errorType, code: failure.code });
    }
    return parseLoose<TResult>(this.run.result) as TResult;
  }

  /**
   * The state the run published last (`ctx.publish`), parsed from its JSON, with when it was
   * published and how many published states were stored; `undefined` when it published none. Ours.
   */
  getPublished<TState = unknown>(): { state: TState; at: Date; seq: number } | undefined {
    const published = this.run.published;
    if (!published) return undefined;
    return { state: JSON.parse(published.state) as TState, at: new Date(published.at), seq: published.seq };
  }

  /** The run's search tags (`ctx.tag`, or given at start), key to value; `{}` when it has none. Ours. */
  getTags(): Record<string, string> {
    return { ...this.run.tags };
  }

  /** The run's error (exactly AWS's four fields; our `code` non-enumerable). Throws for a run that succeeded, as AWS's does. */
  getError(): TestError {
    if (this.run.status === 'SUCCEEDED') throw new Error('Cannot get error for succeeded execution');
    return this.failure();
  }

  private failure(): TestError {
    return (
      toTestError(this.run.error) ??
      withHidden(
        {
          errorMessage: `Execution failed with status "${this.getStatus()}"`,
          errorData: undefined,
          errorType: undefined,
          stackTrace: undefined,
        },
        { code: undefined, recordedStackTrace: undefined },
      )
    );
  }

  /** Every operation but the execution itself, in the order they were created. */
  getOperations(filter: { status?: OperationStatus } = {}): DurableOperation[] {
    const source: OperationSource = {
      operations: () => this.operations,
      ...(this.history ? { events: (id: string) => this.history?.of(id) ?? [] } : {}),
    };
    return this.operations
      .filter((op) => op.Type !== 'EXECUTION' && (filter.status === undefined || op.Status === filter.status))
      .map((op) => new DurableOperation((all) => all.find((o) => o.Id === op.Id), source, `id ${op.Id}`));
  }

  /** The invocations the run took, in order (AWS's four fields; our index, status, startedAt non-enumerable). */
  getInvocations(): TestInvocation[] {
    return [...this.invocations];
  }

  /** How many invocations the run took (each wait or backoff ends one). */
  getInvocationCount(): number {
    return this.invocations.length;
  }

  /**
   * The run's history, as Lambda's `GetDurableExecutionHistory` returns it (`Event[]`: `EventType`,
   * `SubType`, `Name`, `Id`, `ParentId`, `EventTimestamp`, per-type details), numbered from 1.
   */
  getHistoryEvents(): AwsHistoryEvent[] {
    return this.history ? this.history.all() : [];
  }

  /** Prints the operations as a table (`console.table`), with AWS's columns. */
  print(config?: PrintConfig): void {
    printOperations(this.getOperations(), config);
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
