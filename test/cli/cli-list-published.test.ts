/**
 * `durable list` shows each run's published state (`ctx.publish`, issue 27) in a PUBLISHED column,
 * on one line and cut to 40 characters (`durable show` has it whole); a page where no run published
 * anything has no such column.
 */
import { describe, expect, it } from 'vitest';
import type { RunWire } from '../../packages/api/src/wire';
import { formatRunList } from '../../packages/cli/src/format';

const run = (runId: string, extra: Partial<RunWire> = {}): RunWire => ({
  runId,
  function: 'orders',
  status: 'SUCCEEDED',
  createdAt: '2026-12-03T10:00:00.000Z',
  updatedAt: '2026-12-03T10:00:01.000Z',
  endedAt: '2026-12-03T10:00:01.000Z',
  invocations: 1,
  lostInvocations: 0,
  ...extra,
});

describe('durable list: published state', () => {
  it('shows a compact, truncated published column only when a run of the page published', () => {
    const long = { stage: 'awaiting payment', items: ['lamp', 'chair', 'table', 'rug'] };
    const text = formatRunList({
      runs: [
        run('r-1', { published: { state: { stage: 'shipped' }, at: '2026-12-03T10:00:01.000Z', seq: 2 } }),
        run('r-2', { published: { state: long, at: '2026-12-03T10:00:01.000Z', seq: 1 } }),
        run('r-3'),
      ],
    });
    const [header, ...rows] = text.split('\n');
    expect(header).toMatch(/ENDED\s+PUBLISHED\s+WAITING FOR$/);
    expect(rows[0]).toMatch(/\s{2}\{"stage":"shipped"\}\s+-$/);
    const cut = `${JSON.stringify(long).slice(0, 39)}…`;
    expect(rows[1]).toContain(`  ${cut}  `);
    expect(rows[2]).toMatch(/Z\s+-\s+-$/);

    expect(formatRunList({ runs: [run('r-3')] }).split('\n')[0]).not.toMatch(/PUBLISHED/);
  });
});
