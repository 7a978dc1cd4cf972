/**
 * The SQLite store's function limits table came with schema version 6: a file written at version 5
 * (with runs in it) gets the table when it is opened, keeps its runs, and keeps limits across a
 * reopen.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '@durable-lambda/local';
import { afterAll, describe, expect, it } from 'vitest';
import { executionOp, runRecord, T0 } from '../../store-conformance/fixtures';
import { rawDatabase } from './raw-sqlite';

const dir = mkdtempSync(join(tmpdir(), 'durable-sqlite-limits-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('SqliteStore function limits (schema version 6)', () => {
  it('gives a file of schema version 5 the limits table when it is opened, its runs kept', async () => {
    const path = join(dir, 'v5.sqlite');
    const first = new SqliteStore({ path, clock: { now: () => T0 } });
    await first.createRun(runRecord('r1', { functionName: 'jobs' }), executionOp());
    first.close();
    // Back to version 5: no limits table.
    const db = rawDatabase(path);
    db.exec('DROP TABLE function_limits; DELETE FROM schema_version WHERE version >= 6');
    db.close();

    const reopened = new SqliteStore({ path, clock: { now: () => T0 } });
    expect((await reopened.getRun('r1'))?.functionName).toBe('jobs');
    expect(await reopened.listFunctionLimits()).toEqual([]);
    await reopened.putFunctionLimits({ functionName: 'jobs', limits: { concurrency: { limit: 3 } }, recordedAt: T0 });
    reopened.close();
    const again = new SqliteStore({ path, clock: { now: () => T0 } });
    expect(await again.getFunctionLimits('jobs')).toEqual({
      functionName: 'jobs',
      limits: { concurrency: { limit: 3 } },
      recordedAt: T0,
    });
    again.close();
  });
});
