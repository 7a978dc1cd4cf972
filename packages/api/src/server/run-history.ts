/**
 * A run's history as the API shows it: each operation with what a reader of the run needs to
 * know beyond its stored form (left behind for good, ended early, how long its last stretch of
 * work took, a batch's items by status, its log lines), and what a running run waits for.
 */
import { isSignalWait, type RunRecord } from '@durable-lambda/engine';
import { isTerminal, type Operation } from '@durable-lambda/protocol';
import type { LogWire, OperationListWire, OperationWire, WaitingForWire } from '../wire';
import { operationToWire } from './convert';
import type { RunJournal, RunLogEntry } from './run-journal';

const iso = (ms: number): string => new Date(ms).toISOString();

const BATCH_SUBTYPES = new Set(['Map', 'Parallel']);

/** Whether an operation has a finished context above it: no replay reaches it again. */
function underFinishedContext(ops: ReadonlyMap<string, Operation>): (op: Operation) => boolean {
  const memo = new Map<string, boolean>();
  const finished = (parentId: string | undefined): boolean => {
    if (parentId === undefined) return false;
    const known = memo.get(parentId);
    if (known !== undefined) return known;
    const parent = ops.get(parentId);
    const result =
      parent !== undefined && parent.Type !== 'EXECUTION' && (isTerminal(parent.Status) || finished(parent.ParentId));
    memo.set(parentId, result);
    return result;
  };
  return (op) => finished(op.ParentId);
}

/** Why an unfinished operation will never finish, or undefined while it still may. */
export function abandonment(
  run: Pick<RunRecord, 'status'>,
  op: Operation,
  underFinished: (op: Operation) => boolean,
): OperationWire['abandoned'] {
  if (op.Type === 'EXECUTION' || isTerminal(op.Status)) return undefined;
  if (underFinished(op)) return 'context_ended';
  return run.status === 'RUNNING' || run.status === 'QUEUED' ? undefined : 'run_ended';
}

/** The latest time in `times` within (after, atMost], or undefined. */
function latestWithin(times: readonly number[], after: number, atMost: number): number | undefined {
  let found: number | undefined;
  for (const t of times) if (t > after && t <= atMost && (found === undefined || t > found)) found = t;
  return found;
}

/**
 * When the operation's last stretch of work began, by what is known: a retry of the run after
 * its start reopened it (so time before the retry is not its own), and a step's last attempt
 * started after the attempt before it failed and within the invocation it ended in (an attempt
 * never spans invocations: a lost invocation fails it). `known` is false when that start is only
 * a lower bound (a retried step, with no invocations recorded).
 */
export function activeFrom(op: Operation, journal: RunJournal, until: number): { from: number; known: boolean } {
  let from = op.StartTimestamp;
  from = Math.max(from, latestWithin(journal.retriedAt, from, until) ?? from);
  let known = true;
  if (op.Type === 'STEP') {
    const attempt = op.StepDetails?.Attempt ?? 0;
    // The failure of the attempt before the current one (a final failure records its own too).
    const last = (op.StepDetails?.FailedAttempts ?? []).filter((f) => f.Attempt < attempt).at(-1);
    const retried = last !== undefined;
    if (last && last.Timestamp <= until) from = Math.max(from, last.Timestamp);
    const within = journal.invocations.find(
      (inv) => inv.startedAt <= until && (inv.endedAt === undefined || inv.endedAt >= until),
    );
    if (within && within.startedAt > from) from = within.startedAt;
    // After a failed attempt the next one began once its backoff (or the run's retry) was over,
    // which only the invocation it ran in tells: without it, the duration is not claimed.
    known = !retried || within !== undefined;
  }
  return { from: Math.min(from, until), known };
}

function logToWire(entry: RunLogEntry): LogWire {
  return {
    at: iso(entry.at),
    level: entry.level,
    message: entry.message,
    ...(entry.operationId === undefined ? {} : { operationId: entry.operationId }),
    ...(entry.attempt === undefined ? {} : { attempt: entry.attempt }),
    ...(entry.data === undefined ? {} : { data: entry.data }),
  };
}

/** What turning some of a run's operations into their history needs to know of the rest. */
export interface HistoryContext {
  /** The operations converted and every ancestor of theirs (whether a finished context is above). */
  known: ReadonlyMap<string, Operation>;
  journal: RunJournal;
  now: number;
  /**
   * The children of each batch, when they are all known (the whole run is read): each map's or
   * parallel's `items` are counted from them. Absent when only a page of the run is read.
   */
  children?: ReadonlyMap<string, readonly Operation[]>;
  /** Each operation's log lines (see {@link logsByOperation}). */
  logsOf: ReadonlyMap<string, LogWire[]>;
}

/**
 * The journal's log lines by the operation that wrote them; `isKnown` tells which operation ids
 * are the run's, and the others' lines (and the context logger's) are the run's own (`run`).
 */
export function logsByOperation(
  journal: RunJournal,
  isKnown: (operationId: string) => boolean,
): { byOperation: Map<string, LogWire[]>; run: LogWire[] } {
  const byOperation = new Map<string, LogWire[]>();
  const run: LogWire[] = [];
  for (const entry of journal.logs) {
    const owner = entry.operationId !== undefined && isKnown(entry.operationId) ? entry.operationId : undefined;
    if (owner === undefined) {
      run.push(logToWire(entry));
      continue;
    }
    const list = byOperation.get(owner) ?? [];
    list.push(logToWire(entry));
    byOperation.set(owner, list);
  }
  return { byOperation, run };
}

