/**
 * The test runner hands each log line to the handler's own sink as well as keeping it, as Lambda
 * and AWS's runner do (AWS's example tests read the JSON lines off stdout and stderr); with
 * `printLogs: false` the lines are only kept on the result.
 */
import { LocalDurableTestRunner } from '@durable-lambda/local';
import { type LogEntry, withDurableExecution } from '@durable-lambda/sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';

function handlerLogging(sink?: (entry: LogEntry) => void) {
  return withDurableExecution(
    async (_event, ctx) => {
      ctx.logger.info('before');
      await ctx.wait({ seconds: 5 });
      await ctx.step('s', async ({ logger }) => logger.warn('inside'));
      ctx.logger.debug('after');
      return 'ok';
    },
    sink ? { logSink: sink } : {},
  );
}

describe('test runner log lines', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
  });

  it("reach the handler's own sink once each, across the replay after the wait, and are kept", async () => {
    const own: LogEntry[] = [];
    const result = await new LocalDurableTestRunner({ handlerFunction: handlerLogging((e) => own.push(e)) }).run();
    expect(result.getStatus()).toBe('SUCCEEDED');
    expect(own.map((e) => [e.level, e.message])).toEqual([
      ['info', 'before'],
      ['warn', 'inside'],
      ['debug', 'after'],
    ]);
    expect(result.getLogs().map((e) => e.message)).toEqual(['before', 'inside', 'after']);
  });

  it('stay on the result only with printLogs: false', async () => {
    const own: LogEntry[] = [];
    const runner = new LocalDurableTestRunner({
      handlerFunction: handlerLogging((e) => own.push(e)),
      printLogs: false,
    });
    const result = await runner.run();
    expect(own).toEqual([]);
    expect(result.getLogs()).toHaveLength(3);
  });

  it("by default are AWS's JSON lines, info and debug on stdout, warnings on stderr, filtered by AWS_LAMBDA_LOG_LEVEL", async () => {
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const lines = (spy: typeof out) => spy.mock.calls.map(([chunk]) => JSON.parse(String(chunk)));
    await new LocalDurableTestRunner({ handlerFunction: handlerLogging() }).run();
    expect(lines(out).map((l) => [l.level, l.message])).toEqual([
      ['INFO', 'before'],
      ['DEBUG', 'after'],
    ]);
    expect(lines(err)).toEqual([
      expect.objectContaining({ level: 'WARN', message: 'inside', operationId: expect.any(String), attempt: 1 }),
    ]);
    expect(lines(out)[0].executionArn).toMatch(/^arn:aws:lambda:/);

    out.mockClear();
    err.mockClear();
    vi.stubEnv('AWS_LAMBDA_LOG_LEVEL', 'WARN');
    await new LocalDurableTestRunner({ handlerFunction: handlerLogging() }).run();
    expect(out.mock.calls).toEqual([]);
    expect(lines(err).map((l) => l.message)).toEqual(['inside']);
  });
});
