import { ErrorCode, withCode } from '../../errors/codes';
import { BatchCompletionError, ChildContextError } from '../../errors/durable-errors';
import type { BatchItem, BatchResult } from '../../types/batch';
import { BatchItemStatus } from '../../types/batch-status';
import type { CompletionReason } from '../../types/completion';

/** The {@link BatchResult} `map` and `parallel` return (AWS's semantics, including its quirks). */
export class BatchResultImpl<TResult> implements BatchResult<TResult> {
  // #private: JSON.stringify(result) shows only `all` and `completionReason`, as in AWS's SDK.
  readonly #successCount: number;
  readonly #failureCount: number;
  readonly #startedCount: number;

  constructor(
    readonly all: Array<BatchItem<TResult>>,
    readonly completionReason: CompletionReason,
  ) {
    let success = 0;
    let failure = 0;
    let started = 0;
    for (const item of all) {
      if (item.status === BatchItemStatus.SUCCEEDED) success++;
      else if (item.status === BatchItemStatus.FAILED) failure++;
      else if (item.status === BatchItemStatus.STARTED) started++;
    }
    this.#successCount = success;
    this.#failureCount = failure;
    this.#startedCount = started;
  }

  succeeded(): Array<BatchItem<TResult> & { result: TResult }> {
    // AWS's SDK leaves out items whose result is undefined; so do we, to behave the same.
    return this.all.filter(
      (item): item is BatchItem<TResult> & { result: TResult } =>
        item.status === BatchItemStatus.SUCCEEDED && item.result !== undefined,
    );
  }

  failed(): Array<BatchItem<TResult> & { error: ChildContextError }> {
    return this.all.filter(
      (item): item is BatchItem<TResult> & { error: ChildContextError } =>
        item.status === BatchItemStatus.FAILED && item.error !== undefined,
    );
  }

  started(): Array<BatchItem<TResult> & { status: 'STARTED' }> {
    return this.all.filter(
      (item): item is BatchItem<TResult> & { status: 'STARTED' } => item.status === BatchItemStatus.STARTED,
    );
  }

  get status(): 'SUCCEEDED' | 'FAILED' {
    // A custom completion decision is authoritative, even against the items' own outcomes.
    if (this.completionReason === 'CUSTOM_COMPLETION_FAILED') return BatchItemStatus.FAILED;
    if (this.completionReason === 'CUSTOM_COMPLETION_SUCCEEDED') return BatchItemStatus.SUCCEEDED;
    return this.hasFailure ? BatchItemStatus.FAILED : BatchItemStatus.SUCCEEDED;
  }

  get hasFailure(): boolean {
    return this.#failureCount > 0;
  }

  throwIfError(): void {
    const first = this.all.find((item) => item.status === BatchItemStatus.FAILED)?.error;
    if (first) throw first;
    if (this.status === BatchItemStatus.FAILED) {
      throw withCode(new BatchCompletionError(this.completionReason), ErrorCode.BATCH_FAILED);
    }
  }

  getResults(): TResult[] {
    return this.succeeded().map((item) => item.result);
  }

  getErrors(): ChildContextError[] {
    return this.failed().map((item) => item.error);
  }

  get successCount(): number {
    return this.#successCount;
  }

  get failureCount(): number {
    return this.#failureCount;
  }

  get startedCount(): number {
    return this.#startedCount;
  }

  get totalCount(): number {
    return this.all.length;
  }
}

const REASONS: ReadonlySet<string> = new Set<CompletionReason>([
  'ALL_COMPLETED',
  'MIN_SUCCESSFUL_REACHED',
  'FAILURE_TOLERANCE_EXCEEDED',
  'CUSTOM_COMPLETION_SUCCEEDED',
  'CUSTOM_COMPLETION_FAILED',
]);

/** True for a known {@link CompletionReason}. */
export function isCompletionReason(value: unknown): value is CompletionReason {
  return typeof value === 'string' && REASONS.has(value);
}

/**
 * Turns what a custom batch `serdes` gave back into a BatchResult with its methods (as AWS's SDK
 * does): errors that lost their class on the way are revived as `ChildContextError`.
 */
export function restoreBatchResult<TResult>(value: unknown): BatchResult<TResult> {
  if (value instanceof BatchResultImpl) return value;
  const data = value as { all?: unknown; completionReason?: unknown } | null | undefined;
  if (!data || typeof data !== 'object' || !Array.isArray(data.all)) return value as BatchResult<TResult>;
  const all = (data.all as Array<BatchItem<TResult> & { error?: unknown }>).map((item) => {
    const error = reviveError(item.error);
    const out: BatchItem<TResult> = { ...item, index: item.index, status: item.status };
    if (error === undefined) delete out.error;
    else out.error = error;
    return out;
  });
  return new BatchResultImpl(all, isCompletionReason(data.completionReason) ? data.completionReason : 'ALL_COMPLETED');
}

function reviveError(error: unknown): ChildContextError | undefined {
  if (error === undefined || error === null) return undefined;
  if (error instanceof ChildContextError) return error;
  const e = error as {
    message?: unknown;
    name?: unknown;
    code?: unknown;
    errorType?: unknown;
    ErrorMessage?: unknown;
    ErrorType?: unknown;
    ErrorCode?: unknown;
  };
  const message = String(e.message ?? e.ErrorMessage ?? 'Child context failed');
  const code = String(e.code ?? e.ErrorCode ?? ErrorCode.CHILD_CONTEXT_FAILED);
  return withCode(new ChildContextError(message, error instanceof Error ? error : undefined), code);
}
