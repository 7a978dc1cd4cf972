import { CheckpointDurableExecutionCommand, GetDurableExecutionStateCommand } from '@aws-sdk/client-lambda';
import { LocalDurableTestRunner } from '@durable-lambda/local';
import {
  DurableExecutionApiClient,
  DurableExecutionClientError,
  DurableExecutionClientErrorScope,
  type DurableLogger,
  InvocationStatus,
  isDurableExecutionClientError,
  OperationSubType,
  refreshLogConfig,
  withDurableExecution,
} from '@durable-lambda/sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';

describe('DurableExecutionClientError (AWS’s)', () => {
  it('defaults to the invocation scope and keeps its cause', () => {
    const cause = new Error('socket hang up');
    const error = new DurableExecutionClientError('checkpoint failed', { cause });
    expect(error).toMatchObject({
      name: 'DurableExecutionClientError',
      message: 'checkpoint failed',
      scope: DurableExecutionClientErrorScope.INVOCATION,
      isDurableExecutionClientError: true,
    });
    expect(error.cause).toBe(cause);
    expect(isDurableExecutionClientError(error)).toBe(true);
  });

  it('fails the run when handler code throws one with the execution scope, like any handler error', async () => {
    const handler = withDurableExecution(async () => {
      throw new DurableExecutionClientError('gone', { scope: DurableExecutionClientErrorScope.EXECUTION });
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getStatus()).toBe('FAILED');
    expect(result.getError()).toMatchObject({ errorType: 'DurableExecutionClientError', errorMessage: 'gone' });
  });
});

describe('DurableExecutionApiClient (AWS’s Lambda transport)', () => {
  /** A Lambda client that records the commands sent and answers with `reply`. */
  const lambdaClient = (reply: (command: unknown) => unknown) => {
    const sent: unknown[] = [];
    return {
      sent,
      send: async (command: unknown) => {
        sent.push(command);
        return reply(command);
      },
    };
  };

  it('sends GetDurableExecutionState and CheckpointDurableExecution with the request’s fields', async () => {
    const client = lambdaClient((command) =>
      command instanceof GetDurableExecutionStateCommand
        ? { Operations: [], NextMarker: 'next' }
        : { CheckpointToken: 't2', NewExecutionState: { Operations: [] } },
    );
    const api = new DurableExecutionApiClient(client);
    const state = await api.getExecutionState({
      DurableExecutionArn: 'arn:x',
      CheckpointToken: 't1',
      Marker: 'm',
      MaxItems: 10,
    });
    const checkpoint = await api.checkpoint({
      DurableExecutionArn: 'arn:x',
      CheckpointToken: 't1',
      ClientToken: 'c',
      Updates: [{ Id: '1', Type: 'STEP', Action: 'START' }],
    });
    expect(state).toEqual({ Operations: [], NextMarker: 'next' });
    expect(checkpoint).toMatchObject({ CheckpointToken: 't2' });
    const [get, put] = client.sent as [GetDurableExecutionStateCommand, CheckpointDurableExecutionCommand];
    expect(get).toBeInstanceOf(GetDurableExecutionStateCommand);
    expect(get.input).toEqual({ DurableExecutionArn: 'arn:x', CheckpointToken: 't1', Marker: 'm', MaxItems: 10 });
    expect(put).toBeInstanceOf(CheckpointDurableExecutionCommand);
    expect(put.input).toMatchObject({ ClientToken: 'c', Updates: [{ Id: '1', Type: 'STEP', Action: 'START' }] });
  });

  it('reports a failed call to the given logger and rethrows it', async () => {
    const failure = Object.assign(new Error('throttled'), { $metadata: { requestId: 'req-1' } });
    const api = new DurableExecutionApiClient(
      lambdaClient(() => {
        throw failure;
      }),
    );
    const logged: unknown[][] = [];
    const logger: DurableLogger = {
      error: (...params: unknown[]) => logged.push(params),
      warn: () => {},
      info: () => {},
      debug: () => {},
    };
    await expect(api.checkpoint({ DurableExecutionArn: 'a', CheckpointToken: 't' }, logger)).rejects.toBe(failure);
    expect(logged).toEqual([['Failed to checkpoint durable execution', failure, { requestId: 'req-1' }]]);
  });
});

describe('AWS’s enumerations as the SDK uses them', () => {
  it('stores operations with OperationSubType’s values and ends invocations with InvocationStatus’s', async () => {
    const handler = withDurableExecution(async (_e, ctx) => {
      await ctx.step('s', async () => 1);
      await ctx.wait('w', { seconds: 1 });
      await ctx.runInChildContext('c', async () => 2);
      return 'ok';
    });
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    const result = await runner.run();
    expect(result.getStatus()).toBe(InvocationStatus.SUCCEEDED);
    const subType = (name: string) => runner.getOperation(name).getOperationData()?.SubType;
    expect([subType('s'), subType('w'), subType('c')]).toEqual([
      OperationSubType.STEP,
      OperationSubType.WAIT,
      OperationSubType.RUN_IN_CHILD_CONTEXT,
    ]);
  });
});

describe('refreshLogConfig (AWS’s): DURABLE_VERBOSE_MODE', () => {
  const saved = process.env.DURABLE_VERBOSE_MODE;
  afterEach(() => {
    if (saved === undefined) delete process.env.DURABLE_VERBOSE_MODE;
    else process.env.DURABLE_VERBOSE_MODE = saved;
    refreshLogConfig();
    vi.restoreAllMocks();
  });

  const run = async () => {
    const lines: string[] = [];
    vi.spyOn(console, 'debug').mockImplementation((...args: unknown[]) => {
      lines.push(String(args[0]));
    });
    const handler = withDurableExecution(async (_e, ctx) => {
      await ctx.wait({ seconds: 1 });
      return 'ok';
    });
    await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    vi.restoreAllMocks();
    return lines;
  };

  it('writes the runtime’s decisions to console.debug once the variable is set and re-read, and stops when cleared', async () => {
    process.env.DURABLE_VERBOSE_MODE = 'true';
    refreshLogConfig();
    const verbose = await run();
    expect(verbose).toEqual(expect.arrayContaining(['[durable-lambda] checkpoint', '[durable-lambda] suspending']));
    delete process.env.DURABLE_VERBOSE_MODE;
    // Read once: until refreshed, the runtime keeps the earlier setting.
    expect((await run()).length).toBeGreaterThan(0);
    refreshLogConfig();
    expect(await run()).toEqual([]);
  });
});
