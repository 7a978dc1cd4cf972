/**
 * `@durable-lambda/local/testing`: the test runner with its virtual clock and fault injection,
 * without the embedded runtime. Nothing reachable from here loads better-sqlite3 (the SQLite store
 * of the dev server), so a project that only tests its handlers installs no native module:
 *
 * ```ts
 * import { LocalDurableTestRunner } from '@durable-lambda/local/testing';
 * ```
 *
 * The main entry `@durable-lambda/local` exports the same classes (the very same ones: both entries
 * share their code), plus the embedded runtime and the dev server.
 */

export * from './cloud/index';
export * from './faults/index';
export type { LocalErrorCode } from './local-error';
export { LOCAL_ERROR_CODES, LocalError } from './local-error';
export * from './testing/index';
export { VirtualClock } from './virtual-clock';
