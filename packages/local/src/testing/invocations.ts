import type { InvocationOutput } from '@durable-lambda/protocol';
import { type TestError, type TestResultError, toTestError, withHidden } from './test-errors';

/** One invocation of the handler, as AWS's testing package shows it: exactly these four fields. */
export interface Invocation {
  /** When the invocation started (virtual time under the virtual clock). */
  startTimestamp: Date | undefined;
  /** When it ended. */
  endTimestamp: Date | undefined;
  /** The Lambda request id it ran under. */
  requestId: string | undefined;
  /** The error the invocation ended with (a FAILED run's error); undefined otherwise. */
  error: TestResultError | undefined;
}

/** One invocation the runner made: AWS's {@link Invocation}, plus ours as non-enumerable fields. */
export interface TestInvocation extends Invocation {
  error: TestError | undefined;
  /** Ours (non-enumerable): 0-based. */
  index: number;
  /** Ours (non-enumerable): virtual time it started at (the same as `startTimestamp`). */
  startedAt: Date;
  /**
   * Ours (non-enumerable): how it ended: SUCCEEDED, FAILED, PENDING, or STOPPED (fenced). With
   * faults also KILLED (an injected fault killed it) and FAULTED (it threw, and Lambda retried its
   * event). STARTED while it runs.
   */
  status: string;
}

/** A new invocation record, open (ended by {@link endInvocation}). */
export function startInvocation(index: number, startedAt: number, requestId: string): TestInvocation {
  const start = new Date(startedAt);
  return withHidden(
    {
      startTimestamp: start,
      endTimestamp: undefined as Date | undefined,
      requestId,
      error: undefined as TestError | undefined,
    },
    { index, startedAt: start, status: 'STARTED' },
  );
}

/** Records how an invocation ended. */
export function endInvocation(
  record: TestInvocation,
  endedAt: number,
  status: string,
  output?: InvocationOutput,
): void {
  record.endTimestamp = new Date(endedAt);
  record.status = status;
  if (output?.Status === 'FAILED') record.error = toTestError(output.Error);
}
