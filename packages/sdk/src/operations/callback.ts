import type { ErrorObject, Operation } from '@durable-lambda/protocol';
import { parseConfigObject, parseName } from '../config';
import type { Scope } from '../context/scope';
import { type Duration, describe, durationToMs, ONE_YEAR_MS } from '../duration';
import { ErrorCode, withCode } from '../errors/codes';
import {
  CallbackExternalError,
  CallbackSubmitterError,
  CallbackTimeoutError,
  ChildContextError,
  type DurableOperationError,
  StepError,
} from '../errors/durable-errors';
import { InvalidArgumentError } from '../errors/invalid-argument';
import { executionArnOf } from '../runtime/execution-arn';
import { deserializeChecked } from '../serdes/checked';
import type {
  CreateCallbackConfig,
  CreateCallbackResult,
  WaitForCallbackConfig,
  WaitForCallbackSubmitter,
} from '../types/callback';
import { DurablePromise } from '../types/durable-promise';
import { OperationSubType } from '../types/operation-enums';
import type { Serdes } from '../types/serdes';
import { isFunction, splitNamed } from './arguments';
import { runContextOperation } from './child-context';
import { operationEnd, operationStart, replayedOperation } from './plugin-hooks';
import { parentOf } from './step';

const CALLBACK_KEYS = ['timeout', 'heartbeatTimeout', 'serdes'] as const;

/** A payload returned unchanged: callbacks carry whatever string the completer sent. */
const passThrough: Serdes<string> = { serialize: (v) => v, deserialize: (d) => d };

interface CallbackPlan<T> {
  name: string | undefined;
  timeoutSeconds: number | undefined;
  heartbeatSeconds: number | undefined;
  /** The config's own deserializer; else the context's default, else the payload string. */
  deserialize: Pick<Serdes<T>, 'deserialize'> | undefined;
}

function planCallback<T>(name: string | undefined, config: unknown, keys: readonly string[]): CallbackPlan<T> {
  parseConfigObject(config, 'config', keys);
  const c = (config ?? {}) as CreateCallbackConfig<T>;
  const seconds = (value: Duration | undefined, field: string) =>
    value === undefined ? undefined : durationToMs(value, field, { maxMs: ONE_YEAR_MS }) / 1000;
  if (c.serdes !== undefined && typeof c.serdes?.deserialize !== 'function') {
    throw new InvalidArgumentError('config.serdes', 'must have a deserialize function');
  }
  return {
    name,
    timeoutSeconds: seconds(c.timeout, 'config.timeout'),
    heartbeatSeconds: seconds(c.heartbeatTimeout, 'config.heartbeatTimeout'),
    deserialize: c.serdes,
  };
}

function deserializerOf<T>(scope: Scope, plan: CallbackPlan<T>): Serdes<T> {
  return (plan.deserialize ?? scope.callbackDeserializer ?? passThrough) as Serdes<T>;
}

/** `(name?, config?)`: the name is present when the first argument is a string or undefined. */
function splitOptionalName(args: readonly unknown[]): { name: string | undefined; config: unknown } {
  if (typeof args[0] === 'string' || (args[0] === undefined && args.length > 1)) {
    return { name: parseName(args[0]), config: args[1] };
  }
  if (args[0] !== undefined && (typeof args[0] !== 'object' || args[0] === null)) {
    throw new InvalidArgumentError('config', `must be an object, got ${describe(args[0])}`);
  }
  return { name: undefined, config: args[0] };
}

/**
 * `context.createCallback`: a CALLBACK operation. Its START makes the engine issue the callback
 * id (unguessable) and keep the deadlines; the promise settles when an outside caller completes
 * it (or it times out), which ends a suspension and replays to here.
 */
export async function runCreateCallback<T>(scope: Scope, args: readonly unknown[]): Promise<CreateCallbackResult<T>> {
  const { name, config } = splitOptionalName(args);
  const plan = planCallback<T>(name, config, CALLBACK_KEYS);
  return createCallback(scope, plan, deserializerOf(scope, plan));
}

async function createCallback<T>(
  scope: Scope,
  plan: CallbackPlan<T>,
  deserializer: Serdes<T>,
): Promise<CreateCallbackResult<T>> {
  const id = scope.nextId();
  const runtime = scope.runtime;
  let record = runtime.find(id, 'CALLBACK', plan.name, OperationSubType.CALLBACK);
  if (!record) {
    const options = {
      ...(plan.timeoutSeconds === undefined ? {} : { TimeoutSeconds: plan.timeoutSeconds }),
      ...(plan.heartbeatSeconds === undefined ? {} : { HeartbeatTimeoutSeconds: plan.heartbeatSeconds }),
    };
    record = await runtime.checkpoint({
      Id: id,
      Type: 'CALLBACK',
      SubType: OperationSubType.CALLBACK,
      Action: 'START',
      ...(plan.name === undefined ? {} : { Name: plan.name }),
      ...parentOf(scope),
      CallbackOptions: options,
    });
    await operationStart(scope, record);
  } else if (scope.plugin.active) {
    // Recorded by an earlier invocation: plugins hear of it again (ended, or still open).
    await replayedOperation(scope, record);
  }
  const callbackId = record.CallbackDetails?.CallbackId ?? '';
  const started = record;
  // AWS's: nothing waits for the callback until its promise is awaited.
  return [new DurablePromise(() => settle(scope, started, deserializer)), callbackId];
}

