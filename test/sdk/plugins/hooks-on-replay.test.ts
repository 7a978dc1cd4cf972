import { LocalDurableTestRunner } from '@durable-lambda/local';
import { TestDriver } from '@durable-lambda/local/testing';
import {
  type DurableInstrumentationPlugin,
  type OperationChangeInfo,
  type OperationInfo,
  withDurableExecution,
} from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

/**
 * When AWS's SDK calls each plugin hook across invocations (its 2.4.0 code and the plugin
 * conformance requirements): operations met again on replay, checkpoint answers, the info shapes.
 */

/** Records `hook name replay=<isReplay> status=<status>` for the operations `filter` keeps. */
function operationLog(filter: (info: OperationInfo) => boolean) {
  const events: string[] = [];
  const line = (hook: string, info: OperationInfo) =>
    `${hook} ${info.name ?? info.id} replay=${info.isReplay} status=${info.status}`;
  const plugin: DurableInstrumentationPlugin = {
    onInvocationStart: async (info) => {
      events.push(`invocation first=${info.isFirstInvocation}`);
    },
    onOperationStart: async (info) => {
      if (filter(info)) events.push(line('start', info));
    },
    onOperationEnd: async (info) => {
      if (filter(info)) events.push(line('end', info));
    },
  };
  return { events, plugin };
}

