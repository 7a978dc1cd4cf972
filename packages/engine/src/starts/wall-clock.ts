/**
 * Wall-clock time in an IANA time zone, through `Intl` alone (no time zone data of our own): what
 * a cron expression is read in. A wall time is compared and stepped as if it were UTC
 * (`Date.UTC(...)`, "wall ms"); only the conversions to and from instants consult the zone.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** True when `Intl` knows `timeZone` (an IANA name such as `Europe/Berlin`, or `UTC`). */
export function isTimeZone(timeZone: string): boolean {
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

function isUtc(timeZone: string): boolean {
  return timeZone === 'UTC' || timeZone === 'Etc/UTC';
}

/** The wall time of instant `at` in `timeZone`, as wall ms (seconds kept, ms dropped). */
export function wallOf(at: number, timeZone: string): number {
  const whole = Math.floor(at / 1000) * 1000;
  if (isUtc(timeZone)) return whole;
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(whole)) {
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  }
  return Date.UTC(
    parts.year as number,
    (parts.month as number) - 1,
    parts.day as number,
    parts.hour as number,
    parts.minute as number,
    parts.second as number,
  );
}

const DAY_MS = 86_400_000;

/**
 * The instants whose wall time in `timeZone` is `wall`, earliest first: none when the wall time
 * does not exist (skipped by a change to daylight saving time), two when it repeats (the hour
 * after a change back), else one. Offsets are read a day either side of the wall time, so a zone
 * changing its offset at most once in two days (every zone today) is read right.
 */
export function instantsOf(wall: number, timeZone: string): number[] {
  if (isUtc(timeZone)) return [wall];
  const offsets = new Set([
    wallOf(wall - DAY_MS, timeZone) - (wall - DAY_MS),
    wallOf(wall + DAY_MS, timeZone) - (wall + DAY_MS),
  ]);
  const out: number[] = [];
  for (const offset of offsets) {
    const at = wall - offset;
    if (wallOf(at, timeZone) === wall) out.push(at);
  }
  return out.sort((a, b) => a - b);
}
