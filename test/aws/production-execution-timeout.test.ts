import { Engine, MemoryStore } from '@durable-lambda/engine';
import { describe, expect, it } from 'vitest';
import {
  EXECUTION_TIMEOUT_ENV,
  executionTimeoutSetting,
  readProductionConfig,
} from '../../packages/aws/src/production-config';
import { SummaryBuilder } from '../../packages/aws/src/reconciler-summary';

const env = (over: Record<string, string | undefined> = {}) => ({
  DURABLE_TABLE_NAME: 'durable-runs',
  DURABLE_SCHEDULE_GROUP: 'durable-orders',
  DURABLE_SCHEDULER_ROLE_ARN: 'arn:aws:iam::123456789012:role/durable-scheduler',
  AWS_REGION: 'us-east-1',
  ...over,
});

describe('the per-function execution timeout of the production backend', () => {
  it(`reads ${EXECUTION_TIMEOUT_ENV} as whole seconds from 1 to 366 days`, () => {
    expect(readProductionConfig(env()).executionTimeoutSeconds).toBeUndefined();
    expect(readProductionConfig(env({ [EXECUTION_TIMEOUT_ENV]: ' 3600 ' })).executionTimeoutSeconds).toBe(3600);
    expect(readProductionConfig(env({ [EXECUTION_TIMEOUT_ENV]: String(366 * 86_400) })).executionTimeoutSeconds).toBe(
      366 * 86_400,
    );
    for (const bad of ['0', String(366 * 86_400 + 1), '1.5', '1e3', '-5', 'an hour', '0x10']) {
      expect(() => readProductionConfig(env({ [EXECUTION_TIMEOUT_ENV]: bad })), bad).toThrow(
        expect.objectContaining({
          code: 'invalid_configuration',
          variables: [EXECUTION_TIMEOUT_ENV],
          message: expect.stringContaining(`${EXECUTION_TIMEOUT_ENV} must be a whole number of seconds`),
        }),
      );
    }
  });

  it("gives the function's own runs (any qualifier) a deadline, not the runs of other functions it starts", async () => {
    let now = Date.UTC(2026, 0, 1);
    const clock = { now: () => now };
    const config = readProductionConfig(env({ [EXECUTION_TIMEOUT_ENV]: '60' }));
    const engine = new Engine({
      store: new MemoryStore(clock),
      clock,
      waker: { wakeAt: async () => {} },
      executionTimeout: executionTimeoutSetting(config, 'orders'),
    });
    const start = async (functionName: string, own?: number) =>
      (
        await engine.startRun({
          functionName,
          input: '{}',
          ...(own === undefined ? {} : { executionTimeoutSeconds: own }),
        })
      ).run;
    expect((await start('orders')).deadlineAt).toBe(now + 60_000);
    expect((await start('orders:7')).deadlineAt).toBe(now + 60_000);
    expect((await start('arn:aws:lambda:us-east-1:123456789012:function:orders:live')).deadlineAt).toBe(now + 60_000);
    expect((await start('orders', 5)).deadlineAt).toBe(now + 5_000);
    expect((await start('billing')).deadlineAt).toBeUndefined();

    // The reconciler ends what passed its deadline; its summary counts each run once over passes.
    now += 61_000;
    const builder = new SummaryBuilder();
    const first = await engine.reconcile({ graceMs: 0 });
    builder.add(first, new Set());
    builder.add(await engine.reconcile({ graceMs: 0 }), new Set());
    expect(first.timedOut).toHaveLength(4);
    const summary = builder.summary('done', 1);
    expect(summary).toMatchObject({ passes: 2, timedOut: 4, treesEnded: 0, failed: 0 });
  });
});
