/**
 * What a requirement's handler writes as its log output (AWS's handlers print JSON lines to
 * stdout, read back from CloudWatch): records in the order written, per run of a requirement.
 * The harness clears it before each run; handlers and their plugins append to it.
 */

/** One log record: a JSON object's top-level fields, or `{ message }` for a plain line. */
export type LogRecord = Record<string, unknown>;

const records: LogRecord[] = [];

/** Appends a record (copied as JSON, as a printed line would be). */
export function emit(record: LogRecord): void {
  records.push(JSON.parse(JSON.stringify(record)) as LogRecord);
}

/** Appends a plain line. */
export function say(message: string): void {
  records.push({ message });
}

/** Everything written since the last {@link clearLog}, in order. */
export function readLog(): LogRecord[] {
  return [...records];
}

/** Starts a new run's output. */
export function clearLog(): void {
  records.length = 0;
}
