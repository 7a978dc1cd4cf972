import { createControlApi, toNodeListener } from '@durable-lambda/api';
import { NonRetriableError } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDev } from '../../packages/cli/src/dev';
import { entryPath } from '../../packages/cli/src/dev-watch';
import { deadUrl, LiveBackend, listen } from '../api/support';
import { runDurableCli, spawnDurableCli } from '../support/durable-cli';

/**
 * `durable <args>` in this process (runCli, what the binary calls); the tests at the end run the
 * real binary, for what only the process shows (its exit status, its environment).
 */
const durable = runDurableCli;

const backend = new LiveBackend();
let healthy = false;
backend.register('greet', async (event: { name: string }) => `hello ${event.name}`);
backend.register('approve', async (_e, ctx) => {
  const [promise] = await ctx.createCallback('approval');
  try {
    return { approved: JSON.parse((await promise) as string) };
  } catch (error) {
    return { rejected: (error as Error).message, code: (error as { code?: string }).code };
  }
});
backend.register('flaky', async (_e, ctx) =>
  ctx.step('call', async () => {
    if (!healthy) throw new NonRetriableError('service down');
    return 'recovered';
  }),
);

let url = '';
let close: () => Promise<void> = async () => {};
beforeAll(async () => {
  const api = createControlApi({ engine: backend.engine, functions: [...backend.handlers.keys()] });
  const server = await listen(toNodeListener(api));
  url = server.url;
  close = server.close;
});
afterAll(() => close());

const api = (...args: string[]) => durable([...args, '--url', url]);

