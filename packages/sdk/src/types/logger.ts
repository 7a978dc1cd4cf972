/** Severity of a log entry. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** One structured log entry of the default logger. */
export interface LogEntry {
  level: LogLevel;
  message: string;
  timestamp: string;
  runId: string;
  /** The run's execution ARN, as AWS's logger writes it (see `durableExecutionArn`). */
  executionArn?: string;
  /** The Lambda request id of the invocation that logged, when the platform gave one. */
  requestId?: string;
  /** The operation whose code logged (a step, a check, a child context). */
  operationId?: string;
  /** That operation's name, if it has one. */
  operationName?: string;
  /** The step attempt that logged. */
  attempt?: number;
  /** Whatever the caller attached. */
  data?: unknown;
  /** Fields added by instrumentation plugins (`enrichLogContext`). */
  context?: Record<string, string | number | boolean>;
}

/**
 * Receives log entries; the default (`jsonLineSink`) writes one JSON line per entry in the
 * shape of AWS's SDK (stdout, warnings and errors to stderr).
 */
export type LogSink = (entry: LogEntry) => void;

/** A level as `DurableLogger.log` receives it (AWS's `DurableLogLevel` values). */
export type DurableLogLevelName = 'INFO' | 'WARN' | 'ERROR' | 'DEBUG';

/** What the SDK knows about where a log line comes from (AWS's shape). */
export interface DurableLogData {
  requestId: string;
  executionArn: string;
  tenantId?: string;
  operationId?: string;
  operationName?: string;
  attempt?: number;
  [key: string]: unknown;
}

/** Handed to a custom logger's `configureDurableLoggingContext` (AWS's). */
export interface DurableLoggingContext {
  /** The data of the operation logging right now (the active step, check or child context). */
  getDurableLogData: () => DurableLogData;
}

/**
 * A logger: the SDK's own, or a custom one (console, pino, Powertools) set with
 * `context.configureLogger` (AWS's shape: any arguments, as `console` takes them).
 */
export interface DurableLogger {
  log?(level: DurableLogLevelName, ...params: unknown[]): void;
  error(...params: unknown[]): void;
  warn(...params: unknown[]): void;
  info(...params: unknown[]): void;
  debug(...params: unknown[]): void;
  /** Called with the SDK's logging context when the logger is configured. */
  configureDurableLoggingContext?(context: DurableLoggingContext): void;
}

/** The logger as a context exposes it (AWS's: the logging methods of `L`). */
export type DurableContextLogger<L extends DurableLogger = DurableLogger> = Pick<
  L,
  'log' | 'warn' | 'info' | 'error' | 'debug'
>;

/** Options of `context.configureLogger` (AWS's); only the fields given change. */
export interface LoggerConfig<L extends DurableLogger = DurableLogger> {
  /** Where the context's (and its later child contexts' and steps') logs go. */
  customLogger?: L;
  /** Silent while replaying completed work (default true). */
  modeAware?: boolean;
}
