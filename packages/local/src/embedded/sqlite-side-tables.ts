/**
 * The tables beside the runs of a `SqliteStore` (a base it extends, over the flow-control tables):
 * the control API's idempotency records (`SqliteIdempotency`), the signal inbox (`SqliteSignals`)
 * and the emulated tables transactional steps write (`SqliteUserTables`), with their test-side
 * readers, as the `Store` port's methods.
 */
import type {
  EmulatedKeySchema,
  IdempotencyRecord,
  SignalAppend,
  SignalRecord,
  SignalSend,
} from '@durable-lambda/engine';
import type { SqliteDatabase } from './sqlite-driver';
import { SqliteFlowTables } from './sqlite-flow-tables';
import { SqliteIdempotency } from './sqlite-idempotency';
import { type SignalRunAccess, SqliteSignals } from './sqlite-signals';
import { SqliteUserTables } from './sqlite-user-tables';

/** Idempotency records, signals and user tables over a database (attached once it is open and migrated). */
export abstract class SqliteSideTables extends SqliteFlowTables {
  /** The control API's idempotency records (`sqlite-idempotency.ts`), released by `releaseClaims`. */
  protected idempotency!: SqliteIdempotency;
  private signals!: SqliteSignals;
  /** The user's tables transactional steps write (`sqlite-user-tables.ts`), applied by `commit`. */
  protected userTables!: SqliteUserTables;

  /**
   * Serves the methods from `db` (migrated); `now` reads the store's clock, `runs` is how a signal
   * reads and updates its run.
   */
  protected attachSideTables(db: SqliteDatabase, now: () => number, runs: SignalRunAccess): void {
    this.idempotency = new SqliteIdempotency(db, now);
    this.signals = new SqliteSignals(db, runs);
    this.userTables = new SqliteUserTables(db);
  }

  /** Tells the store's listeners that something was written. */
  protected abstract changed(): void;

  async claimIdempotencyKey(
    record: IdempotencyRecord,
  ): Promise<{ claimed: true } | { claimed: false; existing: IdempotencyRecord }> {
    return this.idempotency.claim(record);
  }

  async completeIdempotencyKey(
    key: string,
    response: NonNullable<IdempotencyRecord['response']>,
    claim?: { claimToken: string; expiresAt: number },
  ): Promise<void> {
    this.idempotency.complete(key, response, claim);
  }

  async releaseIdempotencyKey(key: string, claimToken?: string): Promise<void> {
    this.idempotency.release(key, claimToken);
  }

  async appendSignal(runId: string, send: SignalSend): Promise<SignalAppend> {
    const { answer, written } = this.signals.append(runId, send);
    if (written) this.changed();
    return answer;
  }

  async listSignals(runId: string): Promise<SignalRecord[]> {
    return this.signals.list(runId);
  }

  /**
   * Declares a user table that transactional steps (`step(name, fn, { transact: true })`) may
   * write, with its key schema (kept in the file). A write to an undeclared table is refused
   * (`TransactRejectedError`, reason `unknown_table`).
   */
  defineTable(tableName: string, schema: EmulatedKeySchema): this {
    this.userTables.define(tableName, schema);
    return this;
  }

  /** An item of a declared user table by its key, or undefined: what transactional steps wrote. */
  getTableItem(tableName: string, key: Record<string, unknown>): Record<string, unknown> | undefined {
    return this.userTables.get(tableName, key);
  }

  /** Every item of a declared user table, in key order. */
  scanTable(tableName: string): Record<string, unknown>[] {
    return this.userTables.scan(tableName);
  }
}
