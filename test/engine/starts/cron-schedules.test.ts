/**
 * EventBridge Scheduler cron in the engine: the parser (six fields, each checked with an error
 * naming it) and the evaluator (the next firing and the firings in a window), in UTC and in time
 * zones across daylight saving time: a local time skipped in spring does not fire that day, one
 * repeated in autumn fires once, at its first occurrence (Scheduler's documented behaviour).
 */
import { CronError, cronFiringsBetween, nextCronFiring, parseCron } from '@durable-lambda/engine';
import { describe, expect, it } from 'vitest';

const iso = (at: number | undefined) => (at === undefined ? undefined : new Date(at).toISOString());
const utc = (y: number, m: number, d: number, h = 0, mi = 0) => Date.UTC(y, m - 1, d, h, mi);
/** The firings in `(from, to]` as ISO strings. */
const fires = (cron: string, from: number, to: number, zone = 'UTC') =>
  cronFiringsBetween(cron, from, to, zone).map((t) => new Date(t).toISOString());
/** The dates (YYYY-MM-DD, UTC) of the firings in `(from, to]`. */
const days = (cron: string, from: number, to: number) => fires(cron, from, to).map((s) => s.slice(0, 10));

describe('cron: the next firing in UTC', () => {
  it('fires daily at the given minute and hour, strictly after the instant given', () => {
    expect(iso(nextCronFiring(utc(2026, 1, 1), '0 3 * * ? *'))).toBe('2026-01-01T03:00:00.000Z');
    expect(iso(nextCronFiring(utc(2026, 1, 1, 3), '0 3 * * ? *'))).toBe('2026-01-02T03:00:00.000Z');
    expect(iso(nextCronFiring(utc(2026, 1, 1, 3) + 1, '0 3 * * ? *'))).toBe('2026-01-02T03:00:00.000Z');
    expect(iso(nextCronFiring(utc(2026, 1, 1, 2, 59) + 59_999, '0 3 * * ? *'))).toBe('2026-01-01T03:00:00.000Z');
  });

  it('reads increments, ranges, lists and names', () => {
    expect(fires('0/20 * * * ? *', utc(2026, 1, 1), utc(2026, 1, 1, 1))).toEqual([
      '2026-01-01T00:20:00.000Z',
      '2026-01-01T00:40:00.000Z',
      '2026-01-01T01:00:00.000Z',
    ]);
    expect(fires('5/25 9 * * ? *', utc(2026, 1, 1), utc(2026, 1, 1, 12))).toEqual([
      '2026-01-01T09:05:00.000Z',
      '2026-01-01T09:30:00.000Z',
      '2026-01-01T09:55:00.000Z',
    ]);
    // 2026-01-05 is a Monday.
    expect(days('0 8 ? * MON-FRI *', utc(2026, 1, 3), utc(2026, 1, 12, 8))).toEqual([
      '2026-01-05',
      '2026-01-06',
      '2026-01-07',
      '2026-01-08',
      '2026-01-09',
      '2026-01-12',
    ]);
    expect(days('0 0 1 JAN,jul ? *', utc(2026, 1, 1), utc(2027, 12, 31))).toEqual([
      '2026-07-01',
      '2027-01-01',
      '2027-07-01',
    ]);
    expect(days('0 0 ? * 1,7 *', utc(2026, 1, 1), utc(2026, 1, 12))).toEqual([
      '2026-01-03',
      '2026-01-04',
      '2026-01-10',
      '2026-01-11',
    ]);
    expect(days('0 0 1 */4 ? 2026-2027', utc(2025, 1, 1), utc(2030, 1, 1))).toEqual([
      '2026-01-01',
      '2026-05-01',
      '2026-09-01',
      '2027-01-01',
      '2027-05-01',
      '2027-09-01',
    ]);
  });

  it('keeps to month ends and leap years', () => {
    expect(days('0 0 29 2 ? *', utc(2025, 1, 1), utc(2033, 1, 1))).toEqual(['2028-02-29', '2032-02-29']);
    // 2100 is no leap year, 2000 was.
    expect(days('0 0 29 2 ? *', utc(2096, 3, 1), utc(2104, 3, 1))).toEqual(['2104-02-29']);
    expect(days('0 0 29 2 ? *', utc(1999, 1, 1), utc(2001, 1, 1))).toEqual(['2000-02-29']);
    expect(days('0 0 31 * ? *', utc(2026, 1, 1), utc(2026, 12, 31))).toEqual([
      '2026-01-31',
      '2026-03-31',
      '2026-05-31',
      '2026-07-31',
      '2026-08-31',
      '2026-10-31',
      '2026-12-31',
    ]);
    expect(days('0 0 L * ? *', utc(2027, 12, 31, 1), utc(2028, 4, 30, 1))).toEqual([
      '2028-01-31',
      '2028-02-29',
      '2028-03-31',
      '2028-04-30',
    ]);
    expect(days('0 0 L 2 ? *', utc(2026, 1, 1), utc(2028, 12, 31))).toEqual(['2026-02-28', '2027-02-28', '2028-02-29']);
  });

  it('reads W (the nearest weekday, never across the month) and LW', () => {
    // 2026-02-15 is a Sunday: the 16th; 2026-08-15 a Saturday: the 14th; 2026-04-15 a Wednesday.
    expect(days('0 0 15W * ? *', utc(2026, 2, 1), utc(2026, 4, 30))).toEqual([
      '2026-02-16',
      '2026-03-16',
      '2026-04-15',
    ]);
    expect(days('0 0 15W 8 ? *', utc(2026, 1, 1), utc(2026, 12, 31))).toEqual(['2026-08-14']);
    // 2026-08-01 is a Saturday: Monday the 3rd, not Friday July 31st.
    expect(days('0 0 1W 8 ? *', utc(2026, 1, 1), utc(2026, 12, 31))).toEqual(['2026-08-03']);
    // 2026-05-31 is a Sunday: Friday the 29th, not Monday June 1st.
    expect(days('0 0 31W 5 ? *', utc(2026, 1, 1), utc(2026, 12, 31))).toEqual(['2026-05-29']);
    // 31W in a 30-day month names no day.
    expect(days('0 0 31W 4 ? *', utc(2026, 1, 1), utc(2026, 12, 31))).toEqual([]);
    // Last weekdays: Jan 31 2026 is a Saturday, Feb 28 a Saturday, Mar 31 a Tuesday, May 31 a Sunday.
    expect(days('0 0 LW * ? *', utc(2026, 1, 1), utc(2026, 6, 1))).toEqual([
      '2026-01-30',
      '2026-02-27',
      '2026-03-31',
      '2026-04-30',
      '2026-05-29',
    ]);
  });

  it('reads L and # in day-of-week', () => {
    // 6L: the month's last Friday.
    expect(days('0 0 ? * 6L *', utc(2026, 1, 1), utc(2026, 6, 1))).toEqual([
      '2026-01-30',
      '2026-02-27',
      '2026-03-27',
      '2026-04-24',
      '2026-05-29',
    ]);
    // 2#1: the month's first Monday; FRI#5 only in months with five Fridays.
    expect(days('0 0 ? * 2#1 *', utc(2026, 1, 1), utc(2026, 4, 30))).toEqual([
      '2026-01-05',
      '2026-02-02',
      '2026-03-02',
      '2026-04-06',
    ]);
    expect(days('0 0 ? * FRI#5 *', utc(2026, 1, 1), utc(2026, 7, 1))).toEqual(['2026-01-30', '2026-05-29']);
    // L alone is the week's last day, Saturday.
    expect(days('0 0 ? * L *', utc(2026, 1, 1), utc(2026, 1, 15))).toEqual(['2026-01-03', '2026-01-10']);
  });

  it('never fires again when its years are past or its date never comes', () => {
    expect(nextCronFiring(utc(2026, 1, 1), '0 0 1 1 ? 2025')).toBeUndefined();
    expect(nextCronFiring(utc(2026, 1, 1), '0 0 30 2 ? *')).toBeUndefined();
    expect(iso(nextCronFiring(utc(2026, 1, 1), '0 0 1 1 ? 2030,2199'))).toBe('2030-01-01T00:00:00.000Z');
    expect(nextCronFiring(utc(2199, 12, 31, 23, 59), '* * * * ? *')).toBeUndefined();
  });

  it('gives only the last firings asked for, dense or sparse, the same as walking the whole window', () => {
    expect(cronFiringsBetween('0 * * * ? *', utc(2026, 1, 1), utc(2026, 1, 2), 'UTC', 2).map(iso)).toEqual([
      '2026-01-01T23:00:00.000Z',
      '2026-01-02T00:00:00.000Z',
    ]);
    // Every minute for a month: the last 100 minutes up to the end.
    const end = utc(2026, 1, 31, 12, 0) + 30_000;
    const last = cronFiringsBetween('* * * * ? *', utc(2026, 1, 1), end, 'America/New_York', 100);
    expect(last).toEqual(Array.from({ length: 100 }, (_, i) => utc(2026, 1, 31, 10, 21) + i * 60_000));
    expect(last).toEqual(cronFiringsBetween('* * * * ? *', utc(2026, 1, 31), end, 'America/New_York').slice(-100));
    // Yearly, from far back: the window widens until it holds them.
    expect(
      cronFiringsBetween('0 0 1 1 ? *', utc(2000, 1, 1), utc(2026, 1, 31), 'America/New_York', 3).map(iso),
    ).toEqual(['2024-01-01T05:00:00.000Z', '2025-01-01T05:00:00.000Z', '2026-01-01T05:00:00.000Z']);
    // Fewer than asked for in the whole window: all of them.
    expect(cronFiringsBetween('0 0 1 1 ? *', utc(2024, 6, 1), utc(2026, 1, 31), 'UTC', 10)).toHaveLength(2);
  });
});

