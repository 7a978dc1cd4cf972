/**
 * A new run as `Engine.startRun` creates it: the request checked, the run record (created leased
 * when the starting invocation holds the first lease), and its EXECUTION operation, written
 * together by the store's one `createRun`.
 */
import { type Operation, tagsProblem } from '@durable-lambda/protocol';
import type { StartRunRequest } from './engine-options';
import { EngineInputError } from './errors';
import { FIRST_HISTORY_ORDER } from './history-order';
import { dueAtOf, type RunRecord } from './ports';
import { newIncarnation } from './run-ids';

/** The id of every run's EXECUTION operation. */
export const EXECUTION_OPERATION_ID = '0';

/** Refuses a start request whose fields have the wrong type or length (`EngineInputError`). */
export function checkStartRequest(request: StartRunRequest): void {
  if (typeof request.functionName !== 'string' || request.functionName.length === 0) {
    throw new EngineInputError('functionName', 'must be a non-empty string');
  }
  if (
    request.runKey !== undefined &&
    (typeof request.runKey !== 'string' || request.runKey.length === 0 || request.runKey.length > 256)
  ) {
    throw new EngineInputError('runKey', 'must be a string of 1-256 characters');
  }
  if (request.input !== undefined && typeof request.input !== 'string') {
    throw new EngineInputError('input', 'must be serialized JSON (a string)');
  }
  if (request.tags !== undefined) {
    const problem = tagsProblem(request.tags);
    if (problem) throw new EngineInputError(problem.field, problem.message);
  }
}

/**
 * The record of run `runId` started by `request` at `now`, with an execution timeout of
 * `timeoutMs` (undefined: none): due at once, or leased by the starting invocation.
 */
export function newRunRecord(
  request: StartRunRequest,
  runId: string,
  now: number,
  timeoutMs: number | undefined,
): RunRecord {
  const run: RunRecord = {
    runId,
    functionName: request.functionName,
    status: 'RUNNING',
    createdAt: now,
    updatedAt: now,
    fence: 0,
    nextWakeAt: now,
    dueAt: now,
    invocations: 0,
    lostInvocations: 0,
    eventSeq: 0,
    handledEventSeq: 0,
    // Its history is recorded as it happens: its first event, ExecutionStarted, is the first.
    historySeq: FIRST_HISTORY_ORDER,
    ...(request.parent ? { parent: request.parent } : {}),
    // Its id names a new run again once this one expires: the incarnation tells the two apart.
    ...(request.runKey === undefined ? {} : { runKey: request.runKey, incarnation: newIncarnation() }),
    ...(request.input === undefined ? {} : { input: request.input }),
    ...(request.tags === undefined || Object.keys(request.tags).length === 0 ? {} : { tags: { ...request.tags } }),
    ...(timeoutMs === undefined ? {} : { deadlineAt: now + timeoutMs, executionTimeoutMs: timeoutMs }),
    ...(request.lease
      ? {
          fence: 1,
          invocations: 1,
          leaseExpiresAt: request.lease.leaseExpiresAt,
          leaseToken: request.lease.leaseToken,
        }
      : {}),
  };
  if (request.buffered) {
    const { key, behind, queuedAt, recheckAt } = request.buffered;
    Object.assign(run, {
      status: 'QUEUED',
      concurrencyKey: key,
      queuedAt,
      queuePriority: 0,
      nextWakeAt: recheckAt,
      dueAt: recheckAt,
      flow: { passed: [], waitingFor: 'schedule', behind },
    } satisfies Partial<RunRecord>);
  }
  if (request.lease) {
    const due = dueAtOf(run);
    if (due !== undefined) run.dueAt = due;
  }
  return run;
}

/** The EXECUTION operation of a run just created (as `startRun` writes it). */
export function executionOf(run: RunRecord): Operation {
  return {
    Id: EXECUTION_OPERATION_ID,
    Type: 'EXECUTION',
    Status: 'STARTED',
    StartTimestamp: run.createdAt,
    ExecutionDetails: run.input === undefined ? {} : { InputPayload: run.input },
    ...(run.historySeq === undefined ? {} : { HistoryOrder: [FIRST_HISTORY_ORDER] }),
  };
}
