/**
 * A run key used again after its run expired names a new execution, as on Lambda (a name whose
 * execution's retention has passed starts a new execution, with a new execution id): the
 * Lambda-shaped routes give it an ARN of its own, the old ARN names nothing any more, and what
 * our SDK hands code as `durableExecutionArn` (serdes contexts included) differs too.
 */
import { type ApiRequest, createControlApi } from '@durable-lambda/api';
import { Engine, MemoryStore } from '@durable-lambda/engine';
import { VirtualClock } from '@durable-lambda/local';
import { type DurableContext, finishOpened, getDurableEntry, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

const RETENTION_MS = 60_000;

describe('Lambda-shaped routes: a run key used again after retention', () => {
  it('names a new execution: its own ARN and durableExecutionArn, the old ARN refused', async () => {
    const clock = new VirtualClock(Date.UTC(2026, 0, 1));
    const engine = new Engine({
      store: new MemoryStore(clock),
      clock,
      retentionMs: RETENTION_MS,
      waker: { wakeAt: async () => {} },
      invoker: { invoke: async () => {} },
    });
    const api = createControlApi({ engine, functions: ['fn'], onError: (error) => expect.fail(String(error)) });
    const call = (method: string, path: string, init: Partial<ApiRequest> = {}) =>
      api.handle({ method, path, query: {}, headers: { 'content-type': 'application/json' }, ...init });
    const seen: string[] = [];
    const handler = withDurableExecution(
      async (event: { amount: number }, ctx: DurableContext) => {
        seen.push(ctx.executionContext.durableExecutionArn);
        return ctx.step('charge', async () => event.amount);
      },
      { logSink: () => {} },
    );
    const invoke = async (body: string) => {
      const answer = await call('POST', '/2015-03-31/functions/fn/invocations', {
        body,
        headers: { 'content-type': 'application/json', 'x-amz-durable-execution-name': 'order-42' },
      });
      expect(answer.status).toBe(200);
      const arn = answer.headers['x-amz-durable-execution-arn'] as string;
      const runId = arn.split('/durable-execution/')[1]?.split('/')[0] as string;
      const session = await engine.openRun(runId);
      if (!session) throw new Error('the run could not be opened');
      await finishOpened(session, await getDurableEntry(handler).execute(session, { functionName: 'fn' }, {}));
      return { arn, runId };
    };
    const get = (arn: string) => call('GET', `/2025-12-01/durable-executions/${encodeURIComponent(arn)}`);

    const first = await invoke('{"amount":100}');
    expect(first.arn).toMatch(/\/durable-execution\/k[0-9a-f]{32}\/[0-9a-f]{16}$/);
    expect(JSON.parse((await get(first.arn)).body).DurableExecutionArn).toBe(first.arn);
    clock.advanceBy(RETENTION_MS + 1);

    const second = await invoke('{"amount":999}');
    expect(second.runId).toBe(first.runId);
    expect(second.arn).not.toBe(first.arn);
    const old = await get(first.arn);
    expect({ status: old.status, type: old.headers['x-amzn-errortype'] }).toEqual({
      status: 404,
      type: 'ResourceNotFoundException',
    });
    const now = JSON.parse((await get(second.arn)).body);
    expect({ arn: now.DurableExecutionArn, result: now.Result }).toEqual({ arn: second.arn, result: '999' });
    // The bare run id still names the run the id names now.
    expect((await get(second.runId)).status).toBe(200);

    // The SDK's durableExecutionArn is the very ARN the routes answer to, one per creation.
    expect(seen).toEqual([first.arn, second.arn]);
  });
});
