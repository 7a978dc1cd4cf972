import type { DurableInvocation, LambdaContextLike, Operation } from '@durable-lambda/protocol';
import type { InvocationResult } from '../runtime/invocation-runtime';
import { type InvocationEndInfo, type InvocationInfo, PluginInvocationStatus } from '../types/plugin';
import { toOperationInfoMap } from './operation-info';

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
  const info: InvocationInfo = {
    requestId: lambdaContext.awsRequestId ?? '',
    executionArn: invocation.runId,
    executionInput: parseInput(invocation.input),
    operations: toOperationInfoMap(invocation.operations, true),
    isFirstInvocation: invocation.operations.every((op) => op.Type === 'EXECUTION'),
    updatedOperations: {},
  };
  if (execution) info.executionStartTimestamp = new Date(execution.StartTimestamp);
  return info;
}

/** What `onInvocationEnd` is told (AWS's shape): how it ended, with the handler's value or error. */
export function invocationEndInfo(
  start: InvocationInfo,
  operations: Iterable<Operation>,
  result: InvocationResult,
  outcome: { value?: unknown; error?: unknown },
): InvocationEndInfo {
  const { isFirstInvocation: _first, updatedOperations: _updated, ...base } = start;
  const info: InvocationEndInfo = {
    ...base,
    operations: toOperationInfoMap(operations, false),
    status: statusOf(result),
  };
  if (result.type === 'completed' && result.output.Status === 'SUCCEEDED') info.executionResult = outcome.value;
  if (result.type === 'completed' && result.output.Status === 'FAILED') {
    info.executionError = outcome.error instanceof Error ? outcome.error : plainError(result.output.Error);
  }
  if (result.type === 'fault')
    info.executionError = result.error instanceof Error ? result.error : new Error(String(result.error));
  return info;
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
