/**
 * What the dev server tells `GET /v1/functions` about its functions beyond their names: the
 * limits each handler's code declares (recorded in the store at load, as the engine records them
 * in production, so the listing reads them the same way) and what starts their runs (the
 * schedules it fires, its events route).
 */
import type { FunctionStartsWire } from '@durable-lambda/api';
import { type Clock, type FunctionLimitsStore, noteFunctionLimits } from '@durable-lambda/engine';
import { getDurableEntry } from '@durable-lambda/sdk';
import { isOurDurableHandler, type ServedHandler } from './entries';
import type { DevSchedule } from './schedule-timers';

/**
 * Records the limits each of our handlers declares (AWS-wrapped ones declare none). A function
 * with none is recorded with none, so a limit removed from the code is removed from the listing.
 */
export async function recordDeclaredLimits(
  store: FunctionLimitsStore,
  functions: ReadonlyMap<string, ServedHandler>,
  clock: Clock,
  onError: (error: unknown) => void,
): Promise<void> {
  for (const [name, handler] of functions) {
    if (!isOurDurableHandler(handler)) continue;
    await noteFunctionLimits(store, name, getDurableEntry(handler).limits ?? {}, clock, { onError });
  }
}

/** What starts each function's runs: its schedules and the events route every function has. */
export function startsOf(
  schedules: Readonly<Record<string, readonly DevSchedule[]>>,
): (name: string) => FunctionStartsWire {
  return (name) => ({
    ...(Object.hasOwn(schedules, name)
      ? {
          schedules: (schedules[name] ?? []).map((s) => ({
            name: s.name,
            ...(s.rateMs === undefined ? {} : { rateMs: s.rateMs }),
            ...(s.cron === undefined ? {} : { cron: s.cron }),
            ...(s.timezone === undefined ? {} : { timezone: s.timezone }),
            overlap: s.overlap ?? 'skip',
            catchUp: s.catchUp === true,
          })),
        }
      : {}),
    eventsPath: `/v1/functions/${encodeURIComponent(name)}/events`,
  });
}
