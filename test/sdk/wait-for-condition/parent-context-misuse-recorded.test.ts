/**
 * Issue 23 (AWS's parent-context-in-wait-condition example): a check that uses a parent context
 * fails the run with AWS's context usage error, and the waitForCondition it ran in is recorded
 * STARTED beside its child context (its first check's START is written), as AWS records them.
 */
import { LocalDurableTestRunner } from '@durable-lambda/local';
import { type DurableContext, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

describe('a parent context used inside a waitForCondition check', () => {
  it('fails the run and leaves the waitForCondition recorded as STARTED', async () => {
    const handler = withDurableExecution(async (_event: unknown, context: DurableContext) => {
      const value = await context.runInChildContext('child', async (child) =>
        child.waitForCondition(
          'poll',
          async (state: number) => {
            await context.step('misplaced', async () => 'never');
            return state + 1;
          },
          { initialState: 0, waitStrategy: () => ({ shouldContinue: false }) },
        ),
      );
      await context.wait('after', { seconds: 1 });
      return value;
    });
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    const result = await runner.run();
    expect(result.getStatus()).toBe('FAILED');
    expect(result.getError().errorMessage).toContain('Context usage error');
    const operations = result.getOperations().map((op) => [op.getName(), op.getType(), op.getStatus()]);
    expect(operations).toEqual([
      ['child', 'CONTEXT', 'STARTED'],
      ['poll', 'STEP', 'STARTED'],
    ]);
  });
});
