/**
 * A run's `durableExecutionArn` is Lambda's ARN shape (AWS's conformance requirement 10-22 checks
 * `executionArn` matches `/^arn:/`), the same form for our SDK's handlers and for AWS's SDK over
 * our transport, and the run (and its incarnation, for a run created from a key) reads back out
 * of it.
 */
import { LocalDurableTestRunner } from '@durable-lambda/local';
import { executionArn, executionOfArn, incarnationIdOfArn } from '@durable-lambda/protocol';
import { withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';
import { importAwsSdk } from '../support/aws-sdk';

describe('execution ARN', () => {
  it('names a run, and a run created from a key with its incarnation', () => {
    expect(executionArn('orders', 'r1')).toBe('arn:aws:lambda:local:000000000000:function:orders/durable-execution/r1');
    expect(executionOfArn(executionArn('orders', 'r1'))).toEqual({ runId: 'r1' });
    expect(executionOfArn(executionArn('orders', 'r1', 'x7'))).toEqual({ runId: 'r1', incarnation: 'x7' });
    expect(incarnationIdOfArn(executionArn('orders', 'r1', 'x7'))).toBe('r1.x7');
    // The form runs were named by before: the incarnation id.
    expect(executionOfArn('r1.x7')).toEqual({ runId: 'r1', incarnation: 'x7' });
    expect(executionOfArn('r1')).toEqual({ runId: 'r1' });
    expect(executionOfArn('arn:aws:lambda:local:000000000000:function:orders/durable-execution/')).toBeUndefined();
    expect(executionOfArn('')).toBeUndefined();
  });

  it("is the same ARN for our SDK's handler, its serdes and logger, and AWS's SDK on the same runner", async () => {
    const seen: string[] = [];
    const ours = withDurableExecution(
      async (_event, ctx) => {
        seen.push(ctx.executionContext.durableExecutionArn);
        ctx.logger.info('hello');
        return ctx.step('s', async () => 'done');
      },
      { logSink: () => {} },
    );
    const runner = new LocalDurableTestRunner({ handlerFunction: ours, functionName: 'orders', printLogs: false });
    const result = await runner.run();
    const arn = executionArn('orders', result.getRunId());
    expect(seen[0]).toBe(arn);
    expect(result.getLogs().map((line) => line.executionArn)).toEqual([arn]);

    const aws = await importAwsSdk();
    let awsArn = '';
    const theirs = aws.withDurableExecution(async (_event, ctx) => {
      awsArn = ctx.executionContext.durableExecutionArn;
      return 'done';
    });
    const awsResult = await new LocalDurableTestRunner({ handlerFunction: theirs, functionName: 'orders' }).run();
    expect(awsArn).toBe(executionArn('orders', awsResult.getRunId()));
  });
});
