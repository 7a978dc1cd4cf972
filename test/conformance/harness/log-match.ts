/**
 * Matching a run's log output against a requirement's expected log entries: each entry's
 * matcher selects records (every field present and matching: strings compared trimmed after
 * `{VAR}` substitution, a RegExp searched in the value as text, booleans strictly, numbers by
 * value); the number selected must be `count` (or within `min`/`max`), and with `after` /
 * `before` every selected record comes after / before every record an anchor selects (an anchor
 * selecting nothing is itself a mismatch).
 */
import type { LogRecord } from './log-stream';
import type { Bindings } from './match';
import type { LogExpectation, LogMatcher } from './requirement';

function valueMatches(expected: unknown, actual: unknown, bindings: Bindings): boolean {
  if (expected instanceof RegExp) {
    return new RegExp(bindings.substitute(expected.source), expected.flags).test(String(actual).trim());
  }
  if (typeof expected === 'string') return String(actual).trim() === bindings.substitute(expected).trim();
  if (typeof expected === 'boolean' || typeof actual === 'boolean') return expected === actual;
  if (typeof expected === 'number' && typeof actual === 'number') return expected === actual;
  return String(expected) === String(actual);
}

function selected(matcher: LogMatcher, records: readonly LogRecord[], bindings: Bindings): number[] {
  const found: number[] = [];
  records.forEach((record, index) => {
    if (
      Object.entries(matcher).every(([field, want]) => field in record && valueMatches(want, record[field], bindings))
    ) {
      found.push(index);
    }
  });
  return found;
}

/** Every way the log output differs from the expected entries. */
export function matchLogs(expected: readonly LogExpectation[], records: readonly LogRecord[], bindings: Bindings) {
  const problems: string[] = [];
  expected.forEach((entry, i) => {
    const label = `log ${i} ${JSON.stringify(entry.match, (_k, v) => (v instanceof RegExp ? String(v) : v))}`;
    const own = selected(entry.match, records, bindings);
    if (entry.count !== undefined && own.length !== entry.count) {
      problems.push(`${label}: ${own.length} records, expected ${entry.count}`);
    }
    if (entry.min !== undefined && own.length < entry.min)
      problems.push(`${label}: ${own.length} records, expected at least ${entry.min}`);
    if (entry.max !== undefined && own.length > entry.max)
      problems.push(`${label}: ${own.length} records, expected at most ${entry.max}`);
    for (const [direction, anchors] of [
      ['after', entry.after ?? []],
      ['before', entry.before ?? []],
    ] as const) {
      for (const anchor of anchors) {
        const marks = selected(anchor, records, bindings);
        if (marks.length === 0) {
          problems.push(`${label}: its ${direction} anchor selects no record`);
          continue;
        }
        if (own.length === 0) continue;
        const inOrder =
          direction === 'after'
            ? (own[0] as number) > (marks[marks.length - 1] as number)
            : (own[own.length - 1] as number) < (marks[0] as number);
        if (!inOrder) problems.push(`${label}: not every record is ${direction} ${JSON.stringify(anchor)}`);
      }
    }
  });
  return problems;
}
