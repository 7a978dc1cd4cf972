/**
 * Run names with a qualifier (`orders:7` pinned, `orders:live` on an alias, `orders:$LATEST`):
 * which function a name belongs to, which names a run query's `functionName` matches, and the
 * per-function execution timeout a qualified run gets (the bare name's).
 */
import { Engine, functionBaseName, MemoryStore, runOfFunction } from '@durable-lambda/engine';
import { describe, expect, it } from 'vitest';

const ARN = 'arn:aws:lambda:us-east-1:123456789012:function:orders';

describe('function qualifiers in run names', () => {
  it('the base name drops the qualifier, also after an ARN-shaped name', () => {
    expect(functionBaseName('orders')).toBe('orders');
    expect(functionBaseName('orders:7')).toBe('orders');
    expect(functionBaseName('orders:live')).toBe('orders');
    expect(functionBaseName('orders:$LATEST')).toBe('orders');
    expect(functionBaseName(ARN)).toBe(ARN);
    expect(functionBaseName(`${ARN}:7`)).toBe(ARN);
    expect(functionBaseName('123456789012:function:orders:live')).toBe('123456789012:function:orders');
  });

  it('a bare query name matches each of its qualifiers; a qualified one only itself', () => {
    for (const recorded of ['orders', 'orders:7', 'orders:live', 'orders:$LATEST']) {
      expect(runOfFunction(recorded, 'orders')).toBe(true);
    }
    expect(runOfFunction('orders:7', 'orders:7')).toBe(true);
    expect(runOfFunction('orders:8', 'orders:7')).toBe(false);
    expect(runOfFunction('orders', 'orders:7')).toBe(false);
    for (const recorded of ['orders-eu', 'orders-eu:1', 'ordersx:7', 'order:7']) {
      expect(runOfFunction(recorded, 'orders')).toBe(false);
    }
    expect(runOfFunction(`${ARN}:7`, ARN)).toBe(true);
    expect(runOfFunction(`${ARN}:7`, 'arn')).toBe(false);
  });

  it('a qualified run gets the execution timeout set for its bare name', async () => {
    const asked: string[] = [];
    const engine = new Engine({
      store: new MemoryStore(),
      waker: { wakeAt: async () => {} },
      invoker: { invoke: async () => {} },
      executionTimeout: (name) => {
        asked.push(name);
        return name === 'orders' || name === ARN ? 60 : undefined;
      },
    });
    const timeoutOf = async (functionName: string) => (await engine.startRun({ functionName })).run.executionTimeoutMs;
    expect(await timeoutOf('orders:7')).toBe(60_000);
    expect(await timeoutOf('orders:live')).toBe(60_000);
    expect(await timeoutOf('orders:$LATEST')).toBe(60_000);
    expect(await timeoutOf('orders')).toBe(60_000);
    expect(await timeoutOf(`${ARN}:3`)).toBe(60_000);
    expect(await timeoutOf('orders-eu:1')).toBeUndefined();
    expect(asked).toEqual(['orders', 'orders', 'orders', 'orders', ARN, 'orders-eu']);
  });
});
