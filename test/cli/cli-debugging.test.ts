/**
 * The `durable` CLI (its `runCli`, in this process) for debugging, against a dev server: `wake` ends a
 * durable wait now (and refuses in one line with the code when nothing waits on time),
 * `history` prints each error's stack trace, the log lines of each step attempt and the run's
 * invocations, `list` says what each running run waits for and `--search` finds a run by key.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DevServer, startDevServer } from '@durable-lambda/local';
import { withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliExit, runDurableCli } from '../support/durable-cli';

const dir = mkdtempSync(join(tmpdir(), 'durable-cli-debugging-'));
const SLOW = 60_000;

function durable(args: string[]): Promise<CliExit> {
  return runDurableCli([...args, '--url', server.url]);
}

const quiet = { logSink: () => {}, inProcessWaitMs: 0 };
const sleeper = withDurableExecution(async (_event: unknown, ctx) => {
  await ctx.step('prepare', async () => 'ready');
  await ctx.wait('one-day', { days: 1 });
  return 'awake';
}, quiet);
const failing = withDurableExecution(async (_event: unknown, ctx) => {
  await ctx.step(
    'load',
    async (step) => {
      step.logger.info('loading the report', { month: '2025-01' });
      if (step.attempt === 1) throw new Error('timeout talking to the warehouse');
      step.logger.warn('slow warehouse');
      throw new TypeError('cannot read rows of undefined');
    },
    { retry: { maxAttempts: 2, initialMs: 0 } },
  );
}, quiet);
const approver = withDurableExecution(async (_event: unknown, ctx) => {
  const [promise] = await ctx.createCallback('approval');
  return promise;
}, quiet);

let server: DevServer;
beforeAll(async () => {
  server = await startDevServer({
    functions: { sleeper, failing, approver },
    port: 0,
    db: join(dir, 'dev.sqlite'),
    log: () => {},
  });
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function until<T>(probe: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const status = async (runId: string) =>
  ((await (await fetch(`${server.url}/v1/runs/${runId}`)).json()) as { status: string }).status;

describe('durable CLI for debugging', () => {
  it(
    'wake ends a one-day wait now, and list says what runs wait for and finds one by its key',
    async () => {
      const key = `nightly-${randomUUID().slice(0, 8)}`;
      const started = JSON.parse((await durable(['start', 'sleeper', '--run-key', key, '--json'])).stdout);
      await until(async () => {
        const listed = await durable(['list', '--search', key]);
        return /wait "one-day" until \d{4}-/.test(listed.stdout) && listed;
      });
      const listed = await durable(['list', '--search', key.slice(0, 12)]);
      expect(listed.code).toBe(0);
      const rows = listed.stdout.trim().split('\n');
      expect(rows[0]).toMatch(/^RUN ID\s+FUNCTION\s+STATUS\s+CREATED\s+ENDED\s+WAITING FOR$/);
      expect(rows.slice(1).map((row) => row.split(/\s+/)[0])).toEqual([started.runId]);

      const woken = await durable(['wake', started.runId]);
      expect(woken.stderr).toBe('');
      expect(woken.code).toBe(0);
      expect(woken.stdout).toMatch(
        new RegExp(`^Run ${started.runId}: woken\\.\\n  ended wait "one-day" early \\(it was due \\d{4}-`),
      );
      await until(async () => (await status(started.runId)) === 'SUCCEEDED');

      const again = await durable(['wake', started.runId]);
      expect(again.code).toBe(1);
      expect(again.stderr.trim()).toMatch(
        /^error: run \S+ is SUCCEEDED: it cannot be woken \[run_state_conflict, HTTP 409\]$/,
      );
    },
    SLOW,
  );

  it(
    'wake refuses a run that waits only for a callback, naming it, in one line with the code',
    async () => {
      const started = JSON.parse((await durable(['start', 'approver', '--json'])).stdout);
      await until(async () => (await durable(['list'])).stdout.includes('callback "approval"'));
      const refused = await durable(['wake', started.runId]);
      expect(refused.code).toBe(1);
      expect(refused.stderr.trim().split('\n')).toEqual([
        `error: run ${started.runId} waits on nothing time can end: it waits for callback "approval" (complete it through the control API) [nothing_to_wake, HTTP 409]`,
      ]);
    },
    SLOW,
  );

  it(
    "history prints each error's stack trace, each attempt's log lines and the invocations",
    async () => {
      const started = JSON.parse((await durable(['start', 'failing', '--json'])).stdout);
      await until(async () => (await status(started.runId)) === 'FAILED');
      const history = await durable(['history', started.runId]);
      expect(history.code).toBe(0);
      const out = history.stdout;
      expect(out).toMatch(/^ID\s+TYPE\s+NAME\s+STATUS\s+ATTEMPT\s+STARTED\s+ENDED\s+TOOK\s+DETAIL$/m);
      expect(out).toMatch(/^Invocations:\n {2}#1 \S+ → \S+ \(\d+(\.\d)? m?s\)$/m);
      expect(out).toMatch(
        /^Errors:\n {2}\d+ "load": step_failed: cannot read rows of undefined \(TypeError\)\n {6}TypeError: cannot read rows of undefined\n {6}at .*cli-debugging\.test\.ts:\d+/m,
      );
      expect(out).toMatch(
        /^Logs:\n {2}\d+ "load"\n {4}\S+ #1 INFO {2}loading the report \{"month":"2025-01"\}\n {4}\S+ #2 INFO {2}loading the report \{"month":"2025-01"\}\n {4}\S+ #2 WARN {2}slow warehouse$/m,
      );

      // `logs`: the log lines alone, oldest first, each naming the step and attempt that wrote it.
      const logs = await durable(['logs', started.runId]);
      expect(logs.code).toBe(0);
      expect(logs.stdout).toMatch(
        /^\S+ #1 INFO {2}loading the report \{"month":"2025-01"\} {2}\d+ "load"\n\S+ #2 INFO {2}loading the report \{"month":"2025-01"\} {2}\d+ "load"\n\S+ #2 WARN {2}slow warehouse {2}\d+ "load"\n$/,
      );
      const json = JSON.parse((await durable(['logs', started.runId, '--json'])).stdout);
      expect(json.logs.map((l: { attempt?: number; level: string }) => `${l.attempt}${l.level}`)).toEqual([
        '1info',
        '2info',
        '2warn',
      ]);
      expect(new Set(json.logs.map((l: { operationId?: string }) => l.operationId)).size).toBe(1);
    },
    SLOW,
  );
});
