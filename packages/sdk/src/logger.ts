/** Severity of a log entry. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** One structured log entry. */
export interface LogEntry {
  level: LogLevel;
  message: string;
  timestamp: string;
  runId: string;
  /** The operation that logged, for step loggers. */
  operationId?: string;
  /** The step attempt that logged. */
  attempt?: number;
  /** Whatever the caller attached. */
  data?: unknown;
}

/** Receives log entries; the default writes one JSON line per entry to stdout. */
export type LogSink = (entry: LogEntry) => void;

/** The structured logger on `DurableContext` and `StepContext`. */
export interface DurableLogger {
  debug(message: string, data?: unknown): void;
  info(message: string, data?: unknown): void;
  warn(message: string, data?: unknown): void;
  error(message: string, data?: unknown): void;
}

/** Writes each entry as one JSON line, the format CloudWatch Logs Insights reads. */
export const jsonLineSink: LogSink = (entry) => {
  let line: string;
  try {
    line = JSON.stringify(entry);
  } catch {
    line = JSON.stringify({ ...entry, data: String(entry.data) });
  }
  process.stdout.write(`${line}\n`);
};

/**
 * Builds a logger. `enabled` is asked at each call, so a context logger stays silent while the
 * invocation replays and speaks once it reaches new work.
 */
export function createLogger(
  sink: LogSink,
  base: { runId: string; operationId?: string; attempt?: number },
  enabled: () => boolean = () => true,
): DurableLogger {
  const emit = (level: LogLevel) => (message: string, data?: unknown) => {
    if (!enabled()) return;
    const entry: LogEntry = { level, message, timestamp: new Date().toISOString(), ...base };
    if (data !== undefined) entry.data = data instanceof Error ? { name: data.name, message: data.message } : data;
    sink(entry);
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}
