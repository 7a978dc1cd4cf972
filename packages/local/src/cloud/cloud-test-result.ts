import type { InvocationWire, RunWire } from '@durable-lambda/api';
import type { AwsHistoryEvent } from '@durable-lambda/engine';
import type { Operation, OperationStatus } from '@durable-lambda/protocol';
import { CloudDurableOperation } from './cloud-operation';
import { CloudRunState } from './cloud-run-state';
import type { CloudExecutionStatus, CloudInvocation, CloudPrintConfig, CloudTestResultError } from './cloud-types';
import { executionStatus, testErrorFromWire } from './from-wire';

const ALL_COLUMNS: Required<CloudPrintConfig> = {
  parentId: true,
  name: true,
  type: true,
  subType: true,
  status: true,
  startTime: true,
  endTime: true,
  duration: true,
};

/**
 * What `CloudDurableTestRunner.run` returns: AWS's `TestResult`, read from the run as the control
 * API last showed it. It keeps its own copy, so a later run or `reset()` does not change it.
 */
export class CloudTestResult<TResult = unknown> {
  private readonly state: CloudRunState;

  constructor(
    source: CloudRunState,
    private readonly run: RunWire,
    operations: readonly Operation[],
    invocations: readonly InvocationWire[],
  ) {
    // A frozen view: its operations answer from this run, whatever the runner does next.
    this.state = new CloudRunState(source.callbacks);
    this.state.update(run, operations, invocations);
    this.state.end();
  }

  /** The run's id in our control API. */
  getRunId(): string {
    return this.run.runId;
  }

  /** AWS's `ExecutionStatus` of the run. */
  getStatus(): CloudExecutionStatus {
    return executionStatus(this.run.status);
  }

  /**
   * The state the run published last (`ctx.publish`), with when it was published and how many
   * published states were stored; `undefined` when it published none. Ours, as the local runner's.
   */
  getPublished<TState = unknown>(): { state: TState; at: Date; seq: number } | undefined {
    const published = this.run.published;
    if (!published) return undefined;
    return { state: published.state as TState, at: new Date(published.at), seq: published.seq };
  }

  /** The run's search tags (`ctx.tag`, or given at start), key to value; `{}` when it has none. Ours, as the local runner's. */
  getTags(): Record<string, string> {
    return { ...this.run.tags };
  }

  /** The run's result; throws an `Error` with the run's error message when it did not succeed. */
  getResult(): TResult | undefined {
    if (this.run.status !== 'SUCCEEDED') {
      const failure = this.getErrorOf();
      const error = new Error(failure.errorMessage?.trim());
      if (failure.stackTrace) error.stack = failure.stackTrace.join('\n');
      throw error;
    }
    return this.run.result as TResult | undefined;
  }

  /** The run's error in AWS's shape; throws for a run that succeeded. */
  getError(): CloudTestResultError {
    if (this.run.status === 'SUCCEEDED') throw new Error('Cannot get error for succeeded execution');
    return this.getErrorOf();
  }

  private getErrorOf(): CloudTestResultError {
    return (
      testErrorFromWire(this.run.error) ?? {
        errorMessage: `Execution failed with status "${this.getStatus()}"`,
        errorData: undefined,
        errorType: undefined,
        stackTrace: undefined,
      }
    );
  }

  /** Every operation but the execution, in creation order; with `status`, only those in it. */
  getOperations(params?: { status: OperationStatus }): CloudDurableOperation[] {
    return this.state
      .visible()
      .filter((view) => params === undefined || view.operation.Status === params.status)
      .map((view) => {
        const id = view.operation.Id as string;
        return new CloudDurableOperation(this.state, (state) => state.byId(id), `id ${id}`);
      });
  }

  /** The run's invocations, when the backend records them (the dev server's store does). */
  getInvocations(): CloudInvocation[] {
    return this.state.invocations.map((invocation) => ({
      startTimestamp: new Date(invocation.startedAt),
      endTimestamp: invocation.endedAt === undefined ? undefined : new Date(invocation.endedAt),
      requestId: undefined,
      error: undefined,
    }));
  }

  /** The run's history events, in the shape of Lambda's `GetDurableExecutionHistory` (`Events`). */
  getHistoryEvents(): AwsHistoryEvent[] {
    return this.state.events();
  }

  /** Prints a table of the operations (AWS's columns) with `console.table`. */
  print(config?: CloudPrintConfig): void {
    const operations = this.getOperations();
    if (operations.length === 0) {
      console.log('No operations found.');
      return;
    }
    const columns = { ...ALL_COLUMNS, ...config };
    const rows = operations.map((op) => {
      const start = op.getStartTimestamp();
      const end = op.getEndTimestamp();
      const row: Record<string, string> = {};
      if (columns.parentId) row.parentId = op.getParentId() ?? '-';
      if (columns.name) row.name = op.getName() ?? '-';
      if (columns.type) row.type = op.getType() ?? '-';
      if (columns.subType) row.subType = op.getSubType() ?? '-';
      if (columns.status) row.status = op.getStatus() ?? '-';
      if (columns.startTime) row.startTime = start ? start.toISOString() : '-';
      if (columns.endTime) row.endTime = end ? end.toISOString() : '-';
      if (columns.duration) row.duration = start && end ? `${end.getTime() - start.getTime()}ms` : '-';
      return row;
    });
    console.table(rows);
  }
}
