/**
 * `@durable-lambda/local`: the durable runtime on your machine. The test runner with a virtual
 * clock (compat with AWS's testing package) and the embedded backend pieces.
 *
 * Importing this entry loads no SQLite: the first `SqliteStore` loads better-sqlite3 (optional) or,
 * where it is missing or does not load, `node:sqlite` (Node.js 22.13+), and throws
 * `SqliteUnavailableError` when neither loads; no
 * declaration here names better-sqlite3's types. `@durable-lambda/local/testing` holds the test runner alone.
 */

export type { ConsoleServer, ConsoleServerOptions } from './console/console-server';
export {
  CONSOLE_HOST,
  ConsolePortInUseError,
  DEFAULT_CONSOLE_PORT,
  startConsoleServer,
} from './console/console-server';
export type { DevServer, DevServerOptions } from './dev-server/dev-server';
export { DEFAULT_DEV_DB, DEFAULT_DEV_HOST, DEFAULT_DEV_PORT, startDevServer } from './dev-server/dev-server';
export { LocalRequestRefusedError } from './dev-server/local-request-guard';
export type { DevSchedule, ScheduleTimerDeps, TimerPort } from './dev-server/schedule-timers';
export { firingsBetween, MAX_CATCH_UP, MAX_TIMER_MS, ScheduleTimers } from './dev-server/schedule-timers';
export type { InProcessInvokerOptions } from './embedded/in-process-invoker';
export { FunctionNotFoundError, InProcessInvoker } from './embedded/in-process-invoker';
export type { LocalRuntimeOptions, LocalRuntimeStore } from './embedded/local-runtime';
export { LocalRuntime } from './embedded/local-runtime';
export { type SqliteDriverName, SqliteUnavailableError } from './embedded/sqlite-driver';
export { DatabaseHardLinkedError, DatabaseInUseError } from './embedded/sqlite-owner-lock';
export type { LogLine, RunJournalLimits } from './embedded/sqlite-run-journal';
export type { SqliteStoreOptions } from './embedded/sqlite-store';
export { SqliteStore } from './embedded/sqlite-store';
export type { WakeUpTable } from './embedded/sqlite-wake-ups';
export type { TimerWakerOptions } from './embedded/timer-waker';
export { TimerWaker } from './embedded/timer-waker';
export type { LocalRequestRefusalCode } from './local-error';
export { LOCAL_ERROR_STATUS, LOCAL_REQUEST_REFUSAL_CODES } from './local-error';
// The test runner, its virtual clock and fault injection: exactly what @durable-lambda/local/testing
// exports (the very same classes), so the two entries cannot drift apart.
export * from './testing-entry';
