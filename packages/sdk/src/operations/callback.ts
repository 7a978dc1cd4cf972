import type { ErrorObject, Operation } from '@durable-lambda/protocol';
import { parseConfigObject, parseName } from '../config';
import type { Scope } from '../context/scope';
import type { StepContext } from '../context/types';
import { type Duration, describe, durationToMs, ONE_YEAR_MS } from '../duration';
import {
  CallbackExternalError,
  CallbackSubmitterError,
  CallbackTimeoutError,
  ErrorCode,
  InvalidArgumentError,
  operationError,
  StepError,
} from '../errors';
import type { RetryStrategy } from '../retry';
import { deserializeChecked, type Serdes } from '../serdes';
import { isFunction, splitNamed } from './arguments';
import { runContextOperation } from './child-context';
import { parentOf } from './step';

/** Configuration of `createCallback` (compat). */
export interface CreateCallbackConfig<T = string> {
  /** The longest the callback may wait for its completion (up to a year). */
  timeout?: Duration;
  /** The callback times out unless a heartbeat arrives at least this often. */
  heartbeatTimeout?: Duration;
  /** Reads the completion's payload; by default the payload string is returned as is. */
  serdes?: Pick<Serdes<T>, 'deserialize'>;
}

/** `[promise, callbackId]`: the promise settles when the callback is completed from outside. */
export type CreateCallbackResult<T = string> = [Promise<T>, string];

/** Hands a callback id to an outside system; runs as a step with retries. */
export type WaitForCallbackSubmitter = (callbackId: string, context: StepContext) => Promise<void> | void;

/** Configuration of `waitForCallback` (compat). */
export interface WaitForCallbackConfig<T = string> extends CreateCallbackConfig<T> {
  /** Retries of the submitter step. */
  retryStrategy?: RetryStrategy;
}

const CALLBACK_KEYS = ['timeout', 'heartbeatTimeout', 'serdes'] as const;

/** A payload returned unchanged: callbacks carry whatever string the completer sent. */
const passThrough: Serdes<string> = { serialize: (v) => v, deserialize: (d) => d };

interface CallbackPlan<T> {
  name: string | undefined;
  timeoutSeconds: number | undefined;
  heartbeatSeconds: number | undefined;
  deserialize: Pick<Serdes<T>, 'deserialize'>;
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
    deserialize: c.serdes ?? (passThrough as unknown as Pick<Serdes<T>, 'deserialize'>),
  };
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
  return createCallback(scope, plan);
}

async function createCallback<T>(scope: Scope, plan: CallbackPlan<T>): Promise<CreateCallbackResult<T>> {
  const id = scope.nextId();
  const runtime = scope.runtime;
  let record = runtime.find(id, 'CALLBACK', plan.name);
  if (!record) {
    const options = {
      ...(plan.timeoutSeconds === undefined ? {} : { TimeoutSeconds: plan.timeoutSeconds }),
      ...(plan.heartbeatSeconds === undefined ? {} : { HeartbeatTimeoutSeconds: plan.heartbeatSeconds }),
    };
    record = await runtime.checkpoint({
      Id: id,
      Type: 'CALLBACK',
      Action: 'START',
      ...(plan.name === undefined ? {} : { Name: plan.name }),
      ...parentOf(scope),
      CallbackOptions: options,
    });
  }
  const callbackId = record.CallbackDetails?.CallbackId ?? '';
  const settled = settle(scope, record, plan);
  // Marked handled: the caller may await other work first; a failure still reaches its await.
  settled.catch(() => {});
  return [settled, callbackId];
}

async function settle<T>(scope: Scope, record: Operation, plan: CallbackPlan<T>): Promise<T> {
  if (record.Status === 'STARTED') await scope.runtime.blockUntil(undefined);
  const d = record.CallbackDetails;
  if (record.Status === 'SUCCEEDED') {
    const context = { entityId: record.Id, durableExecutionArn: scope.runtime.invocation.runId };
    // Tracked: an async serdes is work in progress, not a reason to suspend.
    return scope.runtime.track(() => deserializeChecked(plan.deserialize as Serdes<T>, d?.Result, context));
  }
  throw callbackError(d?.Error);
}

/** The error a handler sees for a callback that ended badly, by its stored code. */
export function callbackError(stored: ErrorObject | undefined): Error {
  switch (stored?.ErrorCode) {
    case ErrorCode.CALLBACK_TIMEOUT:
      return operationError(CallbackTimeoutError, stored);
    case ErrorCode.CALLBACK_SUBMITTER_FAILED:
      return operationError(CallbackSubmitterError, stored);
    default:
      return operationError(CallbackExternalError, { ErrorCode: ErrorCode.CALLBACK_FAILED, ...stored });
  }
}

/**
 * `context.waitForCallback`: createCallback and a submitter step (with its own retries) in one
 * child context. A submitter that used up its retries fails the operation with
 * `CallbackSubmitterError`; it never leaves the run waiting for a callback nobody will send.
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
    subType: 'WaitForCallback',
    serdes: passThrough as Serdes<string | undefined>,
    failure: callbackError,
    body: async (child, childScope) => {
      const [settled, callbackId] = await createCallback<string>(childScope, {
        ...plan,
        name: undefined,
        deserialize: passThrough,
      });
      try {
        await child.step(
          'submitter',
          (stepContext) => submitter(callbackId, stepContext),
          retryStrategy ? { retryStrategy } : {},
        );
      } catch (error) {
        const cause = error instanceof StepError ? error : undefined;
        throw new CallbackSubmitterError(`callback submitter failed: ${(error as Error).message}`, {
          errorType: cause?.errorType ?? 'Error',
          code: ErrorCode.CALLBACK_SUBMITTER_FAILED,
          cause: error,
        });
      }
      return settled;
    },
  });
  const context = { entityId: 'waitForCallback', durableExecutionArn: scope.runtime.invocation.runId };
  return scope.runtime.track(() => deserializeChecked(plan.deserialize as Serdes<T>, raw, context));
}
