import {
  type Operation,
  type OperationUpdate,
  type StoredOutboxEvent,
  TransactRejectedError,
  type TransactWrite,
} from '@durable-lambda/protocol';
import { parseConfigObject, parseSemantics, parseSerdes, parseTimeout } from '../config';
import { runInContext } from '../context/active-context';
import type { Scope } from '../context/scope';
import { formatMs } from '../duration';
import { ErrorCode, withCode } from '../errors/codes';
import { findInChain, storedFailure, toErrorObject, withStackTrace } from '../errors/error-object';
import { InvalidArgumentError } from '../errors/invalid-argument';
import { AttemptFailure } from '../errors/runtime-errors';
import { NonRetriableError, StepInterruptedError } from '../errors/step-errors';
import { type ResolvedRetry, resolveRetry } from '../retry';
import { executionArnOf } from '../runtime/execution-arn';
import { type PlannedCompensation, parseCompensation } from '../saga/compensation-config';
import { defaultSerdes, deserializeChecked, serializeChecked } from '../serdes/checked';
import { OperationSubType } from '../types/operation-enums';
import type { Serdes, SerdesContext } from '../types/serdes';
import { type StepConfig, type StepContext, type StepFunction, StepSemantics } from '../types/step';
import { isFunction, splitNamed } from './arguments';
import { attemptEnd, attemptStart, operationEnd, operationStart } from './plugin-hooks';
import { AttemptContext, LazyAbort } from './step-attempt-context';
import { AttemptTransactWriter } from './transact-writer';

const STEP_CONFIG_KEYS = [
  'retryStrategy',
  'retry',
  'timeout',
  'semantics',
  'serdes',
  'compensate',
  'transact',
] as const;

/** A step's arguments, parsed and validated once at the call. */
interface StepPlan<T> {
  name: string | undefined;
  fn: StepFunction<T>;
  retry: ResolvedRetry;
  timeoutMs: number | undefined;
  atMostOnce: boolean;
  serdes: Serdes<T>;
  compensation: PlannedCompensation | undefined;
  /** The step's `context.tx` writes commit with its outcome (`transact-writer.ts`). */
  transact: boolean;
}

function planStep<T>(scope: Scope, args: readonly unknown[]): StepPlan<T> {
  const { name, main, config } = splitNamed<StepFunction<T>>(args, isFunction, 'fn');
  parseConfigObject(config, 'config', STEP_CONFIG_KEYS);
  const c = (config ?? {}) as StepConfig<T>;
  const semantics = parseSemantics(c.semantics, 'config.semantics') ?? scope.defaults.semantics;
  return {
    name,
    fn: main,
    retry: resolveRetry({ retryStrategy: c.retryStrategy, retry: c.retry }, scope.defaults.retry, 'config'),
    timeoutMs: parseTimeout(c.timeout, 'config.timeout') ?? scope.defaults.timeoutMs,
    atMostOnce: semantics === StepSemantics.AtMostOncePerRetry,
    serdes: scope.serdesOr(parseSerdes<T>(c.serdes, 'config.serdes'), defaultSerdes as Serdes<T>),
    compensation: parseCompensation(c.compensate, scope.compensable, scope.defaults.retry),
    transact: parseTransact(c.transact),
  };
}

type AttemptOutcome =
  | { ok: true; data: string | undefined; writes: TransactWrite[] | undefined; outbox: StoredOutboxEvent[] | undefined }
  | { ok: false; error: unknown };

function parseTransact(value: unknown): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean')
    throw new InvalidArgumentError('config.transact', `must be a boolean, got ${typeof value}`);
  return value;
}

/**
 * `context.step`: find the step's record; replay its stored outcome, or run attempts until one
 * succeeds or the retry policy gives up. Every outcome is durable before the handler sees it.
 */
export async function runStep<T>(scope: Scope, args: readonly unknown[]): Promise<T> {
  const plan = planStep<T>(scope, args);
  const id = scope.nextId();
  const outcome = stepOutcome(scope, plan, id);
  // Registered at the call, the same on every replay; it runs only if the step succeeded.
  if (plan.compensation) scope.services.saga.register(id, plan.name, plan.compensation, outcome);
  return outcome;
}

