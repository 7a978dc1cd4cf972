/**
 * A vitest setup file, added by vitest.config.mts only when DURABLE_TEST_CPU_LOG names a file: appends
 * one JSON line per test file with the CPU seconds its worker spent on it, its own and that of the
 * child processes it waited for (Chromium, CLI processes, tsc, npm), from /proc/self/stat. Wall
 * times under load say little about what a file costs; this is what `npm test`'s wall time is made of
 * on a machine whose cores are busy throughout. DynamoDB Local (one per run, started detached) is
 * not in it.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll, expect } from 'vitest';

const ticksPerSecond = 100;

/** This process's own and its reaped children's CPU seconds (Linux only; zeros elsewhere). */
function cpu(): { self: number; children: number } {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    // Fields 14-17 of proc(5): utime, stime, cutime, cstime (index 0 here is field 3).
    const [utime = 0, stime = 0, cutime = 0, cstime = 0] = fields.slice(11, 15);
    return { self: (utime + stime) / ticksPerSecond, children: (cutime + cstime) / ticksPerSecond };
  } catch {
    return { self: 0, children: 0 };
  }
}

const log = process.env.DURABLE_TEST_CPU_LOG;
const started = cpu();
afterAll(() => {
  if (!log) return;
  const ended = cpu();
  const file = expect.getState().testPath ?? 'unknown';
  const line = {
    file,
    self: Number((ended.self - started.self).toFixed(2)),
    children: Number((ended.children - started.children).toFixed(2)),
    pid: process.pid,
  };
  appendFileSync(log, `${JSON.stringify(line)}\n`);
});