describe('cron: time zones and daylight saving time', () => {
  it('fires at local time in the zone', () => {
    // Paris is UTC+1 in January, UTC+2 in July.
    expect(iso(nextCronFiring(utc(2026, 1, 1), '0 3 * * ? *', 'Europe/Paris'))).toBe('2026-01-01T02:00:00.000Z');
    expect(iso(nextCronFiring(utc(2026, 7, 1), '0 3 * * ? *', 'Europe/Paris'))).toBe('2026-07-01T01:00:00.000Z');
    // The day is the zone's: 23:30 in New York on Jan 5 (a Monday) is already Jan 6 in UTC.
    expect(iso(nextCronFiring(utc(2026, 1, 3), '30 23 ? * MON *', 'America/New_York'))).toBe(
      '2026-01-06T04:30:00.000Z',
    );
  });

  it('America/New_York, spring (2026-03-08, 02:00 -> 03:00): 02:30 does not exist that day and does not fire', () => {
    expect(fires('30 2 * * ? *', utc(2026, 3, 7), utc(2026, 3, 10), 'America/New_York')).toEqual([
      '2026-03-07T07:30:00.000Z',
      '2026-03-09T06:30:00.000Z',
    ]);
    // Every 30 minutes through the night: 02:00 and 02:30 are skipped, 03:00 is the next.
    expect(fires('0/30 1-3 * * ? *', utc(2026, 3, 8, 5), utc(2026, 3, 8, 9), 'America/New_York')).toEqual([
      '2026-03-08T06:00:00.000Z',
      '2026-03-08T06:30:00.000Z',
      '2026-03-08T07:00:00.000Z',
      '2026-03-08T07:30:00.000Z',
    ]);
  });

  it('America/New_York, autumn (2026-11-01, 02:00 -> 01:00): 01:30 happens twice and fires once, the first time', () => {
    expect(fires('30 1 * * ? *', utc(2026, 10, 31), utc(2026, 11, 3), 'America/New_York')).toEqual([
      '2026-10-31T05:30:00.000Z',
      '2026-11-01T05:30:00.000Z',
      '2026-11-02T06:30:00.000Z',
    ]);
    // Asked from inside the repeated hour (its second pass), the same wall time is not fired again.
    expect(iso(nextCronFiring(utc(2026, 11, 1, 6, 10), '30 1 * * ? *', 'America/New_York'))).toBe(
      '2026-11-02T06:30:00.000Z',
    );
    // Every 20 minutes: three firings in the repeated hour, not six; then 02:00 EST.
    expect(fires('0/20 1-2 * * ? *', utc(2026, 11, 1, 4), utc(2026, 11, 1, 7, 30), 'America/New_York')).toEqual([
      '2026-11-01T05:00:00.000Z',
      '2026-11-01T05:20:00.000Z',
      '2026-11-01T05:40:00.000Z',
      '2026-11-01T07:00:00.000Z',
      '2026-11-01T07:20:00.000Z',
    ]);
  });

  it('Europe/Berlin: 02:30 skipped on 2026-03-29, 02:30 once on 2026-10-25', () => {
    expect(fires('30 2 * * ? *', utc(2026, 3, 28), utc(2026, 3, 31), 'Europe/Berlin')).toEqual([
      '2026-03-28T01:30:00.000Z',
      '2026-03-30T00:30:00.000Z',
    ]);
    expect(fires('30 2 * * ? *', utc(2026, 10, 24), utc(2026, 10, 27), 'Europe/Berlin')).toEqual([
      '2026-10-24T00:30:00.000Z',
      '2026-10-25T00:30:00.000Z',
      '2026-10-26T01:30:00.000Z',
    ]);
    // Hourly: 23 firings on the short day, 24 (not 25) on the long one.
    const count = (d: number) =>
      cronFiringsBetween('0 * * * ? *', utc(2026, 3, d - 1, 22, 59), utc(2026, 3, d, 21, 59), 'Europe/Berlin').length;
    expect(count(29)).toBe(23);
    expect(
      cronFiringsBetween('0 * * * ? *', utc(2026, 10, 24, 21, 59), utc(2026, 10, 25, 22, 59), 'Europe/Berlin').length,
    ).toBe(24);
  });
});