describe('plugin hooks on replay, as AWS’s SDK calls them', () => {
  it('reports a wait that ended between invocations once as new (isReplay false), then as a replay', async () => {
    const { events, plugin } = operationLog((info) => info.type === 'WAIT');
    const handler = withDurableExecution(
      async (_e, ctx) => {
        await ctx.wait('first', { seconds: 5 });
        await ctx.wait('second', { seconds: 5 });
        return 'done';
      },
      { plugins: [plugin] },
    );
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getResult()).toBe('done');
    expect(events).toEqual([
      'invocation first=true',
      'start first replay=false status=STARTED',
      'invocation first=false',
      'end first replay=false status=SUCCEEDED',
      'start second replay=false status=STARTED',
      'invocation first=false',
      'end first replay=true status=SUCCEEDED',
      'end second replay=false status=SUCCEEDED',
    ]);
  });

  it('reports a wait still pending on replay by onOperationStart with isReplay true, never one already ended', async () => {
    const { events, plugin } = operationLog((info) => info.type === 'WAIT');
    const handler = withDurableExecution(
      async (_e, ctx) =>
        (
          await ctx.parallel(
            'waits',
            [
              async (c) => {
                await c.wait('short', { seconds: 2 });
                return 'short-done';
              },
              async (c) => {
                await c.wait('long', { seconds: 8 });
                return 'long-done';
              },
            ],
            { maxConcurrency: 2 },
          )
        ).getResults(),
      { plugins: [plugin] },
    );
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getResult()).toEqual(['short-done', 'long-done']);
    expect(events).toEqual([
      'invocation first=true',
      'start short replay=false status=STARTED',
      'start long replay=false status=STARTED',
      'invocation first=false',
      'end short replay=false status=SUCCEEDED',
      'start long replay=true status=STARTED',
      'invocation first=false',
      'end long replay=false status=SUCCEEDED',
    ]);
  });

  it('reports callbacks and chained invokes met again on replay the same way', async () => {
    const { events, plugin } = operationLog((info) => info.type === 'CALLBACK' || info.type === 'CHAINED_INVOKE');
    let driver: TestDriver | undefined;
    let pending: string | undefined;
    let answered = false;
    // The outside party answers the callback once the invocation that created it has ended.
    const approver: DurableInstrumentationPlugin = {
      onInvocationEnd: async () => {
        const callbackId = pending;
        if (callbackId === undefined || answered) return;
        answered = true;
        setImmediate(() => void driver?.sendCallbackSuccess(callbackId, '"yes"'));
      },
    };
    const parent = withDurableExecution(
      async (_e: unknown, ctx) => {
        const [answer, callbackId] = await ctx.createCallback<string>('approve');
        pending = callbackId;
        const approval = await answer;
        const shipped = await ctx.invoke<string, string>('ship', 'shipper', 'parcel');
        await ctx.wait('cool-off', { seconds: 5 });
        return `${approval} ${shipped}`;
      },
      { plugins: [plugin, approver] },
    );
    const shipper = withDurableExecution(async (input: string) => `shipped ${input}`);
    driver = new TestDriver({ orders: parent, shipper });
    const run = await driver.runUntilDone((await driver.start('orders', {})).runId);
    expect(run.status).toBe('SUCCEEDED');
    expect(events).toEqual([
      'invocation first=true',
      'start approve replay=false status=STARTED',
      'invocation first=false',
      'end approve replay=false status=SUCCEEDED',
      'start ship replay=false status=STARTED',
      'invocation first=false',
      'end approve replay=true status=SUCCEEDED',
      'end ship replay=false status=SUCCEEDED',
      'invocation first=false',
      'end approve replay=true status=SUCCEEDED',
      'end ship replay=true status=SUCCEEDED',
    ]);
  });

  it('reports a callback completed while other code runs (seen by reading the run again) as it ends', async () => {
    const events: string[] = [];
    const plugin: DurableInstrumentationPlugin = {
      onOperationEnd: async (info) => {
        if (info.type === 'CALLBACK') events.push(`end ${info.name} replay=${info.isReplay} status=${info.status}`);
      },
      onOperationChange: async (info) => {
        for (const op of Object.values(info.updatedOperations)) {
          if (op.type === 'CALLBACK') events.push(`change ${op.name} status=${op.status}`);
        }
      },
    };
    const runner = new LocalDurableTestRunner({
      handlerFunction: withDurableExecution(
        async (_event: unknown, ctx) =>
          (
            await ctx.parallel([
              (branch) =>
                branch.step('long', async () => {
                  // Long enough for the SDK to read the run again (every second) while it runs.
                  await new Promise((resolve) => setTimeout(resolve, 2500));
                  return 'long-done';
                }),
              async (branch) => {
                const [answer] = await branch.createCallback<string>('answer');
                return `answered ${await answer}`;
              },
            ])
          ).getResults(),
        { plugins: [plugin] },
      ),
    });
    const running = runner.run();
    await (await runner.getOperation('answer').waitForData()).sendCallbackSuccess('yes');
    const result = await running;
    expect(result.getResult()).toEqual(['long-done', 'answered yes']);
    expect(result.getInvocations()).toHaveLength(1);
    expect(events).toEqual([
      'change answer status=STARTED',
      'change answer status=SUCCEEDED',
      'end answer replay=false status=SUCCEEDED',
    ]);
  });

  it('starts a context re-entered on replay with isReplay true, and tells its wrap that its children replay', async () => {
    const events: string[] = [];
    const plugin: DurableInstrumentationPlugin = {
      onOperationStart: async (info) => {
        if (info.type === 'CONTEXT') events.push(`start ${info.name} replay=${info.isReplay}`);
      },
      wrapChildContextFn: (info, fn) => {
        events.push(`wrap ${info.name} replay=${info.isReplay} children=${info.isReplayingChildren}`);
        return fn();
      },
    };
    const handler = withDurableExecution(
      async (_e, ctx) =>
        ctx.runInChildContext('group', async (c) => {
          await c.step('inner', async () => 'x');
          await c.wait({ seconds: 2 });
          return 'grouped';
        }),
      { plugins: [plugin] },
    );
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getResult()).toBe('grouped');
    expect(events).toEqual([
      'start group replay=false',
      'wrap group replay=false children=false',
      'start group replay=true',
      'wrap group replay=false children=true',
    ]);
  });

  it('tells onOperationChange of each checkpoint answer that changes a status, with the full map', async () => {
    const changes: OperationChangeInfo[] = [];
    let arn = '';
    const plugin: DurableInstrumentationPlugin = {
      onInvocationStart: async (info) => {
        arn = info.executionArn;
      },
      onOperationChange: async (info) => {
        changes.push(info);
      },
    };
    const handler = withDurableExecution(async (_e, ctx) => ctx.step('greet', async () => 'hi'), {
      plugins: [plugin],
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getResult()).toBe('hi');
    const stepChanges = changes.flatMap((change) =>
      Object.values(change.updatedOperations)
        .filter((op) => op.type === 'STEP')
        .map((op) => ({ op, change })),
    );
    // The START is written before the code runs (eager starts), then the outcome.
    expect(stepChanges.map(({ op }) => op.status)).toEqual(['STARTED', 'SUCCEEDED']);
    const succeeded = stepChanges[1];
    expect(succeeded?.change.executionArn).toBe(arn);
    expect(succeeded?.op).toMatchObject({ name: 'greet', attempt: 1, result: '"hi"' });
    expect(succeeded?.op.endTimestamp).toBeInstanceOf(Date);
    expect(succeeded?.change.operations[succeeded.op.id]).toEqual(succeeded?.op);
    expect(Object.values(succeeded?.change.operations ?? {}).map((op) => op.type)).toContain('EXECUTION');
  });

  it('gives the end of an invocation its isFirstInvocation, and a step’s end its stored times', async () => {
    const firsts: boolean[] = [];
    const stepEnds: OperationInfo[] = [];
    const plugin: DurableInstrumentationPlugin = {
      onInvocationEnd: async (info) => {
        firsts.push(info.isFirstInvocation);
      },
      onOperationEnd: async (info) => {
        if (info.type === 'STEP') stepEnds.push(info);
      },
    };
    const handler = withDurableExecution(
      async (_e, ctx) => {
        const value = await ctx.step('greet', async () => 'task-a');
        await ctx.wait({ seconds: 2 });
        return value;
      },
      { plugins: [plugin] },
    );
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getResult()).toBe('task-a');
    expect(firsts).toEqual([true, false]);
    expect(stepEnds).toHaveLength(1);
    const stored = result.getOperations().find((op) => op.getName() === 'greet');
    expect(stepEnds[0]?.startTimestamp?.getTime()).toBe(stored?.getStartTimestamp()?.getTime());
    expect(stepEnds[0]?.endTimestamp).toBeInstanceOf(Date);
  });
});
