import type { IdempotencyRecord } from '@durable-lambda/engine';
import type { SqliteDatabase, SqliteStatement } from './sqlite-driver';
import { immediately } from './sqlite-run-statements';

/**
 * The control API's idempotency records in a `SqliteStore`'s database (table `idempotency`), with
 * the `Store` port's semantics: a claim wins unless a live record holds the key, and a claim
 * repeated with its own token (its first answer lost) is the claimer's again.
 */
export class SqliteIdempotency {
  private readonly sql: {
    get: SqliteStatement<[string], { record: string; expires_at: number }>;
    put: SqliteStatement<[string, number, string]>;
    delete: SqliteStatement<[string]>;
    inProgress: SqliteStatement<[], { key: string; record: string }>;
  };

  constructor(
    private readonly db: SqliteDatabase,
    private readonly now: () => number,
  ) {
    this.sql = {
      get: db.prepare('SELECT record, expires_at FROM idempotency WHERE key = ?'),
      put: db.prepare(
        `INSERT INTO idempotency (key, expires_at, record) VALUES (?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET expires_at = excluded.expires_at, record = excluded.record`,
      ),
      delete: db.prepare('DELETE FROM idempotency WHERE key = ?'),
      inProgress: db.prepare(
        `SELECT key, record FROM idempotency WHERE json_extract(record, '$.state') = 'IN_PROGRESS'`,
      ),
    };
  }

  /** `Store.claimIdempotencyKey`. */
  claim(record: IdempotencyRecord): { claimed: true } | { claimed: false; existing: IdempotencyRecord } {
    return immediately(this.db, () => {
      const row = this.sql.get.get(record.key);
      if (row && row.expires_at > this.now()) {
        const existing = JSON.parse(row.record) as IdempotencyRecord;
        // The same claim again (its first answer was lost): it is the claimer's own.
        if (record.claimToken !== undefined && existing.claimToken === record.claimToken) {
          return { claimed: true as const };
        }
        return { claimed: false as const, existing };
      }
      this.sql.put.run(record.key, record.expiresAt, JSON.stringify(record));
      return { claimed: true as const };
    });
  }

  /** `Store.completeIdempotencyKey`. */
  complete(
    key: string,
    response: NonNullable<IdempotencyRecord['response']>,
    claim?: { claimToken: string; expiresAt: number },
  ): void {
    immediately(this.db, () => {
      const row = this.sql.get.get(key);
      if (!row) return;
      const stored = JSON.parse(row.record) as IdempotencyRecord;
      if (claim && stored.claimToken !== claim.claimToken) return;
      const record: IdempotencyRecord = {
        ...stored,
        state: 'COMPLETED',
        response,
        ...(claim ? { expiresAt: claim.expiresAt } : {}),
      };
      this.sql.put.run(key, record.expiresAt, JSON.stringify(record));
    });
  }

  /** `Store.releaseIdempotencyKey`. */
  release(key: string, claimToken?: string): void {
    immediately(this.db, () => {
      const row = this.sql.get.get(key);
      if (!row) return;
      if (claimToken !== undefined && (JSON.parse(row.record) as IdempotencyRecord).claimToken !== claimToken) return;
      this.sql.delete.run(key);
    });
  }

  /**
   * Deletes every record still in progress (claimed, its answer never stored) and returns their
   * keys: for a runtime starting on a file only it may serve, where each is a dead process's.
   */
  releaseInProgress(): string[] {
    return immediately(this.db, () => {
      const keys: string[] = [];
      for (const row of this.sql.inProgress.all()) {
        if ((JSON.parse(row.record) as IdempotencyRecord).state !== 'IN_PROGRESS') continue;
        this.sql.delete.run(row.key);
        keys.push(row.key);
      }
      return keys;
    });
  }
}
