/** What a `SqliteStore` is opened with: its file, its clock, its journal limits, its turn budget. */
import type { RunJournalLimits } from './sqlite-run-journal';

/** Options of a `SqliteStore`. */
export interface SqliteStoreOptions {
  /** The database file, created if missing; `':memory:'` for a private in-memory database. */
  path: string;
  /** The store's notion of now (retention, `updatedAt`, idempotency expiry). Default: system time. */
  clock?: { now(): number };
  /** Limits of each run's journal (log lines, invocations); see `SqliteStore.appendLog`. */
  journal?: RunJournalLimits;
  /**
   * Event-loop time, ms, that invocations' commits (their checkpoints and their ends) and replays
   * (see `SqliteStore.takeTurn`) may take back to back, with what they set off: past it, each
   * further one waits for a later turn of the event loop (after Node has polled I/O), in the order
   * they came. A burst of them (a restart taking up a thousand runs) then holds an HTTP request up
   * for about this long, instead of until the burst ends. Other writes (starts, leases, callbacks,
   * operator actions) never wait. Default 8; `Infinity`: nothing waits.
   */
  turnBudgetMs?: number;
}