async function stepOutcome<T>(scope: Scope, plan: StepPlan<T>, id: string): Promise<T> {
  const runtime = scope.runtime;
  const serdesContext: SerdesContext = { entityId: id, durableExecutionArn: executionArnOf(runtime.invocation) };
  // Fields set one by one, not spread from conditional objects: built for every step (hot path).
  const base: Omit<OperationUpdate, 'Action'> = { Id: id, Type: 'STEP', SubType: OperationSubType.STEP };
  if (plan.name !== undefined) base.Name = plan.name;
  if (scope.recordParentId !== undefined) base.ParentId = scope.recordParentId;

  let record = runtime.find(id, 'STEP', plan.name, OperationSubType.STEP);
  for (;;) {
    switch (record?.Status) {
      case 'SUCCEEDED': {
        const data = record.StepDetails?.Result;
        // Tracked: an async serdes (e.g. one that reads S3) is work in progress, not a wait.
        return runtime.track(() => deserializeChecked(plan.serdes, data, serdesContext));
      }
      case 'FAILED':
        throw failureFrom(record);
      case 'STARTED': {
        // Started by an invocation that is gone (this one has not run it yet): that attempt
        // is lost, and it spends retry budget like any failure (AWS's StepInterruptedError).
        const attempt = record.StepDetails?.Attempt ?? 1;
        const lost = withCode(new StepInterruptedError(id, plan.name), ErrorCode.INVOCATION_LOST);
        record = await settleFailure(scope, plan, base, attempt, lost);
        break;
      }
      case 'PENDING':
        await runtime.blockUntil(record.StepDetails?.NextAttemptTimestamp);
        record = { ...record, Status: 'READY' };
        break;
      default: {
        const attempt = (record?.StepDetails?.Attempt ?? 0) + 1;
        const outcome = await runAttempt(scope, plan, base, id, attempt, serdesContext);
        if (!outcome.ok) {
          record = await settleFailure(scope, plan, base, attempt, outcome.error);
          await attemptEnd(scope, record, attempt, outcome.error);
          if (record.Status === 'FAILED') await operationEnd(scope, record, outcome.error);
          break;
        }
        const succeed: OperationUpdate = { ...base, Action: 'SUCCEED' };
        if (outcome.data !== undefined) succeed.Payload = outcome.data;
        if (outcome.outbox !== undefined) succeed.Outbox = outcome.outbox;
        if (outcome.writes !== undefined) {
          // Never written behind: the writes' conditions decide whether the attempt succeeded.
          succeed.TransactWrites = outcome.writes;
          try {
            record = await runtime.checkpointTransact(succeed);
          } catch (error) {
            record = await settleFailure(scope, plan, base, attempt, error);
            await attemptEnd(scope, record, attempt, error);
            if (record.Status === 'FAILED') await operationEnd(scope, record, error);
            break;
          }
          await attemptEnd(scope, record, attempt);
          await operationEnd(scope, record);
          break;
        }
        if (!runtime.eagerStarts) {
          record = await runtime.checkpoint(succeed);
          await attemptEnd(scope, record, attempt);
          await operationEnd(scope, record);
          break;
        }
        // Written behind: the attempt's START is durable, so if this outcome is lost with the
        // invocation the attempt counts as lost (a new attempt, a new key), never as done. The
        // outcome rides with the next checkpoint (usually the next step's START, in the same
        // write) and is durable before anything that follows it is, or the invocation ends.
        runtime.enqueue(succeed);
        if (scope.plugin.active) {
          // The outcome is not stored yet (written behind): its end is the backend's clock now,
          // as the stored one will be; its start, the stored START's.
          const now = runtime.invocation.now();
          const done = {
            ...base,
            Status: 'SUCCEEDED',
            StartTimestamp: runtime.get(id)?.StartTimestamp ?? now,
            EndTimestamp: now,
            ...resultOf(outcome.data, attempt),
          } as Operation;
          await attemptEnd(scope, done, attempt);
          await operationEnd(scope, done);
        }
        return runtime.track(() => deserializeChecked(plan.serdes, outcome.data, serdesContext));
      }
    }
  }
}

