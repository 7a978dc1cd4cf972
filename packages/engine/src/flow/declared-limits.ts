/**
 * The limits a run's admission request declares for its function, as the functions listing shows
 * them (`function-limits.ts`): recorded at admission, since the limits live in the handler's code,
 * which a deployed control API never loads. One read per function per process, a write only when
 * they changed.
 */
import type { AdmissionRequest } from '@durable-lambda/protocol';
import { type FunctionLimits, noteFunctionLimits } from '../function-limits';
import type { Clock, Store } from '../ports';
import { functionBaseName } from '../run-query';

/** The function-level limits of `request` (its keys are per run, so left out). */
export function limitsOf(request: AdmissionRequest): FunctionLimits {
  const { concurrency, throttle, rateLimit, debounce, singleton } = request;
  const limits: FunctionLimits = {};
  if (concurrency) limits.concurrency = { limit: concurrency.limit };
  if (concurrency?.priority !== undefined) limits.priority = true;
  if (throttle) {
    limits.throttle = {
      limit: throttle.limit,
      periodMs: throttle.periodMs,
      ...(throttle.burst === undefined ? {} : { burst: throttle.burst }),
    };
  }
  if (rateLimit) limits.rateLimit = { limit: rateLimit.limit, periodMs: rateLimit.periodMs };
  if (debounce) {
    limits.debounce = {
      periodMs: debounce.periodMs,
      ...(debounce.timeoutMs === undefined ? {} : { timeoutMs: debounce.timeoutMs }),
    };
  }
  if (singleton) limits.singleton = { mode: singleton.mode };
  return limits;
}

/** Records the limits `request` declares for the function of `functionName` (best effort, never rejects). */
export async function noteDeclaredLimits(
  store: Store,
  clock: Clock,
  functionName: string,
  request: AdmissionRequest,
): Promise<void> {
  const base = functionBaseName(functionName);
  const qualifier = functionName.length > base.length ? functionName.slice(base.length + 1) : undefined;
  await noteFunctionLimits(store, base, limitsOf(request), clock, qualifier ? { version: qualifier } : {});
}
