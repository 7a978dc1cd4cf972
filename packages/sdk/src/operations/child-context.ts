import type { ErrorObject } from '@durable-lambda/protocol';
import { type ChildContextConfig, parseConfigObject, parseName, parseSerdes } from '../config';
import { DurableContextImpl } from '../context/durable-context';
import type { Scope } from '../context/scope';
import type { ChildFunction, DurableContext } from '../context/types';
import { ChildContextError, ErrorCode, operationError, toErrorObject } from '../errors';
import { defaultSerdes, deserializeChecked, type Serdes, type SerdesContext, serializeChecked } from '../serdes';
import { isFunction, splitNamed } from './arguments';
import { parentOf } from './step';

/** What a CONTEXT operation runs and how it reports. */
export interface ContextSpec<T> {
  /** A pre-assigned id (from `scope.nextId()`); by default the next id of `scope`. */
  id?: string;
  name: string | undefined;
  /** Kept with the operation: `Map`, `Parallel`, `WaitForCallback`, … */
  subType?: string;
  serdes: Serdes<T>;
  /** The body, given the child context whose operations nest under this one. */
  body: (context: DurableContext, scope: Scope) => Promise<T>;
  /** The error a handler sees for a stored failure (default: `ChildContextError`). */
  failure?: (stored: ErrorObject | undefined) => Error;
  /** The code stored when the body throws an error without one. */
  failureCode?: string;
}

/**
 * Runs a CONTEXT operation: find its record, replay a finished one (its body does not run), or
 * run the body with a child scope and checkpoint its result or error. Every operation that
 * groups others (child contexts, map, parallel, waitForCallback, combinators) is built on it.
 */
export async function runContextOperation<T>(scope: Scope, spec: ContextSpec<T>): Promise<T> {
  const failure = spec.failure ?? ((stored) => operationError(ChildContextError, stored));
  const id = spec.id ?? scope.nextId();
  const runtime = scope.runtime;
  const serdesContext: SerdesContext = { entityId: id, durableExecutionArn: runtime.invocation.runId };
  const base = {
    Id: id,
    Type: 'CONTEXT' as const,
    ...(spec.name === undefined ? {} : { Name: spec.name }),
    ...(spec.subType === undefined ? {} : { SubType: spec.subType }),
    ...parentOf(scope),
  };

  let record = runtime.find(id, 'CONTEXT', spec.name, spec.subType);
  // Serdes calls are tracked: an async serdes is work in progress, not a reason to suspend.
  const read = (data: string | undefined) => runtime.track(() => deserializeChecked(spec.serdes, data, serdesContext));
  if (record?.Status === 'SUCCEEDED') return read(record.ContextDetails?.Result);
  if (record?.Status === 'FAILED') throw failure(record.ContextDetails?.Error);
  // The START rides along with the first child's checkpoint; nothing waits for it alone.
  if (!record) runtime.enqueue({ ...base, Action: 'START' });

  let data: string | undefined;
  try {
    const childScope = scope.child(id);
    const value = await spec.body(new DurableContextImpl(childScope), childScope);
    data = await runtime.track(() =>
      serializeChecked(spec.serdes, value, serdesContext, runtime.settings.maxPayloadBytes),
    );
  } catch (error) {
    record = await runtime.checkpoint({
      ...base,
      Action: 'FAIL',
      Error: toErrorObject(error, spec.failureCode ?? ErrorCode.CHILD_CONTEXT_FAILED),
    });
    throw failure(record.ContextDetails?.Error);
  }
  record = await runtime.checkpoint({ ...base, Action: 'SUCCEED', ...(data === undefined ? {} : { Payload: data }) });
  return read(record.ContextDetails?.Result);
}

/** `context.runInChildContext(name?, fn, config?)`. */
export async function runChildContext<T>(scope: Scope, args: readonly unknown[]): Promise<T> {
  const { name, main: fn, config } = splitNamed<ChildFunction<T>>(args, isFunction, 'fn');
  parseConfigObject(config, 'config', ['serdes', 'subType']);
  const c = (config ?? {}) as ChildContextConfig<T>;
  const serdes = parseSerdes<T>(c.serdes, 'config.serdes') ?? (defaultSerdes as Serdes<T>);
  const subType = parseName(c.subType, 'config.subType');
  return runContextOperation(scope, {
    name,
    serdes,
    body: (context) => fn(context),
    ...(subType === undefined ? {} : { subType }),
  });
}
