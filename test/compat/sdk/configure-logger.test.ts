import { LocalDurableTestRunner } from '@durable-lambda/local';
import { executionArn } from '@durable-lambda/protocol';
import {
  type DurableLogData,
  type DurableLogger,
  type DurableLoggingContext,
  InvalidArgumentError,
  withDurableExecution,
} from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

/** A logger like Powertools' or pino's: a class whose methods use `this`, taking any arguments. */
class RecordingLogger implements DurableLogger {
  readonly lines: Array<{ level: string; params: unknown[]; data: DurableLogData | undefined }> = [];
  private context: DurableLoggingContext | undefined;
  configureDurableLoggingContext(context: DurableLoggingContext): void {
    this.context = context;
  }
  private write(level: string, params: unknown[]) {
    this.lines.push({ level, params, data: this.context?.getDurableLogData() });
  }
  info(...params: unknown[]) {
    this.write('info', params);
  }
  warn(...params: unknown[]) {
    this.write('warn', params);
  }
  error(...params: unknown[]) {
    this.write('error', params);
  }
  debug(...params: unknown[]) {
    this.write('debug', params);
  }
}

describe('context.configureLogger (AWS’s)', () => {
  it('sends the context’s, its steps’ and later child contexts’ logs to a custom logger, with the operation’s data', async () => {
    const custom = new RecordingLogger();
    const handler = withDurableExecution(async (_e, ctx) => {
      ctx.configureLogger({ customLogger: custom });
      ctx.logger.info('start', { order: 7 });
      await ctx.step('charge', async ({ logger }) => logger.warn('charging', 42));
      await ctx.runInChildContext('child', async (child) => {
        child.logger.error('in child');
      });
      return 'ok';
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getStatus()).toBe('SUCCEEDED');
    expect(custom.lines.map(({ level, params }) => [level, ...params])).toEqual([
      ['info', 'start', { order: 7 }],
      ['warn', 'charging', 42],
      ['error', 'in child'],
    ]);
    const runId = result.getRunId();
    // AWS's keys: tenantId and operationId are there even when undefined.
    // Lambda's ARN shape, as AWS's logger writes it, naming this run.
    expect(custom.lines[0]?.data).toStrictEqual({
      executionArn: executionArn('handler', runId),
      requestId: expect.any(String),
      tenantId: undefined,
      operationId: undefined,
    });
    expect(Object.keys(custom.lines[0]?.data ?? {}).sort()).toEqual([
      'executionArn',
      'operationId',
      'requestId',
      'tenantId',
    ]);
    expect(custom.lines[1]?.data).toMatchObject({
      executionArn: executionArn('handler', runId),
      operationId: '1',
      operationName: 'charge',
      attempt: 1,
    });
    expect(custom.lines[2]?.data).toMatchObject({ operationId: '2', operationName: 'child' });
    // Nothing went to the default sink.
    expect(result.getLogs()).toEqual([]);
  });

  it('is mode-aware by default (silent while replaying), and logs replays too with modeAware: false', async () => {
    const runWith = async (modeAware: boolean | undefined) => {
      const custom = new RecordingLogger();
      const handler = withDurableExecution(async (_e, ctx) => {
        ctx.configureLogger(modeAware === undefined ? { customLogger: custom } : { customLogger: custom, modeAware });
        ctx.logger.info('before wait');
        await ctx.wait({ seconds: 1 });
        ctx.logger.info('after wait');
        return 'ok';
      });
      await new LocalDurableTestRunner({ handlerFunction: handler }).run();
      return custom.lines.map((l) => l.params[0]);
    };
    expect(await runWith(undefined)).toEqual(['before wait', 'after wait']);
    // The second invocation replays the first line.
    expect(await runWith(false)).toEqual(['before wait', 'before wait', 'after wait']);
  });

  it('changes only what it is given: modeAware alone keeps the default logger', async () => {
    const handler = withDurableExecution(async (_e, ctx) => {
      ctx.configureLogger({ modeAware: false });
      ctx.logger.info('hello');
      await ctx.wait({ seconds: 1 });
      return 'ok';
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getLogs().map((l) => l.message)).toEqual(['hello', 'hello']);
  });

  it('refuses a logger without the logging methods, naming the field', async () => {
    const handler = withDurableExecution(async (_e, ctx) => {
      try {
        ctx.configureLogger({ customLogger: { info: () => {} } as unknown as DurableLogger });
      } catch (error) {
        return [error instanceof InvalidArgumentError, (error as InvalidArgumentError).field];
      }
      return 'accepted';
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getResult()).toEqual([true, 'config.customLogger']);
  });

  it('accepts console-style arguments on the default logger: the first string is the message, the rest data', async () => {
    const handler = withDurableExecution(async (_e, ctx) => {
      ctx.logger.info('two values', 1, { b: 2 });
      ctx.logger.log?.('WARN', 'through log()');
      return 'ok';
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getLogs().map(({ level, message, data }) => ({ level, message, data }))).toEqual([
      { level: 'info', message: 'two values', data: [1, { b: 2 }] },
      { level: 'warn', message: 'through log()', data: undefined },
    ]);
  });
});
