/**
 * Issue 23: how a callback's deadlines pass while the runner skips time is the test's choice
 * (`callbackDeadlines`). `real` keeps them on real time as AWS's runner does, so outside code
 * that heartbeats a callback by its id after a real delay (conformance 4-5, 7-13) is in time;
 * `skip` jumps to them even for a callback the test watches.
 */
import { LocalDurableTestRunner } from '@durable-lambda/local';
import { type DurableContext, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const handler = withDurableExecution(async (_event: unknown, ctx: DurableContext) => {
  const [promise] = await ctx.createCallback('job', { heartbeatTimeout: { seconds: 5 } });
  await ctx.wait('cool-down', { minutes: 10 });
  try {
    return { value: await promise };
  } catch (error) {
    return { error: (error as Error).message };
  }
});

/** Outside code: finds the callback's id by polling, heartbeats it and completes it, each after a real delay. */
async function outsideParty(runner: LocalDurableTestRunner): Promise<void> {
  let id: string | undefined;
  while (!id) {
    await sleep(20);
    id = runner.getOperation('job').getCallbackDetails()?.callbackId;
  }
  await sleep(200);
  await runner.getOperation('job').sendCallbackHeartbeat();
  await sleep(200);
  await runner.getOperation('job').sendCallbackSuccess(JSON.stringify('done'));
}

describe('callbackDeadlines', () => {
  it('real: a heartbeat sent by id after a real delay keeps the callback alive, while waits are still skipped', async () => {
    const runner = new LocalDurableTestRunner({ handlerFunction: handler, callbackDeadlines: 'real' });
    const [result] = await Promise.all([runner.run(), outsideParty(runner)]);
    expect(result.getResult()).toEqual({ value: '"done"' });
    // The 10-minute wait took no real time.
    expect(runner.getOperation('cool-down').getStatus()).toBe('SUCCEEDED');
  });

  it('held (default): the same outside party is too late, the heartbeat deadline was jumped to', async () => {
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    const running = runner.run();
    const party = outsideParty(runner).catch((error: Error) => error);
    const result = await running;
    expect(result.getResult()).toEqual({ error: 'Callback timed out on heartbeat' });
    await party;
  });

  it('skip: a callback the test waits on still times out at once', async () => {
    const runner = new LocalDurableTestRunner({
      handlerFunction: withDurableExecution(async (_event: unknown, ctx: DurableContext) => {
        const [promise] = await ctx.createCallback('slow', { timeout: { hours: 1 } });
        return promise.catch((error: unknown) => (error as Error).message);
      }),
      callbackDeadlines: 'skip',
    });
    const running = runner.run();
    await runner.getOperation('slow').waitForData();
    expect((await running).getResult()).toBe('Callback timed out');
  });
});
