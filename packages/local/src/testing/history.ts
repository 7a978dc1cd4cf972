import {
  type AwsHistoryEvent,
  type AwsHistoryInvocation,
  type RunRecord,
  toAwsHistoryEvents,
} from '@durable-lambda/engine';
import type { Operation } from '@durable-lambda/protocol';
import type { TestInvocation } from './invocations';

/** Where a result or an operation reads its history (Lambda's `GetDurableExecutionHistory` shape). */
export interface ResultHistory {
  /** Every event of the run, in order. */
  all(): AwsHistoryEvent[];
  /** The events of one operation, in order. */
  of(operationId: string): AwsHistoryEvent[];
}

/** The invocations as the history mapping takes them (our errors back in `ErrorObject` form). */
function historyInvocations(invocations: readonly TestInvocation[]): AwsHistoryInvocation[] {
  return invocations.map((inv) => ({
    startTimestamp: inv.startedAt,
    ...(inv.endTimestamp === undefined ? {} : { endTimestamp: inv.endTimestamp }),
    ...(inv.requestId === undefined ? {} : { requestId: inv.requestId }),
    ...(inv.error === undefined
      ? {}
      : {
          error: {
            ...(inv.error.errorMessage === undefined ? {} : { ErrorMessage: inv.error.errorMessage }),
            ...(inv.error.errorType === undefined ? {} : { ErrorType: inv.error.errorType }),
            ...(inv.error.errorData === undefined ? {} : { ErrorData: inv.error.errorData }),
            ...(inv.error.stackTrace === undefined ? {} : { StackTrace: inv.error.stackTrace }),
          },
        }),
  }));
}

/**
 * The invocations as the run recorded their ends (`RunRecord.historyInvocations`: where each
 * stands in its history), each with the request id and error of the runner's invocation that
 * started and ended at the same times (the first not taken: under the virtual clock several may).
 * Undefined for a run that recorded none (the runner's own list is used, ordered by inference).
 */
function recordedInvocations(
  run: RunRecord | undefined,
  invocations: readonly TestInvocation[],
): AwsHistoryInvocation[] | undefined {
  if (run?.historyInvocations === undefined) return undefined;
  const ours = historyInvocations(invocations);
  const taken = new Set<number>();
  return run.historyInvocations.map((recorded) => {
    const index = ours.findIndex(
      (inv, i) =>
        !taken.has(i) &&
        inv.startTimestamp.getTime() === recorded.startedAt &&
        inv.endTimestamp?.getTime() === recorded.endedAt,
    );
    taken.add(index);
    const match = ours[index];
    return {
      startTimestamp: new Date(recorded.startedAt),
      endTimestamp: new Date(recorded.endedAt),
      order: recorded.order,
      ...(match?.requestId === undefined ? {} : { requestId: match.requestId }),
      ...(match?.error === undefined ? {} : { error: match.error }),
    };
  });
}

/**
 * The history of a run from its operations, invocations and record, read when asked (a finished
 * run's is computed once; a running one's on every call, since it changes).
 */
export function runHistory(
  read: () => { operations: readonly Operation[]; invocations: readonly TestInvocation[]; run: RunRecord | undefined },
  settled: boolean,
): ResultHistory {
  let cached: AwsHistoryEvent[] | undefined;
  const all = (): AwsHistoryEvent[] => {
    if (cached) return cached;
    const { operations, invocations, run } = read();
    const events = toAwsHistoryEvents(operations, {
      invocations: recordedInvocations(run, invocations) ?? historyInvocations(invocations),
      ...(run ? { run } : {}),
      attemptCounting: 'service',
    });
    if (settled) cached = events;
    return events;
  };
  return { all, of: (operationId) => all().filter((event) => event.Id === operationId) };
}
