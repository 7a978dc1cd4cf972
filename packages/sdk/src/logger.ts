import { formatWithOptions } from 'node:util';
import { activeContext } from './context/active-context';
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

/** The arguments of the logging call, kept (unseen by spreads and JSON) for the default line. */
const PARAMS: unique symbol = Symbol('durable-lambda.log-params');
type WithParams = LogEntry & { [PARAMS]?: readonly unknown[] };

const FORMAT = { breakLength: Number.POSITIVE_INFINITY };
/** AWS's levels by priority, for `AWS_LAMBDA_LOG_LEVEL` (as Lambda's runtime filters `console`). */
const PRIORITY: Readonly<Record<LogLevel, number>> = { debug: 2, info: 3, warn: 4, error: 5 };

/**
 * Writes each entry as one JSON line in the shape AWS's SDK writes (`requestId`, `timestamp`,
 * `level`, `executionArn`, the operation's id, name and attempt, plugin fields, `message`), so
 * the same CloudWatch Logs Insights queries work on both; warnings and errors go to stderr, as
 * `console.warn` and `console.error` do, and `AWS_LAMBDA_LOG_LEVEL` filters as on AWS.
 */
export const jsonLineSink: LogSink = (entry) => {
  const threshold = process.env.AWS_LAMBDA_LOG_LEVEL?.toLowerCase() as LogLevel | undefined;
  if (threshold && threshold in PRIORITY && PRIORITY[entry.level] < PRIORITY[threshold]) return;
  const line = `${awsLogLine(entry)}\n`;
  if (entry.level === 'warn' || entry.level === 'error') process.stderr.write(line);
  else process.stdout.write(line);
};

/** An Error as AWS's line shows it (Lambda's runtime's own rendering of a logged error). */
function errorReplacer(_key: string, value: unknown): unknown {
  if (!(value instanceof Error)) return value;
  return Object.assign(
    {
      errorType: value.constructor?.name ?? 'UnknownError',
      errorMessage: value.message,
      stackTrace: typeof value.stack === 'string' ? value.stack.split('\n') : value.stack,
    },
    value,
  );
}

/** One entry as the JSON line AWS's default logger writes for the same call. */
export function awsLogLine(entry: LogEntry): string {
  const line: Record<string, unknown> = {
    requestId: entry.requestId,
    timestamp: entry.timestamp,
    level: entry.level.toUpperCase(),
    executionArn: entry.executionArn ?? entry.runId,
  };
  if (entry.operationId !== undefined) line.operationId = entry.operationId;
  if (entry.operationName !== undefined) line.operationName = entry.operationName;
  if (entry.attempt !== undefined) line.attempt = entry.attempt;
  if (entry.context) Object.assign(line, entry.context);
  const params = (entry as WithParams)[PARAMS] ?? paramsOf(entry);
  if (params.length === 1) {
    line.message = params[0];
    try {
      return JSON.stringify(line, errorReplacer);
    } catch {
      line.message = formatWithOptions(FORMAT, params[0]);
      return JSON.stringify(line);
    }
  }
  line.message = formatWithOptions(FORMAT, ...params);
  const error = params.find((p): p is Error => p instanceof Error);
  if (error) {
    line.errorType = error.constructor?.name ?? 'UnknownError';
    line.errorMessage = error.message;
    line.stackTrace = typeof error.stack === 'string' ? error.stack.split('\n') : [];
  }
  try {
    return JSON.stringify(line);
  } catch {
    return JSON.stringify({ ...line, message: String(line.message) });
  }
}

/** The call's arguments rebuilt from an entry made elsewhere (a sink handed a plain entry). */
function paramsOf(entry: LogEntry): unknown[] {
  if (entry.data === undefined) return [entry.message];
  return [entry.message, entry.data];
}

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
function entryOf(
  level: LogLevel,
  params: readonly unknown[],
  base: Omit<LogEntry, 'level' | 'message' | 'timestamp'>,
): LogEntry {
  const [first, ...rest] = params;
  const message =
    typeof first === 'string' ? first : formatWithOptions({ breakLength: Number.POSITIVE_INFINITY }, first);
  const entry: WithParams = { level, message, timestamp: new Date().toISOString(), ...base };
  if (entry.operationId === undefined) {
    // The run's logger used inside a step, a check or a child context: that operation logged.
    const active = activeContext();
    if (active && active.contextId !== 'root') {
      entry.operationId = active.contextId;
      if (active.operationName !== undefined) entry.operationName = active.operationName;
      if (active.attempt !== undefined) entry.attempt = active.attempt;
    }
  }
  if (rest.length === 1 && rest[0] !== undefined) entry.data = plain(rest[0]);
  else if (rest.length > 1) entry.data = rest.map(plain);
  Object.defineProperty(entry, PARAMS, { value: params, enumerable: false });
  return entry;
}

/**
 * Builds the SDK's own logger. `enabled` is asked at each call; `context` adds the fields of
 * instrumentation plugins (`enrichLogContext`).
 */
export function createLogger(
  sink: LogSink,
  base: Pick<LogEntry, 'runId' | 'executionArn' | 'requestId' | 'operationId' | 'operationName' | 'attempt'>,
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

/** `{ requestId }` of a Lambda context that has one, for a logger's fixed fields. */
export function requestIdOf(context: { awsRequestId?: string }): { requestId?: string } {
  return context.awsRequestId === undefined ? {} : { requestId: context.awsRequestId };
}