/** Operations of a run as its history shows them, with what `context` knows of the others. */
export function operationWires(
  run: RunRecord,
  operations: readonly Operation[],
  context: HistoryContext,
): OperationWire[] {
  const underFinished = underFinishedContext(context.known);
  return operations.map((op): OperationWire => {
    const base = operationToWire(op);
    const abandoned = abandonment(run, op, underFinished);
    const end = op.EndTimestamp;
    const { from, known } = activeFrom(op, context.journal, end ?? context.now);
    const scheduled = op.WaitDetails?.ScheduledEndTimestamp;
    const items = BATCH_SUBTYPES.has(op.SubType ?? '') ? context.children?.get(op.Id) : undefined;
    const logs = context.logsOf.get(op.Id);
    return {
      ...base,
      ...(abandoned ? { abandoned } : {}),
      ...(op.Type === 'WAIT' &&
      op.Status === 'SUCCEEDED' &&
      end !== undefined &&
      scheduled !== undefined &&
      end < scheduled
        ? { endedEarly: true }
        : {}),
      activeFrom: iso(from),
      ...(end === undefined || !known ? {} : { durationMs: Math.max(0, end - from) }),
      ...(items ? { items: countItems(run, items, underFinished) } : {}),
      ...(logs ? { logs } : {}),
    };
  });
}

/** A run's journal as the first page of its history shows it. */
export function journalToWire(
  journal: RunJournal,
  runLogs: LogWire[],
): Required<Pick<OperationListWire, 'invocations' | 'retriedAt' | 'logs' | 'logsDropped'>> {
  return {
    invocations: journal.invocations.map((inv, i) => ({
      number: i + 1,
      startedAt: iso(inv.startedAt),
      ...(inv.endedAt === undefined ? {} : { endedAt: iso(inv.endedAt) }),
      ...(inv.lost ? { lost: true } : {}),
    })),
    retriedAt: journal.retriedAt.map(iso),
    logs: runLogs,
    logsDropped: journal.logsDropped,
  };
}

/** A run's operations, all of them, as one answer of `GET /v1/runs/{runId}/operations` shows them. */
export function historyToWire(
  run: RunRecord,
  operations: readonly Operation[],
  journal: RunJournal,
  now: number,
  withJournal: boolean,
): OperationListWire {
  const byId = new Map(operations.map((op) => [op.Id, op]));
  const children = new Map<string, Operation[]>();
  for (const op of operations) {
    if (op.ParentId === undefined) continue;
    const list = children.get(op.ParentId) ?? [];
    list.push(op);
    children.set(op.ParentId, list);
  }
  const logs = logsByOperation(journal, (id) => byId.has(id));
  const wire = operationWires(run, operations, { known: byId, journal, now, children, logsOf: logs.byOperation });
  return { runId: run.runId, operations: wire, ...(withJournal ? journalToWire(journal, logs.run) : {}) };
}

function countItems(
  run: RunRecord,
  items: readonly Operation[],
  underFinished: (op: Operation) => boolean,
): NonNullable<OperationWire['items']> {
  const byStatus: Record<string, number> = {};
  for (const item of items) {
    const status = abandonment(run, item, underFinished) ? 'ABANDONED' : item.Status;
    byStatus[status] = (byStatus[status] ?? 0) + 1;
  }
  return { total: items.length, byStatus };
}

/**
 * What a RUNNING run waits for, soonest first: an invocation under way, or else each operation
 * still open that no finished context left behind (a wait, a step's next attempt, a callback, a
 * child run); `due` when it has nothing to wait for but is about to run.
 */
export function waitingFor(run: RunRecord, operations: readonly Operation[], now: number): WaitingForWire[] {
  if (run.status !== 'RUNNING') return [];
  if (run.leaseExpiresAt !== undefined && run.leaseExpiresAt > now) return [{ kind: 'invocation' }];
  const byId = new Map(operations.map((op) => [op.Id, op]));
  const underFinished = underFinishedContext(byId);
  const found: Array<WaitingForWire & { sortAt: number }> = [];
  const add = (op: Operation, kind: WaitingForWire['kind'], at: number | undefined, extra: Partial<WaitingForWire>) =>
    found.push({
      kind,
      operationId: op.Id,
      ...(op.Name === undefined ? {} : { name: op.Name }),
      ...(at === undefined ? {} : { at: iso(at) }),
      ...extra,
      sortAt: at ?? Number.POSITIVE_INFINITY,
    });
  for (const op of operations) {
    if (isTerminal(op.Status) || underFinished(op)) continue;
    if (op.Type === 'WAIT' && op.Status === 'STARTED') add(op, 'wait', op.WaitDetails?.ScheduledEndTimestamp, {});
    else if (op.Type === 'STEP' && op.Status === 'PENDING') add(op, 'retry', op.StepDetails?.NextAttemptTimestamp, {});
    else if (isSignalWait(op) && op.Status === 'STARTED') add(op, 'signal', op.CallbackDetails?.TimeoutTimestamp, {});
    else if (op.Type === 'CALLBACK' && op.Status === 'STARTED') {
      add(op, 'callback', op.CallbackDetails?.TimeoutTimestamp, {
        ...(op.CallbackDetails?.CallbackId ? { callbackId: op.CallbackDetails.CallbackId } : {}),
      });
    } else if (op.Type === 'CHAINED_INVOKE' && op.Status === 'STARTED') {
      const d = op.ChainedInvokeDetails;
      add(op, 'child', undefined, {
        ...(d?.ChildRunId ? { childRunId: d.ChildRunId } : {}),
        ...(d?.FunctionName ? { function: d.FunctionName } : {}),
      });
    }
  }
  found.sort((a, b) => a.sortAt - b.sortAt);
  const list = found.map(({ sortAt: _sortAt, ...rest }) => rest);
  const due = (run.nextWakeAt !== undefined && run.nextWakeAt <= now) || run.eventSeq > run.handledEventSeq;
  return due ? [{ kind: 'due' }, ...list] : list;
}