/** Runs one attempt: START (eager or lazy), the function under its timeout, then serdes. */
async function runAttempt<T>(
  scope: Scope,
  plan: StepPlan<T>,
  base: Omit<OperationUpdate, 'Action'>,
  id: string,
  attempt: number,
  serdesContext: SerdesContext,
): Promise<AttemptOutcome> {
  const runtime = scope.runtime;
  const start: OperationUpdate = { ...base, Action: 'START' };
  let cancelLazyStart = () => {};
  if (plan.atMostOnce || runtime.eagerStarts || runtime.settings.lazyStartMs === undefined) {
    await runtime.checkpoint(start);
  } else {
    // A short step costs one write (its outcome); a long one records its start so a crash
    // while it runs is seen later as a lost attempt.
    cancelLazyStart = runtime.setTimer(runtime.settings.lazyStartMs, () => runtime.enqueue(start));
  }
  const controller = new LazyAbort();
  const tx = new AttemptTransactWriter(plan.transact, id);
  const stepContext = new AttemptContext(scope, plan.name, id, attempt, controller, tx);
  return runtime.track(async () => {
    const info = scope.plugin.active ? await operationStart(scope, { ...base, Status: 'STARTED' }, attempt) : undefined;
    if (info) await attemptStart(scope, info, attempt);
    // The step's code runs as its own context: a parent context used inside it is refused.
    const call = () =>
      runInContext({ contextId: id, operationName: plan.name, attempt }, () =>
        info && scope.plugin.active
          ? scope.plugin.wrapOperationAttemptFn({ ...info, attempt }, () => plan.fn(stepContext))
          : plan.fn(stepContext),
      ) as Promise<T> | T;
    try {
      const value = await withTimeout(runtime, call, stepContext, controller, plan.timeoutMs, id, plan.name);
      const data = await serializeChecked(plan.serdes, value, serdesContext, runtime.settings.maxPayloadBytes);
      const outbox = stepContext.emitted();
      return {
        ok: true,
        data,
        writes: tx.size > 0 ? tx.writes() : undefined,
        outbox: outbox.length > 0 ? outbox : undefined,
      };
    } catch (error) {
      return { ok: false, error };
    } finally {
      cancelLazyStart();
    }
  });
}

function withTimeout<T>(
  runtime: Scope['runtime'],
  call: () => Promise<T> | T,
  context: StepContext,
  controller: LazyAbort,
  timeoutMs: number | undefined,
  id: string,
  name: string | undefined,
): Promise<T> {
  const run = new Promise<T>((resolve) => resolve(call()));
  if (timeoutMs === undefined) return run;
  return new Promise<T>((resolve, reject) => {
    const cancel = runtime.setTimer(timeoutMs, () => {
      const error = new AttemptFailure(
        ErrorCode.STEP_TIMEOUT,
        `step ${label(id, name)} timed out after ${formatMs(timeoutMs)} (attempt ${context.attempt})`,
        true,
      );
      controller.abort(error);
      reject(error);
    });
    run.then(
      (value) => {
        cancel();
        resolve(value);
      },
      (error) => {
        cancel();
        reject(error);
      },
    );
  });
}

/** Asks the retry policy about a failed attempt and checkpoints RETRY or FAIL. */
async function settleFailure<T>(
  scope: Scope,
  plan: StepPlan<T>,
  base: Omit<OperationUpdate, 'Action'>,
  attempt: number,
  error: unknown,
): Promise<Operation> {
  // A write refused as malformed or past the limits is refused again on every attempt: no retry.
  const retriable = error instanceof AttemptFailure ? error.retriable : !(error instanceof TransactRejectedError);
  const verdict = retriable ? plan.retry(error, attempt) : { retry: false as const };
  const code = findInChain(error, NonRetriableError) ? ErrorCode.NON_RETRIABLE : ErrorCode.STEP_FAILED;
  const stored = withStackTrace(toErrorObject(error, code), error);
  if (verdict.retry) {
    return scope.runtime.checkpoint({
      ...base,
      Action: 'RETRY',
      Error: stored,
      StepOptions: { NextAttemptDelaySeconds: verdict.delayMs / 1000 },
    });
  }
  const fail: OperationUpdate = { ...base, Action: 'FAIL', Error: stored };
  if (!scope.runtime.eagerStarts) return scope.runtime.checkpoint(fail);
  // Written behind, as a success is: the handler sees the failure as soon as AWS's SDK would
  // (so a race between a failing and a succeeding step settles in the same order), and the
  // outcome is durable before anything that follows it is, or the invocation ends.
  scope.runtime.enqueue(fail);
  return {
    ...base,
    Status: 'FAILED',
    StartTimestamp: scope.runtime.invocation.now(),
    StepDetails: { Attempt: attempt, Error: stored },
  } as Operation;
}

/**
 * The error a handler sees for a failed step, the same live and on replay: AWS's rebuild from
 * the stored error (a `StepError` caused by the original, unless it was a durable error itself).
 */
function failureFrom(record: Operation): Error {
  return storedFailure(record.StepDetails?.Error);
}

function resultOf(data: string | undefined, attempt: number): Pick<Operation, 'StepDetails'> {
  return { StepDetails: { Attempt: attempt, ...(data === undefined ? {} : { Result: data }) } };
}

/** `ParentId` for operations of a child scope. */
export function parentOf(scope: Scope): { ParentId?: string } {
  return scope.recordParentId === undefined ? {} : { ParentId: scope.recordParentId };
}

/** `3 "charge"` or `3` for messages. */
export function label(id: string, name: string | undefined): string {
  return name === undefined ? id : `${id} "${name}"`;
}
