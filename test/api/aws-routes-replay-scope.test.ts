import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { createControlApi, toNodeListener } from '@durable-lambda/api';
import { Engine, MemoryStore, replayScope } from '@durable-lambda/engine';
import type { Operation } from '@durable-lambda/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AwsCheckpointSessions,
  type AwsInvocationInputWire,
  openAwsInvocation,
} from '../../packages/api/src/aws/aws-routes';
import { type AwsDurableSdk, importAwsSdk } from '../support/aws-sdk';

/**
 * The Lambda-shaped routes rebuild each request's session from the run's replay scope (the live
 * operations and one record per finished context), as the engine's own invocations do, and read
 * what sits under a finished context only when an update reaches there.
 */

type LambdaModule = typeof import('@aws-sdk/client-lambda');
const lambdaModule = createRequire(new URL('../../bench/package.json', import.meta.url))(
  '@aws-sdk/client-lambda',
) as LambdaModule;

/** Operations in the replay scope of a compat handler's finished child context (raise for a larger run). */
const STEPS = Number(process.env.AWS_REPLAY_SCOPE_STEPS ?? 40);

let now = Date.UTC(2026, 0, 1);
const clock = { now: () => now };

/** A real MemoryStore that records every read of operations: which call, how many it returned. */
class CountingStore extends MemoryStore {
  readonly reads: Array<{ call: 'loadOperations' | 'loadReplayOperations' | 'getOperation'; ops: number }> = [];
  override async loadOperations(runId: string): Promise<Operation[]> {
    const ops = await super.loadOperations(runId);
    this.reads.push({ call: 'loadOperations', ops: ops.length });
    return ops;
  }
  override async loadReplayOperations(runId: string): Promise<Operation[]> {
    const ops = await super.loadReplayOperations(runId);
    this.reads.push({ call: 'loadReplayOperations', ops: ops.length });
    return ops;
  }
  override async getOperation(runId: string, operationId: string): Promise<Operation | undefined> {
    const op = await super.getOperation(runId, operationId);
    this.reads.push({ call: 'getOperation', ops: op ? 1 : 0 });
    return op;
  }
}

