import { describe, expect, it } from 'vitest';
import type { RunWire } from '../../packages/api/src/wire';
import { formatRun } from '../../packages/cli/src/format';

const NOW = Date.UTC(2026, 11, 3, 12, 0, 0);
const run = (nextWakeAt: string): RunWire => ({
  runId: 'r1',
  function: 'orders',
  status: 'RUNNING',
  createdAt: new Date(NOW - 60_000).toISOString(),
  updatedAt: new Date(NOW - 30_000).toISOString(),
  nextWakeAt,
  invocations: 1,
  lostInvocations: 0,
});
const wakeRow = (text: string) => text.split('\n').find((line) => line.startsWith('next wake'));

describe('durable show: the next wake of a running run', () => {
  it('prints a wake-up still ahead as its time', () => {
    const ahead = new Date(NOW + 3_600_000).toISOString();
    expect(wakeRow(formatRun(run(ahead), NOW))).toBe(`next wake    ${ahead}`);
  });

  it('prints a wake time already passed as due now, never as a time in the past', () => {
    const passed = new Date(NOW - 5_000).toISOString();
    expect(wakeRow(formatRun(run(passed), NOW))).toBe(`next wake    now (due since ${passed})`);
  });
});