describe('durable CLI (its commands against a real API server)', { timeout: 120_000 }, () => {
  it('start --json prints the run; show, list and history print it for humans and for scripts', async () => {
    const started = await api('start', 'greet', '--input', '{"name":"Ada"}', '--json');
    expect(started.stderr).toBe('');
    expect(started.code).toBe(0);
    const run = JSON.parse(started.stdout);
    expect(run).toMatchObject({ function: 'greet', input: { name: 'Ada' } });
    await backend.waitForStatus(run.runId, 'SUCCEEDED');

    const shown = await api('show', run.runId);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`^run\\s+${run.runId}$`, 'm'));
    expect(shown.stdout).toMatch(/^status\s+SUCCEEDED$/m);
    expect(shown.stdout).toMatch(/^result\s+"hello Ada"$/m);
    expect(JSON.parse((await api('show', run.runId, '--json')).stdout)).toMatchObject({
      runId: run.runId,
      result: 'hello Ada',
    });

    const listed = await api('list', '--function', 'greet', '--status', 'SUCCEEDED');
    expect(listed.code).toBe(0);
    expect(listed.stdout.split('\n')[0]).toMatch(/^RUN ID\s+FUNCTION\s+STATUS\s+CREATED\s+ENDED\s+WAITING FOR$/);
    expect(listed.stdout).toMatch(new RegExp(`^${run.runId}\\s+greet\\s+SUCCEEDED`, 'm'));
    const listJson = JSON.parse((await api('list', '--json', '--limit', '1')).stdout);
    expect(listJson.runs).toHaveLength(1);

    const history = await api('history', run.runId);
    expect(history.code).toBe(0);
    expect(history.stdout).toMatch(/^ID\s+TYPE\s+NAME\s+STATUS/);
    expect(history.stdout).toMatch(/^0\s+EXECUTION\s+-\s+SUCCEEDED/m);
    expect(JSON.parse((await api('history', run.runId, '--json')).stdout)).toMatchObject({
      runId: run.runId,
      operations: [{ id: '0', type: 'EXECUTION' }],
    });
  });

  it('start with --run-key finds the existing run the second time', async () => {
    const first = await api('start', 'greet', '--input', '{"name":"Bo"}', '--run-key', 'cli-key');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^Started run (\S+)/);
    const again = await api('start', 'greet', '--input', '{"name":"Bo"}', '--run-key', 'cli-key');
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^Found existing run (\S+)/);
    expect(again.stdout.split('\n')[0]?.split(' ').at(-1)).toBe(first.stdout.split('\n')[0]?.split(' ').at(-1));
  });

  it('callback succeed and fail complete a waiting run', async () => {
    const run = JSON.parse((await api('start', 'approve', '--json')).stdout);
    const callbackId = await backend.waitForCallback(run.runId);
    const history = await api('history', run.runId);
    expect(history.stdout).toContain(`callbackId=${callbackId}`);
    const beat = await api('callback', 'heartbeat', callbackId);
    expect(beat).toMatchObject({ code: 0, stdout: `Callback ${callbackId}: heartbeat sent.\n` });
    const done = await api('callback', 'succeed', callbackId, '--result', '{"by":"ops"}');
    expect(done).toMatchObject({ code: 0, stdout: `Callback ${callbackId} succeeded.\n` });
    await backend.waitForStatus(run.runId, 'SUCCEEDED');
    expect((await backend.engine.getRun(run.runId))?.result).toBe('{"approved":{"by":"ops"}}');

    const other = JSON.parse((await api('start', 'approve', '--json')).stdout);
    const otherId = await backend.waitForCallback(other.runId);
    const failed = await api('callback', 'fail', otherId, '--message', 'no budget', '--code', 'denied', '--json');
    expect(failed.code).toBe(0);
    expect(JSON.parse(failed.stdout)).toEqual({ callbackId: otherId, outcome: 'failed' });
    await backend.waitForStatus(other.runId, 'SUCCEEDED');
    expect((await backend.engine.getRun(other.runId))?.result).toBe('{"rejected":"no budget","code":"denied"}');

    const again = await api('callback', 'succeed', callbackId);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('callback_already_completed');
  });

  it('cancel ends a waiting run; cancelling it again (a new request) is refused run_state_conflict (exit 1)', async () => {
    const run = JSON.parse((await api('start', 'approve', '--json')).stdout);
    await backend.waitForCallback(run.runId);
    const cancelled = await api('cancel', run.runId);
    expect(cancelled).toMatchObject({ code: 0, stdout: `Run ${run.runId} is now CANCELLED.\n` });
    const again = await api('cancel', run.runId);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr).toMatch(/^error: .* \[run_state_conflict, HTTP 409\]/);
    // The refused repeat recorded nothing: the run's history holds the one cancel that ended it.
    expect((await backend.engine.getRun(run.runId))?.actions).toEqual([
      expect.objectContaining({ action: 'cancel', fromStatus: 'RUNNING' }),
    ]);
  });

  it('retry runs a failed run again', async () => {
    const run = JSON.parse((await api('start', 'flaky', '--json')).stdout);
    await backend.waitForStatus(run.runId, 'FAILED');
    healthy = true;
    const retried = await api('retry', run.runId, '--json');
    expect(retried.code).toBe(0);
    expect(JSON.parse(retried.stdout)).toMatchObject({ runId: run.runId, status: 'RUNNING' });
    await backend.waitForStatus(run.runId, 'SUCCEEDED');
  });

  it('exits 1 with the code on stderr for API errors', async () => {
    const missing = await api('show', 'rnope');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('[run_not_found, HTTP 404]');
    const unknown = await api('start', 'nope');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('function_not_found');
  });

  it('exits 2 for usage errors, before calling the API', async () => {
    const dead = await deadUrl();
    const cases: Array<[string[], string]> = [
      [[], 'a command is required'],
      [['frobnicate'], 'unknown command "frobnicate"'],
      [['show'], '"show" takes <runId>'],
      [['show', 'a', 'b'], '(extra: b)'],
      [['start', 'greet', '--input', '{bad'], '--input: not valid JSON'],
      [['list', '--bogus'], "Unknown option '--bogus'"],
      [['list', '--input', '{}'], 'option --input does not apply to "list"'],
      [['list', '--limit', 'many'], '--limit: must be a whole number'],
      [['list', '--status', 'DONE'], '--status: must be one of'],
      [['callback', 'explode', 'id'], 'the action must be succeed, fail or heartbeat'],
      [['callback', 'fail', 'id'], '--message is required'],
      [['callback', 'succeed', 'id', '--message', 'm'], '--message does not apply'],
    ];
    const results = await Promise.all(cases.map(([args]) => durable([...args, '--url', dead])));
    results.forEach((result, i) => {
      const [args, message] = cases[i]!;
      expect(result.code, JSON.stringify(args)).toBe(2);
      expect(result.stderr, JSON.stringify(args)).toContain(message);
      expect(result.stderr, JSON.stringify(args)).toContain('durable help');
    });
    const badUrl = await durable(['show', 'r1', '--url', 'ftp://x']);
    expect(badUrl).toMatchObject({ code: 2, stderr: expect.stringContaining('--url: must be http(s)') });
  });

  it('prints the usage with help (exit 0)', async () => {
    for (const args of [['help'], ['--help'], ['list', '-h']]) {
      const result = await durable(args);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^Usage: durable <command>/);
      expect(result.stdout).toContain(
        'Exit codes: 0 ok, 1 API error, 2 usage error, 3 cannot reach the API, 4 a replay diverged.',
      );
    }
  });

  it('exits 3 when the API cannot be reached', async () => {
    const result = await durable(['list', '--url', await deadUrl()]);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^error: cannot reach http:\/\/127\.0\.0\.1:\d+\/v1\/runs/);
  });
});