/** One backend: an engine on its store behind the control API, with a Lambda client pointed at it. */
function backend<S extends MemoryStore>(store: S) {
  const engine = new Engine({ store, clock, waker: { wakeAt: async () => {} } });
  const server: Server = createServer(toNodeListener(createControlApi({ engine, functions: ['fn'] })));
  let lambda: InstanceType<LambdaModule['LambdaClient']> | undefined;
  return {
    store,
    engine,
    server,
    async listen() {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      lambda = new lambdaModule.LambdaClient({
        endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        region: 'us-east-1',
        credentials: { accessKeyId: 'AKIDFAKEFAKEFAKE', secretAccessKey: 'fake' },
        maxAttempts: 1,
      });
    },
    get lambda() {
      if (!lambda) throw new Error('not listening');
      return lambda;
    },
    async close() {
      lambda?.destroy();
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}

const counted = backend(new CountingStore(clock));
// The reference: a store without `loadReplayOperations`, so every request loads every operation
// (how the routes worked before the replay scope).
const wholeStore = new MemoryStore(clock);
(wholeStore as { loadReplayOperations?: unknown }).loadReplayOperations = undefined;
const whole = backend(wholeStore);

let aws: AwsDurableSdk;
beforeAll(async () => {
  aws = await importAwsSdk();
  await Promise.all([counted.listen(), whole.listen()]);
});
afterAll(async () => {
  await Promise.all([counted.close(), whole.close()]);
});

const context = (requestId: string) => ({
  callbackWaitsForEmptyEventLoop: false,
  functionName: 'fn',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:fn',
  memoryLimitInMB: '128',
  awsRequestId: requestId,
  logGroupName: '/aws/lambda/fn',
  logStreamName: 'local',
  // AWS's SDK then suspends at every wait: the test moves the clock.
  getRemainingTimeInMillis: () => 0,
  done: () => {},
  fail: () => {},
  succeed: () => {},
});

type AwsHandler = (input: AwsInvocationInputWire, ctx: ReturnType<typeof context>) => Promise<{ Status: string }>;

describe('the Lambda-shaped routes load the replay scope', () => {
  it("reads only the live operations at each request after a compat handler's child context finished", async () => {
    const { engine, store, lambda } = counted;
    const ran: string[] = [];
    const handler = aws.withDurableExecution(
      async (_event: unknown, ctx) => {
        const sum = await ctx.runInChildContext('batch', async (child) => {
          let total = 0;
          for (let i = 0; i < STEPS; i++) {
            total += await child.step(`s${i}`, async () => {
              ran.push(`s${i}`);
              return i;
            });
          }
          return total;
        });
        await ctx.wait('nap', { seconds: 5 });
        const a = await ctx.step('after-a', async () => 1);
        const b = await ctx.step('after-b', async () => 2);
        return sum + a + b;
      },
      { durableExecutionClient: new aws.DurableExecutionApiClient(lambda) },
    ) as unknown as AwsHandler;
    const { run: started } = await engine.startRun({ functionName: 'fn', input: '{}' });
    const sessions = new AwsCheckpointSessions(engine);
    const readsPerInvocation: Array<typeof store.reads> = [];
    const inputSizes: number[] = [];
    for (let i = 0; i < 5; i++) {
      const run = await engine.getRun(started.runId);
      if (run?.status !== 'RUNNING') break;
      if (run.nextWakeAt !== undefined) now = Math.max(now, run.nextWakeAt);
      const from = store.reads.length;
      const input = await openAwsInvocation(engine, started.runId, { remainingTimeMs: () => 60_000 });
      if (!input) throw new Error(`invocation ${i}: nothing to run`);
      inputSizes.push(input.InitialExecutionState.Operations.length);
      await sessions.close(input.CheckpointToken, await handler(input, context(`req-${i}`)));
      readsPerInvocation.push(store.reads.slice(from));
    }

    const ended = await engine.getRun(started.runId);
    expect(ended?.status).toBe('SUCCEEDED');
    expect(Number(ended?.result)).toBe((STEPS * (STEPS - 1)) / 2 + 3);
    // The child context's steps ran once: the resumed invocation replayed the context's result.
    expect(ran).toHaveLength(STEPS);
    expect(readsPerInvocation).toHaveLength(2);
    const all = await store.loadOperations(started.runId);
    const live = replayScope(all).length;
    expect(all.length).toBeGreaterThan(STEPS);
    expect(live).toBeLessThan(STEPS);
    const resumed = readsPerInvocation[1] ?? [];
    // Every request of the resumed invocation (its open, each checkpoint, its close) read the
    // replay scope and nothing more: no whole load, no read on demand.
    expect(resumed.filter((read) => read.call === 'loadReplayOperations').length).toBeGreaterThanOrEqual(3);
    expect(resumed.filter((read) => read.call !== 'loadReplayOperations')).toEqual([]);
    expect(Math.max(...resumed.map((read) => read.ops))).toBeLessThanOrEqual(live);
    // AWS's SDK is handed the same scope as its initial state: the context's record, not its steps.
    expect(inputSizes[1]).toBeLessThanOrEqual(live);
  });

  it('accepts updates of a parallel branch that checkpoints after its parallel finished, exactly as a whole load does', async () => {
    /** Plays one invocation's checkpoints (what AWS's SDK may send) on a backend; the answers in order. */
    const base = now + 3_600_000;
    const play = async (target: ReturnType<typeof backend<MemoryStore>>) => {
      // Both plays on the same clock readings, so their records compare whole.
      now = base;
      const { run } = await target.engine.startRun({ functionName: 'fn', input: '{}' });
      const input = await openAwsInvocation(target.engine, run.runId, { remainingTimeMs: () => 60_000 });
      if (!input) throw new Error('nothing to run');
      let token = input.CheckpointToken;
      const answers: unknown[] = [];
      const send = async (Updates: Array<Record<string, unknown>>) => {
        try {
          const answer = await target.lambda.send(
            new lambdaModule.CheckpointDurableExecutionCommand({
              DurableExecutionArn: input.DurableExecutionArn,
              CheckpointToken: token,
              Updates: Updates as never,
            }),
          );
          token = answer.CheckpointToken ?? token;
          const ops = answer.NewExecutionState?.Operations ?? [];
          answers.push(Updates.map((u) => ops.find((op) => op.Id === u.Id)?.Status));
        } catch (error) {
          answers.push(`${(error as Error).name}: ${(error as Error).message}`);
        }
      };
      const step = (Id: string, ParentId: string, Action: string, Payload?: string) => ({
        Id,
        ParentId,
        Type: 'STEP',
        SubType: 'Step',
        Action,
        Name: Id,
        ...(Payload === undefined ? {} : { Payload }),
      });
      const context = (
        Id: string,
        ParentId: string | undefined,
        SubType: string,
        Action: string,
        Payload?: string,
      ) => ({
        Id,
        ...(ParentId === undefined ? {} : { ParentId }),
        Type: 'CONTEXT',
        SubType,
        Action,
        Name: Id,
        ...(Payload === undefined ? {} : { Payload }),
      });
      await send([
        context('p', undefined, 'Parallel', 'START'),
        context('p-1', 'p', 'ParallelBranch', 'START'),
        context('p-2', 'p', 'ParallelBranch', 'START'),
        step('p-1-1', 'p-1', 'START'),
        step('p-2-1', 'p-2', 'START'),
      ]);
      now += 1_000;
      // The first branch wins: the parallel finishes with the second still running in-process.
      await send([
        step('p-1-1', 'p-1', 'SUCCEED', '"L"'),
        context('p-1', 'p', 'ParallelBranch', 'SUCCEED', '"L"'),
        context('p', undefined, 'Parallel', 'SUCCEED', '["L"]'),
      ]);
      now += 1_000;
      // The losing branch goes on: it ends a step it started, starts another, and nests a context.
      await send([
        step('p-2-1', 'p-2', 'SUCCEED', '"R"'),
        step('p-2-2', 'p-2', 'START'),
        context('p-2-3', 'p-2', 'RunInChildContext', 'START'),
        step('p-2-3-1', 'p-2-3', 'START'),
      ]);
      now += 1_000;
      // A later request: every operation it names sits under the finished parallel.
      await send([step('p-2-2', 'p-2', 'SUCCEED', '"R2"'), step('p-2-3-1', 'p-2-3', 'SUCCEED', '"R3"')]);
      // A stale update of a finished step is refused as before (the stored record was read).
      await send([step('p-2-1', 'p-2', 'SUCCEED', '"again"')]);
      const reads = target.store instanceof CountingStore ? [...target.store.reads] : [];
      const stored = (await target.store.loadOperations(run.runId)).filter((op) => op.Type !== 'EXECUTION');
      return { answers, stored, reads };
    };
    const reference = await play(whole);
    const from = counted.store.reads.length;
    const scoped = await play(counted);

    expect(
      reference.answers
        .slice(0, 4)
        .flat()
        .every((status) => typeof status === 'string'),
    ).toBe(true);
    expect(String(reference.answers[4])).toContain('already SUCCEEDED');
    expect(scoped.answers).toEqual(reference.answers);
    expect(scoped.stored).toEqual(reference.stored);
    expect(scoped.stored.find((op) => op.Id === 'p-2-2')?.StartTimestamp).toBeLessThan(
      scoped.stored.find((op) => op.Id === 'p-2-2')?.EndTimestamp ?? 0,
    );
    // What the replay load left out was read by id, and only for the requests that reached it.
    const reads = scoped.reads.slice(from);
    expect(reads.some((read) => read.call === 'getOperation')).toBe(true);
    expect(reads.some((read) => read.call === 'loadOperations')).toBe(false);
  });
});
