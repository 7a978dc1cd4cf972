import { type ChildContextConfig, parseConfigObject, parseName, parseSerdes } from '../config';
import { DurableContextImpl } from '../context/durable-context';
import type { Scope } from '../context/scope';
import type { ChildFunction } from '../context/types';
import { ChildContextError, ErrorCode, operationError, toErrorObject } from '../errors';
import { defaultSerdes, deserializeChecked, type Serdes, type SerdesContext, serializeChecked } from '../serdes';
import { isFunction, splitNamed } from './arguments';
import { parentOf } from './step';

/**
 * `context.runInChildContext`: a CONTEXT operation whose children get ids under its own. A
 * finished context replays its stored result without running its function again.
 */
export async function runChildContext<T>(scope: Scope, args: readonly unknown[]): Promise<T> {
  const { name, main: fn, config } = splitNamed<ChildFunction<T>>(args, isFunction, 'fn');
  parseConfigObject(config, 'config', ['serdes', 'subType']);
  const c = (config ?? {}) as ChildContextConfig<T>;
  const serdes = parseSerdes<T>(c.serdes, 'config.serdes') ?? (defaultSerdes as Serdes<T>);
  const subType = parseName(c.subType, 'config.subType');
  const id = scope.nextId();
  const runtime = scope.runtime;
  const serdesContext: SerdesContext = { entityId: id, durableExecutionArn: runtime.invocation.runId };
  const base = {
    Id: id,
    Type: 'CONTEXT' as const,
    ...(name === undefined ? {} : { Name: name }),
    ...(subType === undefined ? {} : { SubType: subType }),
    ...parentOf(scope),
  };

  let record = runtime.find(id, 'CONTEXT', name);
  if (record?.Status === 'SUCCEEDED') return deserializeChecked(serdes, record.ContextDetails?.Result, serdesContext);
  if (record?.Status === 'FAILED') throw operationError(ChildContextError, record.ContextDetails?.Error);
  // The START rides along with the first child's checkpoint; nothing waits for it alone.
  if (!record) runtime.enqueue({ ...base, Action: 'START' });

  let data: string | undefined;
  try {
    const value = await fn(new DurableContextImpl(scope.child(id)));
    data = await serializeChecked(serdes, value, serdesContext, runtime.settings.maxPayloadBytes);
  } catch (error) {
    record = await runtime.checkpoint({
      ...base,
      Action: 'FAIL',
      Error: toErrorObject(error, ErrorCode.CHILD_CONTEXT_FAILED),
    });
    throw operationError(ChildContextError, record.ContextDetails?.Error);
  }
  record = await runtime.checkpoint({ ...base, Action: 'SUCCEED', ...(data === undefined ? {} : { Payload: data }) });
  return deserializeChecked(serdes, record.ContextDetails?.Result, serdesContext);
}