describe('the real durable binary (a child process)', { timeout: 120_000 }, () => {
  it('exits with the command’s code and prints what it printed: 0 help, 1 API error, 2 usage, 3 unreachable', async () => {
    const dead = await deadUrl();
    const [help, apiError, usage, unreachable] = await Promise.all([
      spawnDurableCli(['help']),
      spawnDurableCli(['show', 'rnope', '--url', url]),
      spawnDurableCli(['frobnicate', '--url', dead]),
      spawnDurableCli(['list', '--url', dead]),
    ]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: durable <command>/);
    expect(apiError).toMatchObject({ code: 1, stderr: expect.stringContaining('[run_not_found, HTTP 404]') });
    expect(usage).toMatchObject({ code: 2, stderr: expect.stringContaining('unknown command "frobnicate"') });
    expect(unreachable.code).toBe(3);
    expect(unreachable.stderr).toMatch(/^error: cannot reach http:\/\/127\.0\.0\.1:\d+\/v1\/runs/);
  });

  it('takes the URL from DURABLE_API_URL when --url is not given', async () => {
    const result = await spawnDurableCli(['list', '--json'], { DURABLE_API_URL: url });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).runs.length).toBeGreaterThan(0);
  });
});

describe('durable dev', () => {
  const line = (args: string[], options: Record<string, string> = {}) => ({ command: 'dev', args, options });
  const io = () => {
    const out: string[] = [];
    const err: string[] = [];
    return { out, err, io: { out: (t: string) => void out.push(t), err: (t: string) => void err.push(t), env: {} } };
  };

  it('calls startDevServer of @durable-lambda/local with the options, and closes it when stopped', async () => {
    const calls: unknown[] = [];
    let closed = false;
    const local = {
      startDevServer: async (options: unknown) => {
        calls.push(options);
        return {
          url: 'http://localhost:4000',
          close: async () => {
            closed = true;
          },
        };
      },
    };
    const { out, io: cli } = io();
    const code = await runDev(
      line(['./handlers.ts'], { port: '4000', host: '0.0.0.0', db: '.durable.db' }),
      cli,
      async () => local,
      () => ({ requested: Promise.resolve('SIGINT' as const), dispose() {} }),
    );
    expect(code).toBe(0);
    expect(calls).toEqual([{ entries: ['./handlers.ts'], port: 4000, host: '0.0.0.0', db: '.durable.db' }]);
    // The server prints its URL itself; the command adds how to stop it, and says so when it stops.
    expect(out.join('\n')).not.toContain('http://localhost:4000');
    expect(out[0]).toMatch(/^Press Ctrl-C to stop/);
    expect(out[1]).toMatch(/^SIGINT: stopping the dev server/);
    expect(closed).toBe(true);
  });

  it('prints ready-to-paste commands for the served functions, with --url off the default port', async () => {
    const local = {
      startDevServer: async () => ({
        url: 'http://127.0.0.1:4000',
        functions: ['approve', 'ship'],
        samples: new Map([['approve', [{ name: 'one', input: { doc: "it's" } }]]]),
        close: async () => {},
      }),
    };
    const { out, io: cli } = io();
    await runDev(
      line(['approve=./a.ts#handler', 'ship=./b.ts']),
      cli,
      async () => local,
      () => ({ requested: Promise.resolve('SIGINT' as const), dispose() {} }),
    );
    expect(out.slice(0, 3)).toEqual([
      'From another terminal (dashboard: http://127.0.0.1:4000/):',
      `  npx durable --url http://127.0.0.1:4000 start approve --input '{"doc":"it'\\''s"}'`,
      '  npx durable --url http://127.0.0.1:4000 list --status RUNNING',
    ]);
    expect(out.join('\n')).toMatch(/npx durable --url http:\/\/127\.0\.0\.1:4000 logs <runId>/);
    expect(out.find((l) => l.startsWith('Press Ctrl-C'))).toBeDefined();
    // --watch watches the folder of each entry's module, whatever name and export it gives.
    expect(entryPath('approve=./src/a.ts#handler')).toBe('./src/a.ts');
    expect(entryPath('./x=y/a.ts')).toBe('./x=y/a.ts');
  });

  it('exits 2 with a clear message when @durable-lambda/local or its startDevServer is missing', async () => {
    const missing = io();
    expect(
      await runDev(line([]), missing.io, async () => {
        throw new Error("Cannot find package '@durable-lambda/local'");
      }),
    ).toBe(2);
    expect(missing.err[0]).toContain('durable dev needs the package @durable-lambda/local');
    const old = io();
    expect(await runDev(line([]), old.io, async () => ({}))).toBe(2);
    expect(old.err[0]).toContain('no startDevServer export');
  });

  it('refuses a bad --port (usage error)', async () => {
    await expect(runDev(line([], { port: 'http' }), io().io, async () => ({}))).rejects.toThrow(/--port/);
  });
});
