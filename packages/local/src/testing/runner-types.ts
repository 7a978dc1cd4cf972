import type { DurableOperation } from './operation-view';
import type { DurableTestResult } from './test-result';

/** What to run (AWS's `InvokeRequest`). */
export interface RunOptions {
  /** The event the handler receives. Default `{}`, as AWS's runner hands it. */
  payload?: unknown;
}

/** AWS's name of {@link RunOptions}. */
export type InvokeRequest = RunOptions;

/** AWS's name of our result class: what `run()` resolves to. */
export type TestResult<TResult = unknown> = DurableTestResult<TResult>;

/** AWS's `DurableTestRunner` interface: what both local and cloud runners offer. */
export interface DurableTestRunner<TDurableOperation extends DurableOperation = DurableOperation, TResult = unknown> {
  run(params?: InvokeRequest): Promise<TestResult<TResult>>;
  getOperation(name: string): TDurableOperation;
  getOperationByIndex(index: number): TDurableOperation;
  getOperationByNameAndIndex(name: string, index: number): TDurableOperation;
  getOperationById(id: string): TDurableOperation;
}
