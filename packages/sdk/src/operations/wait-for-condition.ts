import type { ErrorObject, Operation, OperationUpdate } from '@durable-lambda/protocol';
import { parseConfigObject, parseSerdes } from '../config';
import { runInContext } from '../context/active-context';
import type { Scope } from '../context/scope';
import { describe, durationToMs, formatMs, ONE_YEAR_MS } from '../duration';
import { WaitForConditionError } from '../errors/durable-errors';
import { storedFailure, toErrorObject } from '../errors/error-object';
import { InvalidArgumentError } from '../errors/invalid-argument';
import { nonDeterministicFault } from '../errors/runtime-errors';
import { createLogger, requestIdOf } from '../logger';
import { executionArnOf } from '../runtime/execution-arn';
import { defaultSerdes, deserializeChecked, serializeChecked } from '../serdes/checked';
import type { Serdes, SerdesContext } from '../types/serdes';
import type {
  WaitForConditionCheck,
  WaitForConditionConfig,
  WaitForConditionContext,
  WaitStrategy,
} from '../types/wait-condition';
import { isFunction, splitNamed } from './arguments';
import { attemptEnd, attemptStart, operationEnd, operationStart } from './plugin-hooks';
import { label, parentOf } from './step';
import { WaitForConditionExhaustedError, waitStrategyTimeoutMs } from './wait-strategy';

export type {
  WaitForConditionCheck,
  WaitForConditionCheckFunc,
  WaitForConditionConfig,
  WaitForConditionContext,
} from '../types/wait-condition';

/** The SubType a waitForCondition's STEP operation is stored with (AWS's). */
export const WAIT_FOR_CONDITION_SUBTYPE = 'WaitForCondition';
/** The code stored when a check (or the strategy) throws an error without a code of its own. */
export const WAIT_FOR_CONDITION_FAILED = 'wait_for_condition_failed';
/**
 * The code of the note a continuing check leaves in its RETRY: the engine wants an Error with
 * every RETRY, though here nothing failed.
 */
export const WAIT_FOR_CONDITION_CONTINUE = 'wait_for_condition_continue';

/** A continue without a delay waits this long, like a retry decision without one. */
const DEFAULT_DELAY_MS = 1000;
const CONFIG_KEYS = ['waitStrategy', 'initialState', 'serdes'] as const;

interface Plan<T> {
  name: string | undefined;
  check: WaitForConditionCheck<T>;
  waitStrategy: WaitStrategy<T>;
  initialState: T;
  serdes: Serdes<T>;
  timeoutMs: number | undefined;
}

function plan<T>(scope: Scope, args: readonly unknown[]): Plan<T> {
  const { name, main: check, config } = splitNamed<WaitForConditionCheck<T>>(args, isFunction, 'check');
  if (config === undefined) {
    throw new InvalidArgumentError('config', 'is required: { initialState, waitStrategy }');
  }
  parseConfigObject(config, 'config', CONFIG_KEYS);
  const c = config as WaitForConditionConfig<T>;
  if (typeof c.waitStrategy !== 'function') {
    throw new InvalidArgumentError(
      'config.waitStrategy',
      `must be a function (state, attempt) => { shouldContinue, delay? }, e.g. createWaitStrategy(...), got ${describe(c.waitStrategy)}`,
    );
  }
  if (c.initialState === undefined) {
    throw new InvalidArgumentError('config.initialState', 'is required (the state the first check receives)');
  }
  return {
    name,
    check,
    waitStrategy: c.waitStrategy,
    initialState: c.initialState,
    serdes: scope.serdesOr(parseSerdes<T>(c.serdes, 'config.serdes'), defaultSerdes as Serdes<T>),
    timeoutMs: waitStrategyTimeoutMs(c.waitStrategy),
  };
}

type Base = Omit<OperationUpdate, 'Action'>;

/**
 * `context.waitForCondition(name?, check, { initialState, waitStrategy, serdes? })`: one STEP
 * operation whose attempts are checks. After each check the strategy decides: stop (SUCCEED
 * with the state) or go on (RETRY with the state as payload and the delay, so the invocation
 * suspends like a step's backoff, and the next check starts from the stored state). A check or
 * strategy that throws fails it with a {@link WaitForConditionError}; replay returns the stored
 * final state without checking again.
 *
 * Only the first check writes a START (riding with the next write): a later one would drop the
 * stored state (the engine keeps a step's Result only on RETRY), so a check cut short by a lost
 * invocation simply runs again with the same state and attempt number.
 */
