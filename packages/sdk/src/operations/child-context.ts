import type { ErrorObject } from '@durable-lambda/protocol';
import { parseConfigObject, parseName, parseSerdes } from '../config';
import { runInContext } from '../context/active-context';
import type { Scope } from '../context/scope';
import { describe } from '../duration';
import { ErrorCode } from '../errors/codes';
import { type ContextErrorMapper, contextFailure, toErrorObject } from '../errors/error-object';
import { InvalidArgumentError } from '../errors/invalid-argument';
import { executionArnOf } from '../runtime/execution-arn';
import { defaultSerdes, deserializeChecked, serializeChecked } from '../serdes/checked';
import type { DurableContext } from '../types/durable-context';
import { OperationSubType } from '../types/operation-enums';
import type { OperationInfo } from '../types/plugin';
import type { Serdes, SerdesContext } from '../types/serdes';
import type { ChildContextConfig } from '../types/step';
import { isFunction, splitNamed } from './arguments';
import { operationEnd, operationStart } from './plugin-hooks';
import { parentOf } from './step';

/** What a CONTEXT operation runs and how it reports. */
export interface ContextSpec<T> {
  /** A pre-assigned id (from `scope.nextId()`); by default the next id of `scope`. */
  id?: string;
  name: string | undefined;
  /** Kept with the operation: `RunInChildContext`, `Map`, `Parallel`, `WaitForCallback`, … */
  subType?: string;
  serdes: Serdes<T>;
  /** The body, given the child context whose operations nest under this one. */
  body: (context: DurableContext, scope: Scope) => Promise<T>;
  /** The error a handler sees for a stored failure (default: AWS's, see {@link contextFailure}). */
  failure?: (stored: ErrorObject | undefined) => Error;
  /** Maps the rebuilt failure (AWS's `errorMapper`); ignored when `failure` is given. */
  errorMapper?: ContextErrorMapper;
  /** The code stored when the body throws an error without one. */
  failureCode?: string;
  /**
   * Whether the result just serialized is read back from the children's records (a batch
   * summary too large to hold the items' results): the SUCCEED then says `ReplayChildren`, so
   * the engine loads this context's children on replay (it loads no child of a finished
   * context otherwise).
   */
  replayChildren?: () => boolean;
  /**
   * AWS's ReplayChildren for a result too large to checkpoint (given for `runInChildContext`
   * unless it opts out): a result over {@link CHECKPOINT_LIMIT_BYTES} is not stored; the SUCCEED
   * holds `summary(value)` (or nothing) and says `ReplayChildren`, and on replay the body runs
   * again over its children's records to rebuild it.
   */
  largeResult?: { summary?: (value: T) => string };
}

/** The largest serialized result AWS checkpoints with a context (its `CHECKPOINT_SIZE_LIMIT_BYTES`). */
export const CHECKPOINT_LIMIT_BYTES = 256 * 1024;

/** True when `data` is over {@link CHECKPOINT_LIMIT_BYTES} in UTF-8 (measured only when it may be). */
function overCheckpointLimit(data: string | undefined): data is string {
  // A UTF-16 unit is at most 3 UTF-8 bytes: shorter strings are never measured.
  return (
    data !== undefined &&
    data.length * 3 > CHECKPOINT_LIMIT_BYTES &&
    Buffer.byteLength(data, 'utf8') > CHECKPOINT_LIMIT_BYTES
  );
}

/**
 * Runs a CONTEXT operation: find its record, replay a finished one (its body does not run), or
 * run the body with a child scope and checkpoint its result or error. Every operation that
 * groups others (child contexts, map, parallel, waitForCallback, combinators) is built on it.
 */
