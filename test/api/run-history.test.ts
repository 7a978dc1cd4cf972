/**
 * What `GET /v1/runs/{runId}/operations` and `GET /v1/runs` tell a developer debugging a run,
 * on a store without a journal (MemoryStore, like DynamoDB): stack traces of stored errors,
 * operations abandoned by the run's end or by a finished context, map results decoded (not
 * JSON strings inside JSON), batch items counted by status, step durations from their last
 * attempt, what running runs wait for, and the search by run id or run key.
 */
import { RetryAfterError } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';
import { ApiFixture, durable, runWaitingOnCallback } from './support';

type Op = { name?: string; type: string; subType?: string; [key: string]: any };
const history = async (f: ApiFixture, runId: string) =>
  (await f.call('GET', `/v1/runs/${runId}/operations`)).json as { operations: Op[]; logs?: unknown };
const named = (ops: Op[], name: string) => ops.find((op) => op.name === name) as Op;

describe('GET /v1/runs/{runId}/operations', () => {
  it("shows a stored error's stack trace, one frame a line, on the operation and the run", async () => {
    const f = new ApiFixture();
    const runId = await f.start('fn');
    const frames = ['Error: boom', '    at charge (/app/handler.ts:12:11)', '    at step (/app/sdk.ts:40:3)'];
    const run = await f.engine.getRun(runId);
    await f.store.commit(runId, run?.fence ?? 0, {
      operations: [
        {
          Id: '1',
          Type: 'STEP',
          Name: 'charge',
          Status: 'FAILED',
          StartTimestamp: f.clock.now(),
          EndTimestamp: f.clock.now(),
          StepDetails: {
            Attempt: 1,
            Error: { ErrorType: 'Error', ErrorMessage: 'boom', ErrorCode: 'step_failed', StackTrace: frames },
          },
        },
      ],
      run: { status: 'FAILED', endedAt: f.clock.now(), error: { ErrorMessage: 'boom', StackTrace: frames } },
    });
    const { operations } = await history(f, runId);
    expect(named(operations, 'charge').error).toEqual({
      code: 'step_failed',
      message: 'boom',
      type: 'Error',
      stackTrace: frames,
    });
    expect((await f.call('GET', `/v1/runs/${runId}`)).json.error.stackTrace).toEqual(frames);
  });

  it("marks a cancelled run's pending wait as abandoned by the run's end, not as pending", async () => {
    const f = new ApiFixture();
    const handler = durable(async (_e, ctx) => {
      await ctx.wait('window', { minutes: 30 });
      return 'never';
    });
    const runId = await f.start('fn');
    await f.drive(runId, handler);
    expect(named((await history(f, runId)).operations, 'window').abandoned).toBeUndefined();
    await f.engine.cancelRun(runId);
    expect(named((await history(f, runId)).operations, 'window')).toMatchObject({
      status: 'STARTED',
      abandoned: 'run_ended',
    });
  });

  it("marks a race's losing branch as abandoned by its finished context, and counts the items by status", async () => {
    const f = new ApiFixture();
    const handler = durable(async (_e, ctx) => {
      const batch = await ctx.parallel(
        'race',
        [
          { name: 'fast', func: async (c) => c.step('quick', async () => 'won') },
          {
            name: 'slow',
            func: async (c) => {
              await c.wait('forever', { days: 1 });
              return 'lost';
            },
          },
        ],
        { completionConfig: { minSuccessful: 1 } },
      );
      return batch.getResults();
    });
    const runId = await f.start('fn');
    await f.drive(runId, handler);
    expect(await f.engine.getRun(runId)).toMatchObject({ status: 'SUCCEEDED' });
    const { operations } = await history(f, runId);
    expect(named(operations, 'forever')).toMatchObject({ status: 'STARTED', abandoned: 'context_ended' });
    expect(named(operations, 'slow')).toMatchObject({ status: 'STARTED', abandoned: 'context_ended' });
    expect(named(operations, 'fast').abandoned).toBeUndefined();
    expect(named(operations, 'race').items).toEqual({ total: 2, byStatus: { SUCCEEDED: 1, ABANDONED: 1 } });
  });

  it("decodes a map's item results: values, not JSON strings", async () => {
    const f = new ApiFixture();
    const handler = durable(async (_e, ctx) => {
      const batch = await ctx.map('double', [1, 2, 3], async (c, n) =>
        c.step(`x${n}`, async () => ({ n, twice: n * 2 })),
      );
      return batch.getResults().length;
    });
    const runId = await f.start('fn');
    await f.drive(runId, handler);
    const map = named((await history(f, runId)).operations, 'double');
    expect(map.items).toEqual({ total: 3, byStatus: { SUCCEEDED: 3 } });
    expect(map.result.items.map((item: { result: unknown }) => item.result)).toEqual([
      { n: 1, twice: 2 },
      { n: 2, twice: 4 },
      { n: 3, twice: 6 },
    ]);
    expect(JSON.stringify(map.result)).not.toContain('\\"');
  });

  it('claims no duration for a step that succeeded after a backoff when invocations are not recorded', async () => {
    const f = new ApiFixture();
    const handler = durable(async (_e, ctx) =>
      ctx.step('charge', async (step) => {
        if (step.attempt === 1) throw new RetryAfterError('rate limited', { minutes: 5 });
        return 'ok';
      }),
    );
    const runId = await f.start('fn');
    await f.drive(runId, handler);
    await f.drive(runId, handler); // five virtual minutes later
    const step = named((await history(f, runId)).operations, 'charge');
    expect(step.status).toBe('SUCCEEDED');
    expect(Date.parse(step.endedAt) - Date.parse(step.startedAt)).toBe(5 * 60_000);
    // Its last attempt began after the backoff, but when exactly only the invocation tells.
    expect(step.durationMs).toBeUndefined();
    expect(step.activeFrom).toBe(step.failedAttempts[0].at);
  });
});