async function settle<T>(scope: Scope, started: Operation, deserializer: Serdes<T>): Promise<T> {
  let record = started;
  if (record.Status === 'STARTED') {
    // Ended in a later invocation, or in this one while other code still runs (seen by a poll).
    await scope.runtime.blockUntil(undefined, undefined, record.Id);
    record = scope.runtime.get(record.Id) ?? record;
    // Ended while this invocation runs: its first sight of the end (AWS: isReplay false).
    if (scope.plugin.active) await operationEnd(scope, record);
  }
  const d = record.CallbackDetails;
  if (record.Status === 'SUCCEEDED') {
    const context = { entityId: record.Id, durableExecutionArn: executionArnOf(scope.runtime.invocation) };
    // Tracked: an async serdes is work in progress, not a reason to suspend.
    return scope.runtime.track(() => deserializeChecked(deserializer, d?.Result, context));
  }
  // Its end was reported above, or when the callback was met (it ended before this invocation).
  throw callbackError(record.Status === 'TIMED_OUT', d?.Error);
}

/**
 * The error a handler sees for a callback that ended badly (AWS's): `CallbackTimeoutError` when
 * it timed out, else `CallbackExternalError`, with the stored message and data and a cause
 * named after the stored type; our code rides along.
 */
function callbackError(timedOut: boolean, stored: ErrorObject | undefined): DurableOperationError {
  const timeout = timedOut || stored?.ErrorCode === ErrorCode.CALLBACK_TIMEOUT;
  if (!stored) {
    return timeout
      ? withCode(new CallbackTimeoutError('Callback timed out'), ErrorCode.CALLBACK_TIMEOUT)
      : withCode(new CallbackExternalError('Callback failed'), ErrorCode.CALLBACK_FAILED);
  }
  const cause = new Error(stored.ErrorMessage);
  cause.name = stored.ErrorType || 'Error';
  cause.stack = stored.StackTrace?.join('\n');
  const error = timeout
    ? new CallbackTimeoutError(stored.ErrorMessage || 'Callback timed out', cause, stored.ErrorData)
    : new CallbackExternalError(stored.ErrorMessage || 'Callback failed', cause, stored.ErrorData);
  return withCode(error, stored.ErrorCode ?? (timeout ? ErrorCode.CALLBACK_TIMEOUT : ErrorCode.CALLBACK_FAILED));
}

/**
 * What a waitForCallback's caller sees for its failure (AWS's mapping): callback errors as they
 * are, a failed submitter step as `CallbackSubmitterError`, anything else as `ChildContextError`.
 */
function mapWaitForCallbackError(original: DurableOperationError): DurableOperationError {
  const type = original.errorType;
  if (type === 'CallbackTimeoutError' || type === 'CallbackExternalError' || type === 'CallbackError') return original;
  if (type === 'StepError') return new CallbackSubmitterError(original.message, original);
  return new ChildContextError(original.message, original);
}

/**
 * `context.waitForCallback`: createCallback and a submitter step (with its own retries) in one
 * child context (AWS's layout: both unnamed inside it). A submitter that used up its retries
 * fails the operation with `CallbackSubmitterError`; it never leaves the run waiting for a
 * callback nobody will send.
 */
export async function runWaitForCallback<T>(scope: Scope, args: readonly unknown[]): Promise<T> {
  const { name, main: submitter, config } = splitNamed<WaitForCallbackSubmitter>(args, isFunction, 'submitter');
  const plan = planCallback<T>(name, config, [...CALLBACK_KEYS, 'retryStrategy']);
  const retryStrategy = (config as WaitForCallbackConfig<T> | undefined)?.retryStrategy;
  if (retryStrategy !== undefined && typeof retryStrategy !== 'function') {
    throw new InvalidArgumentError('config.retryStrategy', 'must be a function');
  }
  const raw = await runContextOperation<string | undefined>(scope, {
    name,
    subType: OperationSubType.WAIT_FOR_CALLBACK,
    serdes: passThrough as Serdes<string | undefined>,
    errorMapper: mapWaitForCallbackError,
    body: async (child, childScope) => {
      const [settled, callbackId] = await createCallback<string>(
        childScope,
        { ...plan, name: undefined, deserialize: passThrough },
        passThrough,
      );
      try {
        await child.step((stepContext) => submitter(callbackId, stepContext), retryStrategy ? { retryStrategy } : {});
      } catch (error) {
        throw error instanceof StepError ? withCode(error, ErrorCode.CALLBACK_SUBMITTER_FAILED) : error;
      }
      return settled;
    },
  });
  const context = { entityId: 'waitForCallback', durableExecutionArn: executionArnOf(scope.runtime.invocation) };
  return scope.runtime.track(() => deserializeChecked(deserializerOf(scope, plan), raw, context));
}
