import type { FunctionLimitsWire, FunctionListWire } from '@durable-lambda/api';
import { formatDuration, table } from './format';

/** A function's limits in a few words: `concurrency 1 per key, throttle 10/1 min`. */
export function describeLimits(limits: FunctionLimitsWire | undefined): string {
  if (!limits) return 'none recorded';
  const parts: string[] = [];
  if (limits.concurrency) parts.push(`concurrency ${limits.concurrency.limit} per key`);
  if (limits.throttle) {
    const { limit, periodMs, burst } = limits.throttle;
    parts.push(`throttle ${limit}/${formatDuration(periodMs)}${burst === undefined ? '' : ` (burst ${burst})`}`);
  }
  if (limits.rateLimit) parts.push(`rate limit ${limits.rateLimit.limit}/${formatDuration(limits.rateLimit.periodMs)}`);
  if (limits.debounce) {
    const { periodMs, timeoutMs } = limits.debounce;
    parts.push(
      `debounce ${formatDuration(periodMs)}${timeoutMs === undefined ? '' : ` (at most ${formatDuration(timeoutMs)})`}`,
    );
  }
  if (limits.singleton) parts.push(`singleton (${limits.singleton.mode})`);
  if (limits.priority) parts.push('priority');
  return parts.length === 0 ? 'none' : parts.join(', ');
}

/** A count, `500+` when there are more. */
function counted(count: number | undefined, more: boolean | undefined): string {
  if (count === undefined) return '-';
  return more ? `${count}+` : String(count);
}

/** `durable functions`: each function with its limits, its RUNNING and QUEUED runs, its schedules. */
export function formatFunctionList(list: FunctionListWire): string {
  if (list.functions.length === 0) return 'No functions.';
  return table(
    ['FUNCTION', 'LIMITS', 'RUNNING', 'QUEUED', 'SCHEDULES'],
    list.functions.map((fn) => [
      fn.name,
      describeLimits(fn.limits),
      counted(fn.counts?.running, fn.counts?.runningMore),
      counted(fn.counts?.queued, fn.counts?.queuedMore),
      fn.starts?.schedules?.length
        ? fn.starts.schedules
            .map(
              (s) =>
                `${s.name} (${s.rateMs === undefined ? `cron ${s.cron ?? '?'}` : `every ${formatDuration(s.rateMs)}`})`,
            )
            .join(', ')
        : '-',
    ]),
  );
}
