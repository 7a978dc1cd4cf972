import { Engine, EngineDurableExecutionClient, type EngineSession, MemoryStore } from '@durable-lambda/engine';
import { VirtualClock } from '@durable-lambda/local';
import { describe, expect, it } from 'vitest';

/**
 * The compatibility transport answers each checkpoint with what changed: the operations the
 * checkpoint itself changed, plus those time changed (a wait that came due) and, on a poll, those
 * outside events changed. It never rescans every operation of the run at a checkpoint, which made
 * a run of AWS's SDK on our backend O(N²) in its steps.
 */

function world() {
  const clock = new VirtualClock(Date.UTC(2026, 5, 1));
  const store = new MemoryStore(clock);
  const engine = new Engine({ store, clock, waker: { wakeAt: async () => {} } });
  return { clock, store, engine };
}

/** The session, and how many times anyone read its whole operation list. */
async function countedSession(engine: Engine) {
  const { run } = await engine.startRun({ functionName: 'fn' });
  const session = await engine.openRun(run.runId, { remainingTimeMs: () => 60_000 });
  if (!session) throw new Error('run not opened');
  const reads = { operations: 0 };
  const counted = new Proxy(session, {
    get(target, key) {
      if (key === 'operations') reads.operations += 1;
      return Reflect.get(target, key, target);
    },
  }) as EngineSession;
  return { session: counted, reads };
}

async function send(client: EngineDurableExecutionClient, updates: Record<string, unknown>[]) {
  const response = await client.checkpoint({
    DurableExecutionArn: client.durableExecutionArn,
    CheckpointToken: client.checkpointToken,
    Updates: updates as never,
  });
  return (response.NewExecutionState?.Operations ?? []).map((op) => `${op.Id}:${op.Status}`);
}

describe('EngineDurableExecutionClient answers', () => {
  it('carry exactly the operations each checkpoint changed, without reading every operation', async () => {
    const { engine } = world();
    const { session, reads } = await countedSession(engine);
    const client = new EngineDurableExecutionClient(session);
    client.initialState();
    const before = reads.operations;
    const answers: string[][] = [];
    // AWS's SDK's pattern: each step's START rides with the previous step's SUCCEED.
    answers.push(await send(client, [{ Id: 's0', Type: 'STEP', SubType: 'Step', Action: 'START', Name: 's0' }]));
    for (let i = 1; i < 40; i++) {
      answers.push(
        await send(client, [
          { Id: `s${i - 1}`, Type: 'STEP', SubType: 'Step', Action: 'SUCCEED', Payload: String(i - 1) },
          { Id: `s${i}`, Type: 'STEP', SubType: 'Step', Action: 'START', Name: `s${i}` },
        ]),
      );
    }
    expect(answers[0]).toEqual(['s0:STARTED']);
    for (let i = 1; i < 40; i++) expect(answers[i]).toEqual([`s${i - 1}:SUCCEEDED`, `s${i}:STARTED`]);
    // The old transport read the whole list at every checkpoint (O(N) a step, O(N²) a run).
    expect(reads.operations - before).toBe(0);
  });

  it('also carry a wait that time ended since the last checkpoint, once', async () => {
    const { engine, clock } = world();
    const { session, reads } = await countedSession(engine);
    const client = new EngineDurableExecutionClient(session);
    client.initialState();
    const before = reads.operations;
    expect(
      await send(client, [
        { Id: 'w', Type: 'WAIT', SubType: 'Wait', Action: 'START', WaitOptions: { WaitSeconds: 5 } },
      ]),
    ).toEqual(['w:STARTED']);
    clock.advanceTo(clock.now() + 6_000);
    expect(await send(client, [{ Id: 'a', Type: 'STEP', SubType: 'Step', Action: 'START' }])).toEqual([
      'a:STARTED',
      'w:SUCCEEDED',
    ]);
    // Told once: the next answer has only its own change.
    expect(await send(client, [{ Id: 'a', Type: 'STEP', SubType: 'Step', Action: 'SUCCEED' }])).toEqual([
      'a:SUCCEEDED',
    ]);
    expect(reads.operations - before).toBe(0);
  });

  it('to a poll carry what an outside event changed (a callback completed), and nothing else', async () => {
    const { engine } = world();
    const { session } = await countedSession(engine);
    const client = new EngineDurableExecutionClient(session);
    client.initialState();
    await send(client, [{ Id: 'x', Type: 'STEP', SubType: 'Step', Action: 'START' }]);
    expect(await send(client, [{ Id: 'cb', Type: 'CALLBACK', SubType: 'Callback', Action: 'START' }])).toEqual([
      'cb:STARTED',
    ]);
    const callbackId = (await engine.getOperations(session.runId)).find((op) => op.Id === 'cb')?.CallbackDetails
      ?.CallbackId;
    if (!callbackId) throw new Error('no callback id');
    await engine.sendCallbackSuccess(callbackId, '"done"');
    // AWS's SDK polls with an empty checkpoint: only the completed callback is news.
    expect(await send(client, [])).toEqual(['cb:SUCCEEDED']);
    expect(await send(client, [])).toEqual([]);
  });
});
