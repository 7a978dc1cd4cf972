import { EngineInputError } from '../errors';

/** The six fields of an EventBridge Scheduler cron expression, in order. */
export const CRON_FIELDS = ['minutes', 'hours', 'dayOfMonth', 'month', 'dayOfWeek', 'year'] as const;

/** One of {@link CRON_FIELDS}. */
export type CronField = (typeof CRON_FIELDS)[number];

/** A cron expression that does not parse: `field` names the part at fault (code `invalid_argument`). */
export class CronError extends EngineInputError {
  constructor(
    readonly cronField: CronField | 'expression' | 'timezone',
    message: string,
  ) {
    super(`cron ${cronField}`, message);
    this.name = 'CronError';
  }
}

/** A day-of-month item beyond plain days: `L`, `LW` or `<day>W`. */
export type DayOfMonthSpecial = { kind: 'last' } | { kind: 'lastWeekday' } | { kind: 'nearestWeekday'; day: number };

/** A day-of-week item beyond plain days (1 = SUN … 7 = SAT): `<day>L` or `<day>#<n>`. */
export type DayOfWeekSpecial = { kind: 'lastOfMonth'; day: number } | { kind: 'nth'; day: number; n: number };

/** A day rule: `?` (any: the other day field decides) or the days it names. */
export type DayRule<S> = { any: true } | { any: false; values: ReadonlySet<number>; special: readonly S[] };

/** A parsed cron expression: each field's values, sorted ascending where they are plain numbers. */
export interface CronExpression {
  /** The expression as given, fields joined by one space. */
  readonly source: string;
  readonly minutes: readonly number[];
  readonly hours: readonly number[];
  readonly dayOfMonth: DayRule<DayOfMonthSpecial>;
  readonly months: ReadonlySet<number>;
  readonly dayOfWeek: DayRule<DayOfWeekSpecial>;
  readonly years: ReadonlySet<number>;
}

