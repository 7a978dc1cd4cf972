import type { ErrorObject, Operation } from '@durable-lambda/protocol';
import { parseConfigObject, parseName, parseSerdes } from '../config';
import type { Scope } from '../context/scope';
import { describe } from '../duration';
import { ErrorCode, withCode } from '../errors/codes';
import { InvokeError } from '../errors/durable-errors';
import { InvalidArgumentError } from '../errors/invalid-argument';
import { executionArnOf } from '../runtime/execution-arn';
import { defaultSerdes, deserializeChecked, serializeChecked } from '../serdes/checked';
import type { InvokeConfig } from '../types/invoke';
import { OperationSubType } from '../types/operation-enums';
import type { Serdes } from '../types/serdes';
import { operationEnd, operationStart, replayedOperation } from './plugin-hooks';
import { parentOf } from './step';

/**
 * `invoke(name?, functionId, input?, config?)`: as AWS reads it, a string second argument means
 * the first is the name.
 */
function splitInvokeArgs(args: readonly unknown[]): {
  name: string | undefined;
  functionId: unknown;
  input: unknown;
  config: unknown;
} {
  if (typeof args[1] === 'string')
    return { name: parseName(args[0]), functionId: args[1], input: args[2], config: args[3] };
  return { name: undefined, functionId: args[0], input: args[1], config: args[2] };
}

/**
 * `context.invoke`: a CHAINED_INVOKE operation. The engine starts the child run with a key
 * derived from this operation, so a replay never starts it twice; this run suspends until the
 * child ends, then returns its result or throws `InvokeError`.
 */
export async function runInvoke<TInput, TOutput>(scope: Scope, args: readonly unknown[]): Promise<TOutput> {
  const { name, functionId, input, config } = splitInvokeArgs(args);
  if (typeof functionId !== 'string' || functionId.length === 0 || functionId.length > 256) {
    throw new InvalidArgumentError(
      'functionId',
      `must be a function name of 1-256 characters, got ${describe(functionId)}`,
    );
  }
  parseConfigObject(config, 'config', ['payloadSerdes', 'resultSerdes', 'tenantId']);
  const c = (config ?? {}) as InvokeConfig<TInput, TOutput>;
  const payloadSerdes = scope.serdesOr(
    parseSerdes<TInput>(c.payloadSerdes, 'config.payloadSerdes'),
    defaultSerdes as Serdes<TInput>,
  );
  const resultSerdes = scope.serdesOr(
    parseSerdes<TOutput>(c.resultSerdes, 'config.resultSerdes'),
    defaultSerdes as Serdes<TOutput>,
  );
  const id = scope.nextId();
  const runtime = scope.runtime;
  const serdesContext = { entityId: id, durableExecutionArn: executionArnOf(runtime.invocation) };
  let record: Operation | undefined = runtime.find(id, 'CHAINED_INVOKE', name, OperationSubType.CHAINED_INVOKE);
  if (!record) {
    // Tracked: an async serdes is work in progress, not a reason to suspend.
    const payload = await runtime.track(() =>
      serializeChecked(payloadSerdes, input as TInput, serdesContext, runtime.settings.maxPayloadBytes),
    );
    record = await runtime.checkpoint({
      Id: id,
      Type: 'CHAINED_INVOKE',
      SubType: OperationSubType.CHAINED_INVOKE,
      Action: 'START',
      ...(name === undefined ? {} : { Name: name }),
      ...parentOf(scope),
      ...(payload === undefined ? {} : { Payload: payload }),
      ChainedInvokeOptions: { FunctionName: functionId, ...(c.tenantId === undefined ? {} : { TenantId: c.tenantId }) },
    });
    await operationStart(scope, record);
  } else if (scope.plugin.active) {
    // Recorded by an earlier invocation: plugins hear of it again (ended, or still running).
    await replayedOperation(scope, record);
  }
  if (record.Status === 'STARTED') {
    // Ended in a later invocation, or in this one while other code still runs (seen by a poll).
    await runtime.blockUntil(undefined, undefined, id);
    record = runtime.get(id) ?? record;
    // Ended while this invocation runs: its first sight of the end (AWS: isReplay false).
    if (scope.plugin.active) await operationEnd(scope, record);
  }
  if (record.Status === 'SUCCEEDED') {
    const data = record.ChainedInvokeDetails?.Result;
    return runtime.track(() => deserializeChecked(resultSerdes, data, serdesContext));
  }
  throw invokeFailure(record.ChainedInvokeDetails?.Error);
}

/**
 * The error a handler sees for a failed child run (AWS's): an `InvokeError` with the child's
 * message and data, caused by a plain Error of that message; the child's code rides along.
 */
function invokeFailure(stored: ErrorObject | undefined): InvokeError {
  const message = stored?.ErrorMessage;
  const error = stored
    ? new InvokeError(message || 'Invoke failed', message ? new Error(message) : undefined, stored.ErrorData)
    : new InvokeError('Invoke failed');
  return withCode(error, stored?.ErrorCode ?? ErrorCode.INVOKE_FAILED);
}
