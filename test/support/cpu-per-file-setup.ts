/**
 * A vitest setup file, added by vitest.config.mts only when DURABLE_TEST_CPU_LOG names a file: appends
 * one JSON line per test file with the CPU seconds its worker spent on it, its own and that of the
 * child processes it waited for (Chromium, CLI processes, tsc, npm), from /proc/self/stat. Wall
 * times under load say little about what a file costs; this is what `npm test`'s wall time is made of
 * on a machine whose cores are busy throughout. DynamoDB Local (one per run, started detached) is
 * logged apart, as `jvm`: the JVM's CPU seconds while the file ran, which with more than one worker
 * includes what the other workers' files asked of it (run with DURABLE_TEST_WORKERS=1 to attribute it).
 */
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { afterAll, expect, inject } from 'vitest';
import { type ProvidedDynamoDbLocal, readInstance } from './dynamodb-local';

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

/** Fields 3.. of /proc/<pid>/stat (index 0 is the state), for a process named `java` only. */
function javaStatFields(pid: string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    if (!stat.includes(' (java) ')) return undefined;
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** The CPU seconds of the test run's DynamoDB Local JVM so far (0 before it starts, or off Linux). */
function jvmCpu(): number {
  const provided = inject('dynamoDbLocal') as ProvidedDynamoDbLocal | undefined;
  const pgid = provided?.stateDir ? readInstance(provided.stateDir)?.pgid : undefined;
  if (pgid === undefined) return 0;
  try {
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      const fields = javaStatFields(pid);
      // Field 5 is the process group: the JVM's is its watchdog shell's.
      if (fields && Number(fields[2]) === pgid) return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
    }
  } catch {
    // no /proc
  }
  return 0;
}

const log = process.env.DURABLE_TEST_CPU_LOG;
const started = cpu();
const jvmStarted = log ? jvmCpu() : 0;
afterAll(() => {
  if (!log) return;
  const ended = cpu();
  const file = expect.getState().testPath ?? 'unknown';
  const line = {
    file,
    self: Number((ended.self - started.self).toFixed(2)),
    children: Number((ended.children - started.children).toFixed(2)),
    jvm: Number((jvmCpu() - jvmStarted).toFixed(2)),
    pid: process.pid,
  };
  appendFileSync(log, `${JSON.stringify(line)}\n`);
});
