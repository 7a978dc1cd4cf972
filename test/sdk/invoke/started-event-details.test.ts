/**
 * Issue 23: a chained invoke's ChainedInvokeStarted event carries what Lambda's does (conformance
 * invoke suite): `ExecutedVersion`, the `Input` key also when invoked without a payload, and the
 * invoke's `TenantId`.
 */
import { LocalDurableTestRunner } from '@durable-lambda/local';
import { type DurableContext, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

const target = withDurableExecution(async (event: unknown) => event ?? 'nothing');

async function startedDetails(body: (ctx: DurableContext) => Promise<unknown>) {
  const runner = new LocalDurableTestRunner({
    handlerFunction: withDurableExecution(async (_event: unknown, ctx: DurableContext) => body(ctx)),
  });
  runner.registerDurableFunction('target', target);
  runner.registerDurableFunction('target:7', target);
  const result = await runner.run();
  if (result.getStatus() !== 'SUCCEEDED') throw new Error(JSON.stringify(result.getError()));
  return result
    .getHistoryEvents()
    .filter((e) => e.EventType === 'ChainedInvokeStarted')
    .map((e) => e.ChainedInvokeStartedDetails);
}

describe('ChainedInvokeStarted details', () => {
  it('lists the Input key when invoked without a payload, and the executed version', async () => {
    const [details] = await startedDetails((ctx) => ctx.invoke('target'));
    expect(details).toHaveProperty('Input');
    expect(details?.Input).toEqual({});
    expect(details?.ExecutedVersion).toBe('$LATEST');
    expect(details).not.toHaveProperty('TenantId');
  });

  it('carries the payload, the tenant and the qualified version', async () => {
    const [plain, qualified] = await startedDetails(async (ctx) => [
      await ctx.invoke('call', 'target', 'hello', { tenantId: 'tenant-42' }),
      await ctx.invoke('again', 'target:7', 'again'),
    ]);
    expect(plain).toMatchObject({ Input: { Payload: '"hello"' }, TenantId: 'tenant-42', ExecutedVersion: '$LATEST' });
    expect(qualified).toMatchObject({ Input: { Payload: '"again"' }, ExecutedVersion: '7' });
  });
});