export async function runWaitForCondition<T>(scope: Scope, args: readonly unknown[]): Promise<T> {
  const p = plan<T>(scope, args);
  const id = scope.nextId();
  const runtime = scope.runtime;
  const serdesContext: SerdesContext = { entityId: id, durableExecutionArn: executionArnOf(runtime.invocation) };
  const base: Base = {
    Id: id,
    Type: 'STEP',
    SubType: WAIT_FOR_CONDITION_SUBTYPE,
    ...(p.name === undefined ? {} : { Name: p.name }),
    ...parentOf(scope),
  };

  let record = runtime.find(id, 'STEP', p.name);
  if (record && record.SubType !== WAIT_FOR_CONDITION_SUBTYPE) {
    throw runtime.fail(nonDeterministicFault(id, 'subtype', record.SubType, WAIT_FOR_CONDITION_SUBTYPE));
  }
  for (;;) {
    switch (record?.Status) {
      case 'SUCCEEDED': {
        const data = record.StepDetails?.Result;
        // Tracked: an async serdes is work in progress, not a reason to suspend.
        return runtime.track(() => deserializeChecked(p.serdes, data, serdesContext));
      }
      case 'FAILED':
        // AWS's: the stored error rebuilt (a check's failure surfaces as a StepError).
        throw storedFailure(record.StepDetails?.Error, () => new WaitForConditionError('waitForCondition failed'));
      case 'PENDING':
        await runtime.blockUntil(record.StepDetails?.NextAttemptTimestamp);
        record = { ...record, Status: 'READY' };
        break;
      default:
        record = await runCheck(scope, p, base, record, serdesContext);
    }
  }
}

type CheckOutcome<T> = { ok: true; data: string | undefined; state: T } | { ok: false; error: unknown };

