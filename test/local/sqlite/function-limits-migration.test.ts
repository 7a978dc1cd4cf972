/**
 * The SQLite store's flow-control registers came with schema version 6 and its function limits
 * table with version 7: a file written at version 5 (with runs in it) gets both when it is opened,
 * keeps its runs, and keeps limits and registers across a reopen.
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

describe('SqliteStore flow-control tables (schema versions 6 and 7)', () => {
  it('gives a file of schema version 5 the registers and limits tables when it is opened, its runs kept', async () => {
    const path = join(dir, 'v5.sqlite');
    const first = new SqliteStore({ path, clock: { now: () => T0 } });
    await first.createRun(runRecord('r1', { functionName: 'jobs' }), executionOp());
    first.close();
    // Back to version 5: no limits table.
    const db = rawDatabase(path);
    db.exec('DROP TABLE function_limits; DROP TABLE flow_gates; DELETE FROM schema_version WHERE version >= 6');
    db.close();

    const reopened = new SqliteStore({ path, clock: { now: () => T0 } });
    expect((await reopened.getRun('r1'))?.functionName).toBe('jobs');
    expect(await reopened.listFunctionLimits()).toEqual([]);
    await reopened.putFunctionLimits({ functionName: 'jobs', limits: { concurrency: { limit: 3 } }, recordedAt: T0 });
    const gate = { functionName: 'jobs', gate: 'throttle' as const, key: 'k' };
    expect(await reopened.writeGate(gate, { tat: T0 }, 0, T0 + 60_000)).toBe(true);
    reopened.close();
    const again = new SqliteStore({ path, clock: { now: () => T0 } });
    expect(await again.getFunctionLimits('jobs')).toEqual({
      functionName: 'jobs',
      limits: { concurrency: { limit: 3 } },
      recordedAt: T0,
    });
    expect(await again.readGate(gate)).toEqual({ version: 1, value: { tat: T0 } });
    again.close();
  });
});
