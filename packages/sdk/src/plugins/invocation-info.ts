import {
  type DurableInvocation,
  type InvocationOutput,
  incarnationId,
  type LambdaContextLike,
  type Operation,
} from '@durable-lambda/protocol';
import { executionArnOf } from '../runtime/execution-arn';
import type { InvocationResult } from '../runtime/invocation-runtime';
import {
  type InvocationEndInfo,
  type InvocationInfo,
  type OperationInfo,
  PluginInvocationStatus,
} from '../types/plugin';
import { toOperationInfo, toOperationInfoMap } from './operation-info';
import { rememberLeftState, updatedOperationIds } from './updated-operations';

/** The invocation each start info describes, for its end (the handler passes the info alone). */
const invocationOf = new WeakMap<InvocationInfo, DurableInvocation>();

/** The operations changed from outside before each invocation, as its start info names them. */
const updatedBefore = new WeakMap<DurableInvocation, ReadonlySet<string>>();

const NONE: ReadonlySet<string> = new Set();

/**
 * The ids of the operations that changed from outside between the previous invocation and this
 * one (the start info's `updatedOperations`): an operation found ended on replay is reported
 * with `isReplay: false` when it ended then (AWS's `isOperationUpdatedBetweenInvocation`).
 */
export function updatedBetweenInvocations(invocation: DurableInvocation): ReadonlySet<string> {
  return updatedBefore.get(invocation) ?? NONE;
}

function parseInput(input: string | undefined): unknown {
  try {
    return JSON.parse(input ?? '{}');
  } catch {
    return input;
  }
}

/** What `onInvocationStart` and `wrapInvocation` are told about an invocation (AWS's shape). */
export function invocationInfo(invocation: DurableInvocation, lambdaContext: LambdaContextLike): InvocationInfo {
  const execution = invocation.operations.find((op) => op.Type === 'EXECUTION');
  const operations = toOperationInfoMap(invocation.operations, true);
  const updatedOperations: Record<string, OperationInfo> = {};
  const updatedIds = new Set<string>();
  for (const id of updatedOperationIds(invocation)) {
    const op = operations[id];
    if (op) updatedOperations[id] = op;
    updatedIds.add(id);
  }
  updatedBefore.set(invocation, updatedIds);
  const info: InvocationInfo = {
    requestId: lambdaContext.awsRequestId ?? '',
    executionArn: executionArnOf(invocation),
    executionInput: parseInput(invocation.input),
    operations,
    isFirstInvocation: invocation.operations.every((op) => op.Type === 'EXECUTION'),
    updatedOperations,
  };
  if (execution) info.executionStartTimestamp = new Date(execution.StartTimestamp);
  invocationOf.set(info, invocation);
  return info;
}

/** What `onInvocationEnd` is told (AWS's shape): how it ended, with the handler's value or error. */
export function invocationEndInfo(
  start: InvocationInfo,
  operations: Iterable<Operation>,
  result: InvocationResult,
  outcome: { value?: unknown; error?: unknown },
): InvocationEndInfo {
  const { updatedOperations: _updated, ...base } = start;
  const invocation = invocationOf.get(start);
  const all = [...operations];
  const runEnded = result.type === 'completed' && result.output.Status !== 'PENDING';
  // What the next invocation will diff against: only a clean end leaves a state it can trust
  // (after a fault or a fence, what is stored may differ from what this invocation knows).
  if (invocation) {
    const id = incarnationId(invocation.runId, invocation.incarnation);
    rememberLeftState(id, result.type === 'completed' && !runEnded ? all : undefined);
  }
  const info: InvocationEndInfo = {
    ...base,
    operations: toOperationInfoMap(all, false),
    status: statusOf(result),
  };
  if (result.type === 'completed' && result.output.Status === 'SUCCEEDED') info.executionResult = outcome.value;
  if (result.type === 'completed' && result.output.Status === 'FAILED') {
    info.executionError = outcome.error instanceof Error ? outcome.error : plainError(result.output.Error);
  }
  if (result.type === 'fault')
    info.executionError = result.error instanceof Error ? result.error : new Error(String(result.error));
  if (runEnded && invocation) endExecution(info, invocation, result.output);
  return info;
}

/**
 * The run ended in this invocation: its EXECUTION operation ends now (the backend's clock; the
 * backend stores the same end when it closes the invocation, a moment later on a real clock).
 */
function endExecution(info: InvocationEndInfo, invocation: DurableInvocation, output: InvocationOutput): void {
  const stored = invocation.operations.find((op) => op.Type === 'EXECUTION');
  if (!stored) return;
  const ended: Operation = { ...stored, Status: output.Status as Operation['Status'], EndTimestamp: invocation.now() };
  const execution = toOperationInfo(ended, false);
  if (output.Status === 'SUCCEEDED' && output.Result !== undefined) execution.result = output.Result;
  if (output.Status === 'FAILED') execution.error = info.executionError ?? plainError(output.Error);
  info.operations[stored.Id] = execution;
}

/** The error of a run the runtime itself failed (e.g. non-determinism), as a plain Error. */
function plainError(stored: { ErrorType?: string; ErrorMessage?: string } | undefined): Error {
  const error = new Error(stored?.ErrorMessage ?? 'Unknown error');
  error.name = stored?.ErrorType ?? 'Error';
  return error;
}

function statusOf(result: InvocationResult): InvocationEndInfo['status'] {
  if (result.type === 'fault') return PluginInvocationStatus.RETRYING;
  if (result.type === 'fenced') return PluginInvocationStatus.PENDING;
  return result.output.Status;
}