describe('cron: refusing what EventBridge refuses, naming the field', () => {
  const refuses = (cron: string, field: string, message: RegExp) => {
    let caught: unknown;
    try {
      parseCron(cron);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(CronError);
    expect((caught as CronError).cronField).toBe(field);
    expect((caught as CronError).code).toBe('invalid_argument');
    expect((caught as CronError).message).toMatch(message);
  };

  it('refuses bad expressions', () => {
    refuses('0 3 * * *', 'expression', /needs six fields/);
    refuses('', 'expression', /needs six fields .* has 0/);
    refuses('60 3 * * ? *', 'minutes', /60 is out of range 0-59/);
    refuses('0 24 * * ? *', 'hours', /24 is out of range 0-23/);
    refuses('0 3 32 * ? *', 'dayOfMonth', /32 is out of range 1-31/);
    refuses('0 3 0 * ? *', 'dayOfMonth', /0 is out of range/);
    refuses('0 3 * 13 ? *', 'month', /13 is out of range 1-12/);
    refuses('0 3 * FOO ? *', 'month', /"FOO" is not a number .* JAN FEB/);
    refuses('0 3 ? * 8 *', 'dayOfWeek', /8 is out of range 1-7/);
    refuses('0 3 * * ? 2200', 'year', /2200 is out of range 1970-2199/);
    refuses('0 3 * * * *', 'dayOfMonth', /exactly one of day-of-month and day-of-week must be \?/);
    refuses('0 3 ? * ? *', 'dayOfWeek', /exactly one/);
    refuses('0 3 1 * MON *', 'dayOfMonth', /exactly one/);
    refuses('? 3 * * ? *', 'minutes', /\? is not allowed here/);
    refuses('0 3 ? * MON/2 *', 'dayOfWeek', /\/ is not allowed here/);
    refuses('0 3 L-2 * ? *', 'dayOfMonth', /use L, LW or <day>W/);
    refuses('0 3 ? * 2#0 *', 'dayOfWeek', /n from 1 to 5/);
    refuses('0 3 ? * 2#6 *', 'dayOfWeek', /n from 1 to 5/);
    refuses('0 10-5 * * ? *', 'hours', /range 10-5 starts after it ends/);
    refuses('0/0 3 * * ? *', 'minutes', /increment "0" must be a whole number, at least 1/);
    refuses('0 3 1-2-3 * ? *', 'dayOfMonth', /not a range/);
  });

  it('refuses an unknown time zone', () => {
    expect(() => nextCronFiring(0, '0 3 * * ? *', 'Mars/Olympus')).toThrow(CronError);
    expect(() => nextCronFiring(0, '0 3 * * ? *', 'Mars/Olympus')).toThrow(/cron timezone: "Mars\/Olympus"/);
  });

  it('accepts the cron(...) form and keeps the fields as given', () => {
    expect(parseCron('cron(0  3 * * ? *)').source).toBe('0 3 * * ? *');
  });
});
