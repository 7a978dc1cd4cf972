import {
  AwsTransportError,
  DurableExecutionInvocationInputWithClient,
  Engine,
  EngineDurableExecutionClient,
  fromAwsOutput,
  MemoryStore,
  runAwsDurableHandler,
  toAwsOperation,
} from '@durable-lambda/engine';
import { VirtualClock } from '@durable-lambda/local';
import type { Operation } from '@durable-lambda/protocol';
import { beforeAll, describe, expect, it } from 'vitest';
import { type AwsDurableSdk, type AwsSdk, importAwsSdk } from '../support/aws-sdk';

/**
 * Our transport for AWS's SDK, checked against AWS's own types and runtime: the shapes it hands
 * out, paging, tokens, and how its failures are classified by AWS's `isDurableExecutionClientError`.
 */

let aws: AwsDurableSdk;

beforeAll(async () => {
  aws = await importAwsSdk();
});

function world() {
  const clock = new VirtualClock(Date.UTC(2026, 5, 1));
  const store = new MemoryStore(clock);
  const engine = new Engine({ store, clock, waker: { wakeAt: async () => {} } });
  return { clock, store, engine };
}

async function opened(engine: Engine, input?: string) {
  const { run } = await engine.startRun({ functionName: 'fn', ...(input === undefined ? {} : { input }) });
  const session = await engine.openRun(run.runId, { remainingTimeMs: () => 60_000 });
  if (!session) throw new Error('run not opened');
  return session;
}