describe('GET /v1/runs: waiting for, and search', () => {
  it('says what each running run waits for, with include=waitingFor', async () => {
    const f = new ApiFixture();
    const waits = durable(async (_e, ctx) => ctx.wait('nap', { hours: 2 }));
    const backsOff = durable(async (_e, ctx) =>
      ctx.step('call', async () => {
        throw new RetryAfterError('busy', { minutes: 10 });
      }),
    );
    const napping = await f.start('fn', { which: 'nap' });
    await f.drive(napping, waits);
    const retrying = await f.start('fn', { which: 'retry' });
    await f.drive(retrying, backsOff);
    const { runId: calling, callbackId } = await runWaitingOnCallback(f);

    const list = await f.call('GET', '/v1/runs', { query: { include: 'waitingFor' } });
    expect(list.status).toBe(200);
    const byId = new Map(
      list.json.runs.map((run: { runId: string; waitingFor: unknown }) => [run.runId, run.waitingFor]),
    );
    const now = f.clock.now();
    expect(byId.get(napping)).toEqual([
      { kind: 'wait', operationId: expect.any(String), name: 'nap', at: new Date(now + 2 * 3_600_000).toISOString() },
    ]);
    expect((byId.get(retrying) as Array<{ kind: string; name: string }>)[0]).toMatchObject({
      kind: 'retry',
      name: 'call',
    });
    expect(byId.get(calling)).toEqual([
      { kind: 'callback', operationId: expect.any(String), name: 'approval', callbackId },
    ]);
    // Without include, runs come as before.
    expect((await f.call('GET', '/v1/runs')).json.runs[0].waitingFor).toBeUndefined();
    expect((await f.call('GET', '/v1/runs', { query: { include: 'everything' } })).json.error).toMatchObject({
      code: 'invalid_argument',
      message: expect.stringMatching(/^include:/),
    });
  });

  it('finds a run by its id or by its run key, within the other filters', async () => {
    const f = new ApiFixture();
    const plain = await f.start('fn');
    const keyed = await f.start('other', { a: 1 }, { runKey: 'order-1001' });
    const search = async (text: string, extra: Record<string, string> = {}) =>
      (
        (await f.call('GET', '/v1/runs', { query: { search: text, ...extra } })).json.runs as Array<{ runId: string }>
      ).map((run) => run.runId);
    expect(await search(plain)).toEqual([plain]);
    expect(await search('order-1001')).toEqual([keyed]);
    expect(await search(keyed)).toEqual([keyed]);
    expect(await search('order-1001', { function: 'fn' })).toEqual([]);
    expect(await search('no-such-run')).toEqual([]);
    const tooLong = await f.call('GET', '/v1/runs', { query: { search: 'x'.repeat(257) } });
    expect(tooLong.json.error).toMatchObject({ code: 'invalid_argument', message: expect.stringMatching(/^search:/) });
  });
});
