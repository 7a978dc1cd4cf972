import { CRON_MAX_YEAR, CronError, type CronExpression, parseCron } from './cron-fields';
import { instantsOf, isTimeZone, wallOf } from './wall-clock';

export { CRON_FIELDS, CRON_MAX_YEAR, CronError, type CronExpression, type CronField, parseCron } from './cron-fields';
export { isTimeZone } from './wall-clock';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** 1 = Sunday … 7 = Saturday, as cron counts. */
function weekday(year: number, month: number, day: number): number {
  return new Date(Date.UTC(year, month - 1, day)).getUTCDay() + 1;
}

function nearestWeekday(year: number, month: number, day: number, last: number): number {
  const w = weekday(year, month, day);
  // Never across the month's edge: the 1st on a Saturday is Monday the 3rd, a last Sunday the Friday before.
  if (w === 7) return day === 1 ? 3 : day - 1;
  if (w === 1) return day === last ? day - 2 : day + 1;
  return day;
}

function dayMatches(cron: CronExpression, year: number, month: number, day: number): boolean {
  const last = daysIn(year, month);
  const dom = cron.dayOfMonth;
  if (!dom.any) {
    if (dom.values.has(day)) return true;
    return dom.special.some((s) => {
      if (s.kind === 'last') return day === last;
      if (s.kind === 'lastWeekday') return day === nearestWeekday(year, month, last, last);
      return s.day <= last && day === nearestWeekday(year, month, s.day, last);
    });
  }
  const dow = cron.dayOfWeek;
  if (dow.any) return false;
  const w = weekday(year, month, day);
  if (dow.values.has(w)) return true;
  return dow.special.some((s) =>
    s.kind === 'lastOfMonth' ? w === s.day && day + 7 > last : w === s.day && Math.ceil(day / 7) === s.n,
  );
}

const yearLists = new WeakMap<CronExpression, number[]>();

function sortedYears(expr: CronExpression): number[] {
  let years = yearLists.get(expr);
  if (!years) {
    years = [...expr.years].sort((a, b) => a - b);
    yearLists.set(expr, years);
  }
  return years;
}

function checkedZone(timeZone: string): string {
  if (!isTimeZone(timeZone)) throw new CronError('timezone', `${JSON.stringify(timeZone)} is not an IANA time zone`);
  return timeZone;
}

/**
 * The first firing of `cron` strictly after instant `after` (ms since the epoch), read in
 * `timeZone` (an IANA name; default UTC); undefined when it never fires again (its years are
 * past, or a date that never comes, such as `30 2`). EventBridge Scheduler's semantics, also
 * across changes of daylight saving time: a local time that does not exist that day (the hour
 * skipped in spring) fires not at all that day (the next firing is the next local time that
 * exists and matches); a local time that occurs twice (the hour repeated in autumn) fires once,
 * at its first occurrence.
 */
export function nextCronFiring(after: number, cron: CronExpression | string, timeZone = 'UTC'): number | undefined {
  const expr = typeof cron === 'string' ? parseCron(cron) : cron;
  const zone = checkedZone(timeZone);
  const years = sortedYears(expr);
  const startWall = wallOf(after, zone);
  let date = Math.floor(startWall / DAY_MS) * DAY_MS;
  for (;;) {
    const d = new Date(date);
    const year = d.getUTCFullYear();
    const month = d.getUTCMonth() + 1;
    if (year > CRON_MAX_YEAR) return undefined;
    if (!expr.years.has(year)) {
      const next = years.find((y) => y > year);
      if (next === undefined) return undefined;
      date = Date.UTC(next, 0, 1);
      continue;
    }
    if (!expr.months.has(month)) {
      date = Date.UTC(year, month, 1);
      continue;
    }
    if (dayMatches(expr, year, month, d.getUTCDate())) {
      for (const hour of expr.hours) {
        for (const minute of expr.minutes) {
          const wall = date + hour * HOUR_MS + minute * MINUTE_MS;
          // A wall time at or before `after`'s has its first occurrence at or before `after`.
          if (wall <= startWall) continue;
          const at = instantsOf(wall, zone)[0];
          if (at !== undefined && at > after) return at;
        }
      }
    }
    date += DAY_MS;
  }
}

/**
 * The firings of `cron` in `(after, upTo]`, oldest first, read in `timeZone` (see
 * {@link nextCronFiring}); at most the last `limit` of them (all by default). With a limit, only
 * the end of the window is walked (a window doubling back from `upTo` until it holds `limit`
 * firings or reaches `after`): the last hundred firings of a cron that fires every minute, after
 * a month of downtime, cost about a hundred steps, not forty thousand.
 */
export function cronFiringsBetween(
  cron: CronExpression | string,
  after: number,
  upTo: number,
  timeZone = 'UTC',
  limit = Number.POSITIVE_INFINITY,
): number[] {
  const expr = typeof cron === 'string' ? parseCron(cron) : cron;
  checkedZone(timeZone);
  if (!Number.isFinite(limit)) return walk(expr, after, upTo, timeZone, limit);
  for (let span = HOUR_MS; ; span *= 2) {
    const from = Math.max(after, upTo - span);
    const found = walk(expr, from, upTo, timeZone, limit);
    if (found.length >= limit || from === after) return found;
  }
}

function walk(expr: CronExpression, after: number, upTo: number, timeZone: string, limit: number): number[] {
  const out: number[] = [];
  for (let at = nextCronFiring(after, expr, timeZone); at !== undefined && at <= upTo; ) {
    out.push(at);
    if (out.length > limit) out.shift();
    at = nextCronFiring(at, expr, timeZone);
  }
  return out;
}
