/**
 * Flow control's registers in a `SqliteStore`'s database (`throttle`, `rateLimit`, `debounce`):
 * table `flow_gates`, one row per (function, gate, key), its version and JSON value. A write is
 * one conditional statement on the version, so it is a compare-and-set like DynamoDB's.
 */
import type { GateKey, GateRecord } from '@durable-lambda/engine';
import type { SqliteDatabase, SqliteStatement } from './sqlite-driver';
import { immediately } from './sqlite-run-statements';

/** The schema of the registers (a migration of `sqlite-schema.ts`). */
export const GATE_SCHEMA = `
  CREATE TABLE IF NOT EXISTS flow_gates (
    function_name TEXT NOT NULL,
    gate TEXT NOT NULL,
    gate_key TEXT NOT NULL,
    version INTEGER NOT NULL,
    value TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (function_name, gate, gate_key)
  );
`;

type Key = [string, string, string];

/** The `Store` port's gate methods over `flow_gates`. */
export class SqliteGates {
  private readonly sql: {
    read: SqliteStatement<Key, { version: number; value: string; expires_at: number }>;
    put: SqliteStatement<[...Key, number, string, number]>;
  };

  constructor(
    private readonly db: SqliteDatabase,
    private readonly now: () => number,
  ) {
    this.sql = {
      read: db.prepare(
        'SELECT version, value, expires_at FROM flow_gates WHERE function_name = ? AND gate = ? AND gate_key = ?',
      ),
      put: db.prepare(
        `INSERT INTO flow_gates (function_name, gate, gate_key, version, value, expires_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (function_name, gate, gate_key) DO UPDATE SET
           version = excluded.version, value = excluded.value, expires_at = excluded.expires_at`,
      ),
    };
  }

  /** `Store.readGate`: an expired register reads as absent. */
  read(gate: GateKey): GateRecord | undefined {
    const row = this.sql.read.get(...keyOf(gate));
    if (!row || row.expires_at <= this.now()) return undefined;
    return { version: row.version, value: JSON.parse(row.value) as GateRecord['value'] };
  }

  /** `Store.writeGate`: one immediate transaction comparing the version. */
  write(gate: GateKey, value: GateRecord['value'], expected: number, expiresAt: number): boolean {
    return immediately(this.db, () => {
      if ((this.read(gate)?.version ?? 0) !== expected) return false;
      this.sql.put.run(...keyOf(gate), expected + 1, JSON.stringify(value), expiresAt);
      return true;
    });
  }
}

function keyOf(gate: GateKey): Key {
  return [gate.functionName, gate.gate, gate.key];
}
