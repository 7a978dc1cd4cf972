import { createRequire } from 'node:module';
import { jsonLineSink, type LogEntry } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';
import type * as Powertools from '../../../bench/node_modules/@aws-lambda-powertools/logger/lib/esm/index.js';
import { type Body, runOnAws, runOnOurs } from './on-both-sdks';

/**
 * Logging as on AWS: Powertools' Logger set with `context.configureLogger` (as AWS's docs show)
 * gets the same calls on both SDKs, silent while replaying; and the default logger's JSON lines
 * have AWS's shape (level, message, operation name and attempt, error fields).
 */

// Powertools is a bench devDependency, loaded from there as AWS's SDK is.
const { Logger } = createRequire(new URL('../../../bench/package.json', import.meta.url))(
  '@aws-lambda-powertools/logger',
) as typeof Powertools;

/** What a run wrote to stdout and stderr, one entry per line, while `work` ran. */
async function output<T>(work: () => Promise<T>): Promise<{ value: T; lines: string[] }> {
  const lines: string[] = [];
  const out = process.stdout.write;
  const err = process.stderr.write;
  const keep = (stream: string) =>
    ((chunk: unknown) => {
      for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(`${stream} ${line}`);
      return true;
    }) as typeof process.stdout.write;
  process.stdout.write = keep('stdout');
  process.stderr.write = keep('stderr');
  try {
    return { value: await work(), lines };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
  }
}

/** A JSON log line without what differs per run (times, ids). */
function shape(line: string, drop: string[]): unknown {
  const [stream, ...rest] = line.split(' ');
  const json = JSON.parse(rest.join(' ')) as Record<string, unknown>;
  for (const key of drop) if (key in json) json[key] = typeof json[key];
  if (typeof json.message === 'string') json.message = json.message.replace(/\n {4}at [^\n]*/g, '');
  if (Array.isArray(json.stackTrace)) json.stackTrace = 'array';
  // Powertools' own error rendering: where it was thrown names each SDK's files.
  const error = json.error as Record<string, unknown> | undefined;
  if (error && typeof error === 'object')
    json.error = { ...error, stack: typeof error.stack, location: typeof error.location };
  return { stream, ...json };
}

describe('Powertools’ Logger through context.configureLogger', () => {
  const body: Body = () => async (_e, ctx) => {
    ctx.configureLogger({ customLogger: new Logger({ serviceName: 'orders' }) });
    ctx.logger.info('before the wait', { orderId: 'o-1' });
    await ctx.step('charge', async ({ logger }) => {
      logger.info('charging');
      return 1;
    });
    await ctx.wait({ seconds: 1 });
    ctx.logger.info('after the wait');
    await ctx.runInChildContext('ship', async (child) => {
      child.logger.warn('shipping');
      child.logger.error('late', new Error('carrier'));
    });
    return 'ok';
  };

  it('runs to the same end and logs each line once, as on AWS', async () => {
    const aws = await output(() => runOnAws(body));
    const ours = await output(() => runOnOurs(body));
    expect(ours.value.status).toBe('SUCCEEDED');
    expect(ours.value.result).toEqual(aws.value.result);
    const drop = ['timestamp'];
    expect(ours.lines.map((l) => shape(l, drop))).toEqual(aws.lines.map((l) => shape(l, drop)));
    expect(ours.lines.map((l) => (JSON.parse(l.slice(l.indexOf(' ') + 1)) as { message: string }).message)).toEqual([
      'before the wait',
      'charging',
      'after the wait',
      'shipping',
      'late',
    ]);
  });
});

describe('the default logger', () => {
  const body: Body = () => async (_e, ctx) => {
    ctx.logger.info('start', { a: 1 });
    await ctx.step('s', async ({ logger }) => {
      logger.info('in step', 'x', 3);
      logger.debug({ only: 'object' });
      return 1;
    });
    await ctx.wait({ seconds: 1 });
    await ctx.runInChildContext('c', async (child) => child.logger.warn('in child'));
    ctx.logger.error('failed', new TypeError('bad'));
    ctx.logger.log?.('WARN', 'via log');
    return 'ok';
  };

  it('writes AWS’s JSON line for each call, silent while replaying', async () => {
    const aws = await output(() => runOnAws(body));
    // Our runner keeps log entries (getLogs); the default sink turns each into its line.
    const entries: LogEntry[] = [];
    const { LocalDurableTestRunner } = await import('@durable-lambda/local/testing');
    const { withDurableExecution } = await import('@durable-lambda/sdk');
    const run = await new LocalDurableTestRunner({
      handlerFunction: withDurableExecution(body((await import('./on-both-sdks')).ours, 'ours') as never),
    }).run();
    entries.push(...(run.getLogs() as LogEntry[]));
    const ours = await output(async () => {
      for (const entry of entries) jsonLineSink(entry);
    });
    // Ids differ by design: AWS hashes operation ids and names runs by ARN.
    const drop = ['timestamp', 'requestId', 'executionArn', 'operationId'];
    expect(ours.lines.map((l) => shape(l, drop))).toEqual(aws.lines.map((l) => shape(l, drop)));
    expect(aws.lines).toHaveLength(6);
  });
});

describe('the default sink', () => {
  const entry = (level: LogEntry['level']): LogEntry => ({
    level,
    message: `a ${level} line`,
    timestamp: '2026-01-01T00:00:00.000Z',
    runId: 'run-1',
  });

  it('filters by AWS_LAMBDA_LOG_LEVEL as Lambda does, and writes warnings and errors to stderr', async () => {
    const before = process.env.AWS_LAMBDA_LOG_LEVEL;
    process.env.AWS_LAMBDA_LOG_LEVEL = 'warn';
    try {
      const { lines } = await output(async () => {
        for (const level of ['debug', 'info', 'warn', 'error'] as const) jsonLineSink(entry(level));
      });
      expect(lines.map((l) => shape(l, []))).toEqual([
        {
          stream: 'stderr',
          timestamp: '2026-01-01T00:00:00.000Z',
          level: 'WARN',
          executionArn: 'run-1',
          message: 'a warn line',
        },
        {
          stream: 'stderr',
          timestamp: '2026-01-01T00:00:00.000Z',
          level: 'ERROR',
          executionArn: 'run-1',
          message: 'a error line',
        },
      ]);
    } finally {
      if (before === undefined) delete process.env.AWS_LAMBDA_LOG_LEVEL;
      else process.env.AWS_LAMBDA_LOG_LEVEL = before;
    }
  });
});
