import { Engine, MemoryStore } from '@durable-lambda/engine';
import { VirtualClock } from '@durable-lambda/local';
import { withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

function engine() {
  const clock = new VirtualClock(Date.UTC(2026, 0, 1));
  return new Engine({ store: new MemoryStore(clock), clock, waker: { wakeAt: async () => {} } });
}

describe('the concurrency option', () => {
  it('refuses a limit that is not a whole number of at least 1, and a key that is not a function', () => {
    const ok = async () => 'ok';
    expect(() => withDurableExecution(ok, { concurrency: { key: () => 'k', limit: 0 } })).toThrow(/limit/);
    expect(() => withDurableExecution(ok, { concurrency: { key: () => 'k', limit: 1.5 } })).toThrow(/limit/);
    expect(() => withDurableExecution(ok, { concurrency: { key: 'k' as unknown as () => string, limit: 1 } })).toThrow(
      /key/,
    );
  });

  it('fails the run, without running the handler, when the key function throws or gives no string', async () => {
    let ran = 0;
    const backend = engine();
    const handler = withDurableExecution(
      async () => {
        ran += 1;
        return 'ok';
      },
      {
        backend,
        logSink: () => {},
        concurrency: {
          key: (e) => {
            const tenant = (e as { tenant?: unknown }).tenant;
            if (tenant === 'boom') throw new Error('no tenant');
            return tenant as string;
          },
          limit: 1,
        },
      },
    );
    const thrown = await handler({ tenant: 'boom' }, { functionName: 'f', awsRequestId: 'r1' });
    expect(thrown).toMatchObject({ Status: 'FAILED' });
    const empty = await handler({ tenant: '' }, { functionName: 'f', awsRequestId: 'r2' });
    expect(empty).toMatchObject({ Status: 'FAILED' });
    expect(ran).toBe(0);
    const good = await handler({ tenant: 'a' }, { functionName: 'f', awsRequestId: 'r3' });
    expect(good).toMatchObject({ Status: 'SUCCEEDED' });
    expect(ran).toBe(1);
  });
});
