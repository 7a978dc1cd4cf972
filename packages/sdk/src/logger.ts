import { formatWithOptions } from 'node:util';
import type {
  DurableContextLogger,
  DurableLogger,
  DurableLogLevelName,
  LogEntry,
  LogLevel,
  LogSink,
} from './types/logger';

export type {
  DurableContextLogger,
  DurableLogData,
  DurableLogger,
  DurableLoggingContext,
  DurableLogLevelName,
  LogEntry,
  LoggerConfig,
  LogLevel,
  LogSink,
} from './types/logger';

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

const LEVELS: Readonly<Record<DurableLogLevelName, LogLevel>> = {
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

const plain = (value: unknown): unknown =>
  value instanceof Error ? { name: value.name, message: value.message } : value;

/**
 * One entry from a call's arguments: `(message, data?)` as before; other shapes (AWS-style
 * `console` arguments) keep the first string as the message and the rest as data.
 */
function entryOf(level: LogLevel, params: readonly unknown[], base: Omit<LogEntry, 'level' | 'message' | 'timestamp'>) {
  const [first, ...rest] = params;
  const message =
    typeof first === 'string' ? first : formatWithOptions({ breakLength: Number.POSITIVE_INFINITY }, first);
  const entry: LogEntry = { level, message, timestamp: new Date().toISOString(), ...base };
  if (rest.length === 1 && rest[0] !== undefined) entry.data = plain(rest[0]);
  else if (rest.length > 1) entry.data = rest.map(plain);
  return entry;
}

/**
 * Builds the SDK's own logger. `enabled` is asked at each call; `context` adds the fields of
 * instrumentation plugins (`enrichLogContext`).
 */
export function createLogger(
  sink: LogSink,
  base: { runId: string; operationId?: string; attempt?: number },
  enabled: () => boolean = () => true,
  context: () => Record<string, string | number | boolean> | undefined = () => undefined,
): DurableLogger & Required<Pick<DurableLogger, 'log'>> {
  const emit =
    (level: LogLevel) =>
    (...params: unknown[]) => {
      if (!enabled()) return;
      const entry = entryOf(level, params, base);
      const extra = context();
      if (extra) entry.context = extra;
      sink(entry);
    };
  return {
    debug: emit('debug'),
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    log: (level, ...params) => emit(LEVELS[level] ?? 'info')(...params),
  };
}

/**
 * The logger a context exposes (AWS's mode-aware logger): forwards to `target()` (the custom
 * logger, or ours), silent while `shouldLog()` is false.
 */
export function modeAwareLogger(target: () => DurableLogger, shouldLog: () => boolean): DurableContextLogger {
  const forward =
    (method: 'debug' | 'info' | 'warn' | 'error') =>
    (...params: unknown[]): void => {
      if (shouldLog()) target()[method](...params);
    };
  return {
    debug: forward('debug'),
    info: forward('info'),
    warn: forward('warn'),
    error: forward('error'),
    log: (level: DurableLogLevelName, ...params: unknown[]): void => {
      if (shouldLog()) target().log?.(level, ...params);
    },
  };
}