/** Runs one check from the stored state, asks the strategy, and checkpoints its verdict. */
async function runCheck<T>(
  scope: Scope,
  p: Plan<T>,
  base: Base,
  record: Operation | undefined,
  serdesContext: SerdesContext,
): Promise<Operation> {
  const runtime = scope.runtime;
  const id = base.Id;
  // A READY record holds the state the previous check returned; none means the first check.
  // (A STARTED one, never written by this SDK, continues its own attempt.)
  const previous = record?.StepDetails?.Attempt ?? 0;
  const attempt = record?.Status === 'STARTED' ? Math.max(previous, 1) : previous + 1;
  const firstCheckAt = record?.StartTimestamp ?? runtime.invocation.now();
  // The first check's START rides with the next write (AWS records one): the operation shows as
  // STARTED even when the invocation ends during the check (a context misused inside it). Later
  // checks write none: a START would drop the state the last RETRY stored.
  if (!record) runtime.enqueue({ ...base, Action: 'START' });

  const outcome = await runtime.track(async (): Promise<CheckOutcome<T>> => {
    try {
      // The previous check's state: a RETRY stored it (even one its serdes stored as nothing); a
      // run retried after the condition failed resumes from the last state stored, or the
      // initial state when no check ever stored one.
      const continued =
        record?.Status === 'READY' && record.StepDetails?.Error?.ErrorCode === WAIT_FOR_CONDITION_CONTINUE;
      const stored = record !== undefined && (continued || record.StepDetails?.Result !== undefined);
      const state = stored
        ? await deserializeChecked(p.serdes, record?.StepDetails?.Result, serdesContext)
        : p.initialState;
      const context: WaitForConditionContext = {
        attempt,
        logger:
          scope.customLogger ??
          createLogger(
            runtime.settings.logSink,
            {
              runId: runtime.invocation.runId,
              executionArn: executionArnOf(runtime.invocation),
              ...requestIdOf(scope.lambdaContext),
              operationId: id,
              ...(p.name === undefined ? {} : { operationName: p.name }),
              attempt,
            },
            () => true,
            () => scope.plugin.enrichLogContext(),
          ),
      };
      const info = await operationStart(scope, { ...base, Status: 'STARTED' }, attempt);
      await attemptStart(scope, info, attempt);
      // The check runs as its own context: a parent context used inside it is refused.
      const next = await runInContext({ contextId: id, operationName: p.name, attempt }, () =>
        info
          ? (scope.plugin.wrapOperationAttemptFn({ ...info, attempt }, () => p.check(state, context)) as T)
          : p.check(state, context),
      );
      const data = await serializeChecked(p.serdes, next, serdesContext, runtime.settings.maxPayloadBytes);
      // The strategy sees the state as the next check and a replay will: after serdes (as AWS does).
      return { ok: true, data, state: await deserializeChecked(p.serdes, data, serdesContext) };
    } catch (error) {
      return { ok: false, error };
    }
  });
  if (!outcome.ok)
    return fail(scope, base, attempt, toErrorObject(outcome.error, WAIT_FOR_CONDITION_FAILED), outcome.error);

  let decision: unknown;
  try {
    decision = p.waitStrategy(outcome.state, attempt);
  } catch (error) {
    // createWaitStrategy throws when its checks are used up (code wait_for_condition_exhausted).
    return fail(scope, base, attempt, toErrorObject(error, WAIT_FOR_CONDITION_FAILED), error);
  }
  const delayMs = parseDecision(decision);
  const payload = outcome.data === undefined ? {} : { Payload: outcome.data };
  if (delayMs === undefined) {
    const done = await runtime.checkpoint({ ...base, Action: 'SUCCEED', ...payload });
    await attemptEnd(scope, done, attempt);
    await operationEnd(scope, done);
    return done;
  }

  const elapsedMs = runtime.invocation.now() - firstCheckAt;
  if (p.timeoutMs !== undefined && elapsedMs + delayMs > p.timeoutMs) {
    const exhausted = new WaitForConditionExhaustedError(
      `waitForCondition ${label(id, p.name)} timed out: check ${attempt + 1} would start ${formatMs(elapsedMs + delayMs)} after the first, past timeoutSeconds (${p.timeoutMs / 1000})`,
    );
    return fail(scope, base, attempt, toErrorObject(exhausted), exhausted);
  }
  const retried = await runtime.checkpoint({
    ...base,
    Action: 'RETRY',
    ...payload,
    Error: {
      ErrorType: 'WaitForConditionContinue',
      ErrorMessage: `check ${attempt} of waitForCondition ${label(id, p.name)}: condition not met, next check in ${formatMs(delayMs)}`,
      ErrorCode: WAIT_FOR_CONDITION_CONTINUE,
    },
    StepOptions: { NextAttemptDelaySeconds: delayMs / 1000 },
  });
  await attemptEnd(scope, retried, attempt);
  return retried;
}

async function fail(
  scope: Scope,
  base: Base,
  attempt: number,
  error: ErrorObject,
  thrown: unknown,
): Promise<Operation> {
  const record = await scope.runtime.checkpoint({ ...base, Action: 'FAIL', Error: error });
  await attemptEnd(scope, record, attempt, thrown);
  await operationEnd(scope, record, thrown);
  return record;
}

/**
 * The delay before the next check in ms, or undefined to stop.
 * @throws InvalidArgumentError (field `config.waitStrategy`) for a malformed decision or delay.
 */
function parseDecision(decision: unknown): number | undefined {
  const field = 'config.waitStrategy';
  if (
    decision === null ||
    typeof decision !== 'object' ||
    typeof (decision as { shouldContinue?: unknown }).shouldContinue !== 'boolean'
  ) {
    throw new InvalidArgumentError(
      field,
      `must return { shouldContinue: boolean, delay?: Duration }, returned ${describe(decision)}`,
    );
  }
  const { shouldContinue, delay } = decision as { shouldContinue: boolean; delay?: unknown };
  if (!shouldContinue) return undefined;
  if (delay === undefined) return DEFAULT_DELAY_MS;
  try {
    // 1 second to 1 year, like a wait.
    return durationToMs(delay, 'delay', { maxMs: ONE_YEAR_MS });
  } catch (error) {
    if (!(error instanceof InvalidArgumentError)) throw error;
    throw new InvalidArgumentError(field, `returned a bad delay: ${error.message}`);
  }
}
