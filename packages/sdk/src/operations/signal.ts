import type { Operation } from '@durable-lambda/protocol';
import { parseConfigObject } from '../config';
import type { Scope } from '../context/scope';
import { describe, durationToMs, ONE_YEAR_MS } from '../duration';
import { ErrorCode, withCode } from '../errors/codes';
import { CallbackExternalError, SignalTimeoutError } from '../errors/durable-errors';
import { InvalidArgumentError } from '../errors/invalid-argument';
import { executionArnOf } from '../runtime/execution-arn';
import { deserializeChecked } from '../serdes/checked';
import type { Serdes } from '../types/serdes';
import type { WaitForSignalOptions } from '../types/signal';
import { operationEnd, operationStart, replayedOperation } from './plugin-hooks';
import { parentOf } from './step';

/**
 * The SubType of a `context.waitForSignal` operation (a CALLBACK named after its signal). Ours, so
 * not a member of AWS's `OperationSubType`, whose keys and values stay exactly AWS's.
 */
export const SIGNAL_SUBTYPE = 'WaitForSignal';

/** The engine's rule for a signal's name (`signals.ts`), checked here so a bad name fails where it is written. */
const SIGNAL_NAME = /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/;
const MAX_SIGNAL_NAME_LENGTH = 128;

/** A signal's payload is JSON text (or nothing): parsed unless the caller reads it otherwise. */
const jsonPayload: Pick<Serdes<unknown>, 'deserialize'> = {
  deserialize: (data) => (data === undefined ? undefined : JSON.parse(data)),
};

interface SignalPlan<T> {
  name: string;
  timeoutSeconds: number | undefined;
  deserializer: Pick<Serdes<T>, 'deserialize'>;
}

function planSignal<T>(args: readonly unknown[]): SignalPlan<T> {
  const [name, options] = args;
  if (typeof name !== 'string' || name.length === 0) {
    throw new InvalidArgumentError('name', `must be a non-empty string, got ${describe(name)}`);
  }
  if (name.length > MAX_SIGNAL_NAME_LENGTH || !SIGNAL_NAME.test(name)) {
    throw new InvalidArgumentError(
      'name',
      `must be 1-${MAX_SIGNAL_NAME_LENGTH} characters: a letter or digit, then letters, digits and _ . : -`,
    );
  }
  parseConfigObject(options, 'options', ['timeout', 'serdes']);
  const o = (options ?? {}) as WaitForSignalOptions<T>;
  if (o.serdes !== undefined && typeof o.serdes?.deserialize !== 'function') {
    throw new InvalidArgumentError('options.serdes', 'must have a deserialize function');
  }
  const timeoutSeconds =
    o.timeout === undefined ? undefined : durationToMs(o.timeout, 'options.timeout', { maxMs: ONE_YEAR_MS }) / 1000;
  return { name, timeoutSeconds, deserializer: (o.serdes ?? jsonPayload) as Pick<Serdes<T>, 'deserialize'> };
}

/**
 * `context.waitForSignal(name, options?)`: a CALLBACK operation (SubType `WaitForSignal`, named
 * after the signal). Its START lets the engine hand it the oldest signal of that name not yet
 * taken, at once if one was sent before; else the invocation suspends and a signal's arrival
 * wakes the run, whose next invocation ends the wait before replaying. What it took is stored on
 * the operation, so a replay gets the same signal and no other wait gets it.
 */
export async function runWaitForSignal<T>(scope: Scope, args: readonly unknown[]): Promise<T> {
  const plan = planSignal<T>(args);
  const id = scope.nextId();
  const runtime = scope.runtime;
  let record = runtime.find(id, 'CALLBACK', plan.name, SIGNAL_SUBTYPE);
  if (!record) {
    record = await runtime.checkpoint({
      Id: id,
      Type: 'CALLBACK',
      SubType: SIGNAL_SUBTYPE,
      Action: 'START',
      Name: plan.name,
      ...parentOf(scope),
      CallbackOptions: plan.timeoutSeconds === undefined ? {} : { TimeoutSeconds: plan.timeoutSeconds },
    });
    await operationStart(scope, record);
  } else if (scope.plugin.active) {
    await replayedOperation(scope, record);
  }
  if (record.Status === 'STARTED') {
    await runtime.blockUntil(undefined, undefined, id);
    record = runtime.get(id) ?? record;
    if (scope.plugin.active) await operationEnd(scope, record);
  }
  return settled(scope, record, plan);
}

async function settled<T>(scope: Scope, record: Operation, plan: SignalPlan<T>): Promise<T> {
  const d = record.CallbackDetails;
  if (record.Status === 'SUCCEEDED') {
    const context = { entityId: record.Id, durableExecutionArn: executionArnOf(scope.runtime.invocation) };
    return scope.runtime.track(() => deserializeChecked(plan.deserializer as Serdes<T>, d?.Result, context));
  }
  if (record.Status === 'TIMED_OUT') {
    const message = `no signal ${JSON.stringify(plan.name)} arrived within the wait's timeout`;
    throw new SignalTimeoutError(message, undefined, undefined, plan.name);
  }
  // Not reached through the engine (a signal wait only succeeds or times out): kept explicit.
  const stored = d?.Error;
  throw withCode(
    new CallbackExternalError(stored?.ErrorMessage || `signal wait ${record.Status}`),
    stored?.ErrorCode ?? ErrorCode.CALLBACK_FAILED,
  );
}