export async function runContextOperation<T>(scope: Scope, spec: ContextSpec<T>): Promise<T> {
  const failure = spec.failure ?? ((stored: ErrorObject | undefined) => contextFailure(stored, spec.errorMapper));
  const id = spec.id ?? scope.nextId();
  const runtime = scope.runtime;
  const serdesContext: SerdesContext = { entityId: id, durableExecutionArn: executionArnOf(runtime.invocation) };
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
  if (record?.Status === 'SUCCEEDED') {
    if (spec.largeResult && record.ContextDetails?.ReplayChildren === true) return read(await rebuild(scope, spec, id));
    return read(record.ContextDetails?.Result);
  }
  if (record?.Status === 'FAILED') throw failure(record.ContextDetails?.Error);
  // The START rides along with the first child's checkpoint; nothing waits for it alone.
  if (!record) runtime.enqueue({ ...base, Action: 'START' });
  // A context still running when an earlier invocation ended is re-entered: a replay (AWS's).
  const info = await operationStart(scope, { ...(record ?? base), Status: 'STARTED' }, undefined, record !== undefined);

  let data: string | undefined;
  let value: T;
  const childScope = scope.child(id);
  childScope.compensable = scope.compensable && spec.largeResult !== undefined;
  try {
    const context = childScope.context();
    const body = () => spec.body(context, childScope);
    // The body runs as its own context: a parent context used inside it is refused.
    value = await runInContext({ contextId: id, operationName: spec.name }, () =>
      info ? (scope.plugin.wrapChildContextFn(wrapInfo(info, record !== undefined), body) as Promise<T>) : body(),
    );
    data = await runtime.track(() =>
      serializeChecked(spec.serdes, value, serdesContext, runtime.settings.maxPayloadBytes),
    );
  } catch (error) {
    // A failed context never runs its body again (nor are its children loaded), so the undo of
    // its succeeded steps could not be registered again: they run now, as its own steps, before
    // it fails. A crash meanwhile leaves it unfinished, and the next invocation re-enters it.
    // A compensation's own failure is in the run's report; the context fails with its error.
    if (holdsCompensations(scope, spec, id)) await scope.services.saga.compensate(childScope, id).catch(() => {});
    record = await runtime.checkpoint({
      ...base,
      Action: 'FAIL',
      Error: toErrorObject(error, spec.failureCode ?? ErrorCode.CHILD_CONTEXT_FAILED),
    });
    const seen = failure(record.ContextDetails?.Error);
    await operationEnd(scope, record, seen);
    throw seen;
  }
  // Too large to checkpoint (AWS's limit): rebuilt on replay by running the body again.
  const rebuilt = spec.largeResult !== undefined && overCheckpointLimit(data);
  const payload = rebuilt ? (spec.largeResult?.summary?.(value) ?? '') : data;
  record = await runtime.checkpoint({
    ...base,
    Action: 'SUCCEED',
    ...(payload === undefined ? {} : { Payload: payload }),
    ...(rebuilt || spec.replayChildren?.() || holdsCompensations(scope, spec, id)
      ? { ContextOptions: { ReplayChildren: true } }
      : {}),
  });
  await operationEnd(scope, record);
  return read(rebuilt ? data : record.ContextDetails?.Result);
}

/**
 * Ours: a context whose steps registered compensations is stored with `ReplayChildren`, so each
 * later invocation runs its body again over its children's records (as for a large result) and
 * the steps register their undo again: a saga's compensations survive replay whatever context
 * their steps ran in.
 */
function holdsCompensations<T>(scope: Scope, spec: ContextSpec<T>, id: string): boolean {
  return spec.largeResult !== undefined && scope.services.saga.registeredUnder(id);
}

/**
 * A finished context whose result was too large to store (AWS's ReplaySucceededContext): its body
 * runs again in a child scope, its operations replaying from their records (the engine loads a
 * ReplayChildren context's children), and its result is serialized as the first run's was.
 */
async function rebuild<T>(scope: Scope, spec: ContextSpec<T>, id: string): Promise<string | undefined> {
  const runtime = scope.runtime;
  const childScope = scope.child(id);
  childScope.rebuilding = true;
  childScope.compensable = scope.compensable;
  const value = await runInContext({ contextId: id, operationName: spec.name }, () =>
    spec.body(childScope.context(), childScope),
  );
  const serdesContext: SerdesContext = { entityId: id, durableExecutionArn: executionArnOf(runtime.invocation) };
  return runtime.track(() => serializeChecked(spec.serdes, value, serdesContext, runtime.settings.maxPayloadBytes));
}

/**
 * What `wrapChildContextFn` is told: `isReplay` false, as AWS's (the body runs only for a context
 * not finished, and runs as live code); ours, `isReplayingChildren`, whether children an earlier
 * invocation recorded replay inside this run of the body (a context re-entered on replay).
 */
function wrapInfo(info: OperationInfo, reentered: boolean): OperationInfo {
  return { ...info, isReplay: false, isReplayingChildren: reentered };
}

const CHILD_CONFIG_KEYS = ['serdes', 'subType', 'errorMapper', 'summaryGenerator', 'storeLargeResult'] as const;

/** `context.runInChildContext(name?, fn, config?)`. */
export async function runChildContext<T>(scope: Scope, args: readonly unknown[]): Promise<T> {
  const { name, main: fn, config } = splitNamed<(context: DurableContext) => Promise<T>>(args, isFunction, 'fn');
  parseConfigObject(config, 'config', CHILD_CONFIG_KEYS);
  const c = (config ?? {}) as ChildContextConfig<T>;
  const serdes = scope.serdesOr(parseSerdes<T>(c.serdes, 'config.serdes'), defaultSerdes as Serdes<T>);
  const subType = parseName(c.subType, 'config.subType') ?? OperationSubType.RUN_IN_CHILD_CONTEXT;
  for (const key of ['errorMapper', 'summaryGenerator'] as const) {
    if (c[key] !== undefined && typeof c[key] !== 'function') {
      throw new InvalidArgumentError(`config.${key}`, `must be a function, got ${describe(c[key])}`);
    }
  }
  if (c.storeLargeResult !== undefined && typeof c.storeLargeResult !== 'boolean') {
    throw new InvalidArgumentError('config.storeLargeResult', `must be a boolean, got ${describe(c.storeLargeResult)}`);
  }
  const summary = c.summaryGenerator;
  return runContextOperation(scope, {
    name,
    serdes,
    subType,
    body: (context) => fn(context),
    ...(c.errorMapper === undefined ? {} : { errorMapper: c.errorMapper }),
    ...(c.storeLargeResult === true ? {} : { largeResult: summary === undefined ? {} : { summary } }),
  });
}
