/**
 * Each function's flow-control limits in a `SqliteStore`'s database (see `noteFunctionLimits`):
 * table `function_limits`, one row per function (its bare name), the record as JSON.
 */
import type { FunctionLimitsRecord } from '@durable-lambda/engine';
import type { SqliteDatabase, SqliteStatement } from './sqlite-driver';

/** The schema of the limits table (a migration of `sqlite-schema.ts`, version 6). */
export const FUNCTION_LIMITS_SCHEMA = `
  CREATE TABLE IF NOT EXISTS function_limits (
    function_name TEXT PRIMARY KEY NOT NULL,
    record TEXT NOT NULL
  );
`;

/** The `Store` port's limits methods over the `function_limits` table. */
export class SqliteFunctionLimits {
  private readonly sql: {
    put: SqliteStatement<[string, string]>;
    get: SqliteStatement<[string], { record: string }>;
    all: SqliteStatement<[], { record: string }>;
  };

  constructor(db: SqliteDatabase) {
    this.sql = {
      put: db.prepare(
        'INSERT INTO function_limits (function_name, record) VALUES (?, ?) ON CONFLICT (function_name) DO UPDATE SET record = excluded.record',
      ),
      get: db.prepare('SELECT record FROM function_limits WHERE function_name = ?'),
      all: db.prepare('SELECT record FROM function_limits ORDER BY function_name'),
    };
  }

  /** `Store.putFunctionLimits`: the row replaced. */
  put(record: FunctionLimitsRecord): void {
    this.sql.put.run(record.functionName, JSON.stringify(record));
  }

  /** `Store.getFunctionLimits`. */
  get(functionName: string): FunctionLimitsRecord | undefined {
    const row = this.sql.get.get(functionName);
    return row && (JSON.parse(row.record) as FunctionLimitsRecord);
  }

  /** `Store.listFunctionLimits`, by name. */
  list(): FunctionLimitsRecord[] {
    return this.sql.all.all().map((row) => JSON.parse(row.record) as FunctionLimitsRecord);
  }
}