interface FieldSpec {
  min: number;
  max: number;
  /** The wildcards EventBridge documents for the field (`, - *` and `/` shown as such). */
  wildcards: string;
  names?: readonly string[];
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const WEEKDAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

const SPECS: Record<CronField, FieldSpec> = {
  minutes: { min: 0, max: 59, wildcards: ', - * /' },
  hours: { min: 0, max: 23, wildcards: ', - * /' },
  dayOfMonth: { min: 1, max: 31, wildcards: ', - * ? / L W' },
  month: { min: 1, max: 12, wildcards: ', - * /', names: MONTHS },
  dayOfWeek: { min: 1, max: 7, wildcards: ', - * ? L #', names: WEEKDAYS },
  year: { min: 1970, max: 2199, wildcards: ', - * /' },
};

/** The latest year a cron expression can name (EventBridge's bound). */
export const CRON_MAX_YEAR = 2199;

function fieldValue(field: CronField, text: string): number {
  const spec = SPECS[field];
  const upper = text.toUpperCase();
  const named = spec.names?.indexOf(upper) ?? -1;
  if (named >= 0) return named + 1;
  if (!/^\d+$/.test(text)) {
    const names = spec.names ? ` or one of ${spec.names.join(' ')}` : '';
    throw new CronError(field, `${JSON.stringify(text)} is not a number from ${spec.min} to ${spec.max}${names}`);
  }
  const value = Number(text);
  if (value < spec.min || value > spec.max) {
    throw new CronError(field, `${value} is out of range ${spec.min}-${spec.max}`);
  }
  return value;
}

function allows(field: CronField, wildcard: string): void {
  if (!SPECS[field].wildcards.split(' ').includes(wildcard)) {
    throw new CronError(field, `${wildcard} is not allowed here (allowed: ${SPECS[field].wildcards})`);
  }
}

/** The values of one plain item: `*`, `n`, `a-b`, each optionally `/step`. */
function plainItem(field: CronField, item: string): number[] {
  const spec = SPECS[field];
  const [range, step, extra] = item.split('/');
  if (extra !== undefined || range === undefined || range === '') {
    throw new CronError(field, `${JSON.stringify(item)} is not a value, a range or an increment`);
  }
  let from: number;
  let to: number;
  if (range === '*') {
    allows(field, '*');
    [from, to] = [spec.min, spec.max];
  } else if (range.includes('-')) {
    allows(field, '-');
    const [a, b, more] = range.split('-');
    if (more !== undefined || !a || !b) throw new CronError(field, `${JSON.stringify(range)} is not a range a-b`);
    [from, to] = [fieldValue(field, a), fieldValue(field, b)];
    if (from > to) throw new CronError(field, `range ${range} starts after it ends`);
  } else {
    from = fieldValue(field, range);
    // `a/step` runs from a to the field's end.
    to = step === undefined ? from : spec.max;
  }
  let by = 1;
  if (step !== undefined) {
    allows(field, '/');
    if (!/^\d+$/.test(step) || Number(step) < 1) {
      throw new CronError(field, `increment ${JSON.stringify(step)} must be a whole number, at least 1`);
    }
    by = Number(step);
  }
  const out: number[] = [];
  for (let v = from; v <= to; v += by) out.push(v);
  return out;
}

function plainField(field: CronField, text: string): number[] {
  const items = text.split(',');
  if (items.length > 1) allows(field, ',');
  const values = new Set<number>();
  for (const item of items) for (const v of plainItem(field, item)) values.add(v);
  return [...values].sort((a, b) => a - b);
}

function dayOfMonthField(text: string): DayRule<DayOfMonthSpecial> {
  if (text === '?') return { any: true };
  const values = new Set<number>();
  const special: DayOfMonthSpecial[] = [];
  const items = text.split(',');
  if (items.length > 1) allows('dayOfMonth', ',');
  for (const raw of items) {
    const item = raw.toUpperCase();
    if (item === 'L') special.push({ kind: 'last' });
    else if (item === 'LW') special.push({ kind: 'lastWeekday' });
    else if (item.endsWith('W'))
      special.push({ kind: 'nearestWeekday', day: fieldValue('dayOfMonth', item.slice(0, -1)) });
    else if (item.includes('L') || item.includes('W')) {
      throw new CronError('dayOfMonth', `${JSON.stringify(raw)}: use L, LW or <day>W`);
    } else for (const v of plainItem('dayOfMonth', raw)) values.add(v);
  }
  return { any: false, values, special };
}

function dayOfWeekField(text: string): DayRule<DayOfWeekSpecial> {
  if (text === '?') return { any: true };
  const values = new Set<number>();
  const special: DayOfWeekSpecial[] = [];
  const items = text.split(',');
  if (items.length > 1) allows('dayOfWeek', ',');
  for (const raw of items) {
    const item = raw.toUpperCase();
    if (item.includes('#')) {
      const [day, n, more] = item.split('#');
      if (more !== undefined || !day || !n || !/^[1-5]$/.test(n)) {
        throw new CronError('dayOfWeek', `${JSON.stringify(raw)}: <day>#<n> needs n from 1 to 5`);
      }
      special.push({ kind: 'nth', day: fieldValue('dayOfWeek', day), n: Number(n) });
    } else if (item === 'L') {
      // Alone, L is the week's last day: Saturday.
      values.add(7);
    } else if (item.endsWith('L')) {
      special.push({ kind: 'lastOfMonth', day: fieldValue('dayOfWeek', item.slice(0, -1)) });
    } else for (const v of plainItem('dayOfWeek', raw)) values.add(v);
  }
  return { any: false, values, special };
}

/**
 * Parses an EventBridge Scheduler cron expression: six fields (minutes hours day-of-month month
 * day-of-week year), optionally wrapped in `cron(...)`, with the wildcards EventBridge documents
 * per field (`, - * /` everywhere but day-of-week, which has no `/`; `?` in the day fields; `L` and
 * `W` in day-of-month; `L` and `#` in day-of-week), names JAN-DEC and SUN-SAT (SUN = 1), and
 * exactly one of the day fields `?`. A bad expression throws a {@link CronError} naming the field.
 */
export function parseCron(expression: string): CronExpression {
  let text = expression.trim();
  const wrapped = /^cron\((.*)\)$/i.exec(text);
  if (wrapped) text = (wrapped[1] as string).trim();
  const fields = text.split(/\s+/);
  if (text === '' || fields.length !== 6) {
    throw new CronError(
      'expression',
      `${JSON.stringify(expression)} needs six fields (minutes hours day-of-month month day-of-week year), has ${text === '' ? 0 : fields.length}`,
    );
  }
  const [minutes, hours, dom, month, dow, year] = fields as [string, string, string, string, string, string];
  for (const [field, value] of [
    ['minutes', minutes],
    ['hours', hours],
    ['month', month],
    ['year', year],
  ] as const) {
    if (value.includes('?')) allows(field, '?');
  }
  if ((dom === '?') === (dow === '?')) {
    throw new CronError(
      dom === '?' ? 'dayOfWeek' : 'dayOfMonth',
      'exactly one of day-of-month and day-of-week must be ? (the other decides the days)',
    );
  }
  return {
    source: fields.join(' '),
    minutes: plainField('minutes', minutes),
    hours: plainField('hours', hours),
    dayOfMonth: dayOfMonthField(dom),
    months: new Set(plainField('month', month)),
    dayOfWeek: dayOfWeekField(dow),
    years: new Set(plainField('year', year)),
  };
}