describe('EngineDurableExecutionClient', () => {
  it("is AWS's DurableExecutionClient and its input is recognised as AWS's input with a client", async () => {
    const { engine } = world();
    const session = await opened(engine, '{"a":1}');
    const client = new EngineDurableExecutionClient(session);
    // Compile-time: our transport and input are AWS's types, structurally.
    const asAws: AwsSdk.DurableExecutionClient = client;
    const input = new DurableExecutionInvocationInputWithClient(
      client.durableExecutionArn,
      client.checkpointToken,
      client.initialState(),
      client,
    );
    const asInput: AwsSdk.DurableExecutionInvocationInput = input;
    expect(asAws).toBe(client);
    expect(aws.DurableExecutionInvocationInputWithClient.isInstance(asInput)).toBe(true);
    expect(input.InitialExecutionState.Operations[0]).toMatchObject({
      Type: 'EXECUTION',
      Status: 'STARTED',
      ExecutionDetails: { InputPayload: '{"a":1}' },
    });
    expect(input.InitialExecutionState.Operations[0]?.StartTimestamp).toBeInstanceOf(Date);
  });

  it("maps each operation field to AWS's names: Date timestamps, finished attempts, no codes of ours", () => {
    const step: Operation = {
      Id: 's1',
      ParentId: 'p',
      Name: 'charge',
      Type: 'STEP',
      SubType: 'Step',
      Status: 'PENDING',
      StartTimestamp: 1000,
      StepDetails: {
        Attempt: 2,
        NextAttemptTimestamp: 5000,
        Error: { ErrorType: 'Error', ErrorMessage: 'busy', ErrorCode: 'step_failed', StackTrace: ['at x'] },
        FailedAttempts: [{ Attempt: 2, Timestamp: 4000, Error: { ErrorMessage: 'busy' } }],
      },
    };
    expect(toAwsOperation(step)).toEqual({
      Id: 's1',
      ParentId: 'p',
      Name: 'charge',
      Type: 'STEP',
      SubType: 'Step',
      Status: 'PENDING',
      StartTimestamp: new Date(1000),
      StepDetails: {
        Attempt: 2,
        NextAttemptTimestamp: new Date(5000),
        Error: { ErrorType: 'Error', ErrorMessage: 'busy', StackTrace: ['at x'] },
      },
    });
    // The note our engine keeps with a RETRY where nothing failed is not AWS's to see.
    const note = { ErrorType: 'WaitForConditionContinue', ErrorCode: 'wait_for_condition_continue' };
    expect(
      toAwsOperation({ ...step, StepDetails: { Attempt: 1, Result: '{"n":1}', Error: note } }).StepDetails,
    ).toEqual({ Attempt: 1, Result: '{"n":1}' });
    // A started attempt is not finished: AWS's SDK runs attempt `Attempt + 1`.
    expect(toAwsOperation({ ...step, Status: 'STARTED', StepDetails: { Attempt: 1 } }).StepDetails).toEqual({});
    expect(
      toAwsOperation({
        Id: 'c',
        Type: 'CALLBACK',
        Status: 'SUCCEEDED',
        StartTimestamp: 1,
        EndTimestamp: 2,
        CallbackDetails: { CallbackId: 'cb', Result: 'ok', TimeoutTimestamp: 9, HeartbeatDeadline: 8 },
      }),
    ).toEqual({
      Id: 'c',
      Type: 'CALLBACK',
      Status: 'SUCCEEDED',
      StartTimestamp: new Date(1),
      EndTimestamp: new Date(2),
      CallbackDetails: { CallbackId: 'cb', Result: 'ok' },
    });
    expect(
      toAwsOperation({
        Id: 'i',
        Type: 'CHAINED_INVOKE',
        Status: 'FAILED',
        StartTimestamp: 1,
        ChainedInvokeDetails: { FunctionName: 'f', ChildRunId: 'r', Input: '{}', Error: { ErrorMessage: 'x' } },
      }).ChainedInvokeDetails,
    ).toEqual({ Error: { ErrorMessage: 'x' } });
    expect(
      toAwsOperation({
        Id: 'w',
        Type: 'WAIT',
        Status: 'STARTED',
        StartTimestamp: 1,
        WaitDetails: { ScheduledEndTimestamp: 7 },
      }).WaitDetails,
    ).toEqual({ ScheduledEndTimestamp: new Date(7) });
  });

  it('applies AWS updates and answers with a new token and the operations they changed', async () => {
    const { engine } = world();
    const session = await opened(engine);
    const client = new EngineDurableExecutionClient(session);
    client.initialState();
    const first = client.checkpointToken;
    const response = await client.checkpoint({
      DurableExecutionArn: client.durableExecutionArn,
      CheckpointToken: first,
      Updates: [
        { Id: 'h1', Type: 'STEP', SubType: 'Step', Action: 'START', Name: 'one' },
        { Id: 'h2', Type: 'WAIT', SubType: 'Wait', Action: 'START', WaitOptions: { WaitSeconds: 60 } },
      ],
    });
    expect(response.CheckpointToken).not.toBe(first);
    expect(response.NewExecutionState?.Operations?.map((op) => [op.Id, op.Status])).toEqual([
      ['h1', 'STARTED'],
      ['h2', 'STARTED'],
    ]);
    expect(response.NewExecutionState?.Operations?.[1]?.WaitDetails?.ScheduledEndTimestamp).toEqual(
      new Date(session.now() + 60_000),
    );
    // The token it replaced is stale, which AWS's SDK reads as the end of this invocation only.
    const stale = await client
      .checkpoint({ DurableExecutionArn: client.durableExecutionArn, CheckpointToken: first, Updates: [] })
      .catch((error: unknown) => error);
    expect(aws.isDurableExecutionClientError(stale)).toBe(true);
    expect(stale).toMatchObject({ scope: 'INVOCATION', code: 'stale_checkpoint_token' });
  });

  it('refuses an update the engine rejects as ending the execution, naming the field of a malformed one', async () => {
    const { engine } = world();
    const session = await opened(engine);
    const client = new EngineDurableExecutionClient(session);
    const arn = client.durableExecutionArn;
    await client.checkpoint({
      DurableExecutionArn: arn,
      CheckpointToken: client.checkpointToken,
      Updates: [{ Id: 'h1', Type: 'STEP', Action: 'START' }],
    });
    const again = await client
      .checkpoint({
        DurableExecutionArn: arn,
        CheckpointToken: client.checkpointToken,
        Updates: [{ Id: 'h1', Type: 'STEP', Action: 'START' }],
      })
      .catch((error: unknown) => error);
    expect(again).toBeInstanceOf(AwsTransportError);
    expect(again).toMatchObject({ scope: 'EXECUTION', code: 'checkpoint_rejected' });
    const malformed = await client
      .checkpoint({
        DurableExecutionArn: arn,
        CheckpointToken: client.checkpointToken,
        Updates: [{ Id: undefined, Type: 'STEP', Action: 'START' }],
      })
      .catch((error: unknown) => error);
    expect(malformed).toMatchObject({ scope: 'EXECUTION', code: 'invalid_argument' });
    expect((malformed as Error).message).toContain('Updates[0].Id');
  });

  it('reports a write fenced by a newer invocation as a stale token, and the invocation as fenced', async () => {
    const { engine, clock } = world();
    const session = await opened(engine);
    const client = new EngineDurableExecutionClient(session);
    clock.advanceTo(clock.now() + 3_600_000);
    const newer = await engine.openRun(session.runId, { remainingTimeMs: () => 60_000 });
    expect(newer).toBeDefined();
    const fenced = await client
      .checkpoint({
        DurableExecutionArn: client.durableExecutionArn,
        CheckpointToken: client.checkpointToken,
        Updates: [{ Id: 'h1', Type: 'STEP', Action: 'START' }],
      })
      .catch((error: unknown) => error);
    expect(aws.isDurableExecutionClientError(fenced)).toBe(true);
    expect(fenced).toMatchObject({ scope: 'INVOCATION', code: 'stale_checkpoint_token' });
    expect((fenced as Error).message).toMatch(/^Invalid Checkpoint Token/);
    expect(client.fenced).toBe(true);
  });

  it("pages the run's state, and AWS's SDK reads every page before it replays", async () => {
    const { engine, clock } = world();
    let runs = 0;
    const handler = aws.withDurableExecution(async (_event: unknown, ctx) => {
      const values: number[] = [];
      for (let i = 0; i < 5; i++) {
        values.push(
          await ctx.step(`s${i}`, async () => {
            runs += 1;
            return i;
          }),
        );
      }
      await ctx.wait({ seconds: 10 });
      return values;
    });
    const first = await opened(engine);
    const runId = first.runId;
    const one = await runAwsDurableHandler(handler, first, {}, { pageSize: 2, remainingTimeMs: () => 0 });
    expect(one).toEqual({ type: 'completed', output: { Status: 'PENDING' } });
    if (one.type === 'completed') await first.close(one.output);
    clock.advanceTo(clock.now() + 10_000);
    const second = await engine.openRun(runId, { remainingTimeMs: () => 60_000 });
    if (!second) throw new Error('run not reopened');
    const client = new EngineDurableExecutionClient(second, { pageSize: 2 });
    const page = client.initialState();
    expect([page.Operations.length, page.NextMarker]).toEqual([2, '2']);
    const next = await client.getExecutionState({
      DurableExecutionArn: client.durableExecutionArn,
      CheckpointToken: client.checkpointToken,
      Marker: page.NextMarker,
    });
    expect([next.Operations?.length, next.NextMarker]).toEqual([2, '4']);
    const two = await runAwsDurableHandler(handler, second, {}, { pageSize: 2 });
    expect(two).toEqual({ type: 'completed', output: { Status: 'SUCCEEDED', Result: '[0,1,2,3,4]' } });
    // Every step replayed from the pages: none ran twice.
    expect(runs).toBe(5);
  });

  it('keeps a result AWS checkpointed as an EXECUTION update for the run instead of writing it as an operation', async () => {
    const { engine } = world();
    const session = await opened(engine);
    const client = new EngineDurableExecutionClient(session);
    await client.checkpoint({
      DurableExecutionArn: client.durableExecutionArn,
      CheckpointToken: client.checkpointToken,
      Updates: [{ Id: 'big', Type: 'EXECUTION', Action: 'SUCCEED', Payload: '"large"' }],
    });
    expect(client.checkpointedResult).toBe('"large"');
    expect(session.operations.map((op) => op.Id)).toEqual(['0']);
    expect(fromAwsOutput({ Status: 'SUCCEEDED', Result: '' }, client.checkpointedResult)).toEqual({
      Status: 'SUCCEEDED',
      Result: '"large"',
    });
    expect(fromAwsOutput({ Status: 'FAILED', Error: { ErrorType: 'E', ErrorMessage: 'm' } })).toEqual({
      Status: 'FAILED',
      Error: { ErrorType: 'E', ErrorMessage: 'm' },
    });
    expect(fromAwsOutput({ Status: 'DONE' })).toMatchObject({
      Status: 'FAILED',
      Error: { ErrorCode: 'invalid_handler_output' },
    });
  });
});
