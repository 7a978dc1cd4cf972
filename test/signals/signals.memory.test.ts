import { Engine, MemoryStore } from '@durable-lambda/engine';
import { CheckpointRejectedError } from '@durable-lambda/protocol';
import { describe, expect, it } from 'vitest';
import { describeSignalSemantics } from './signal-semantics';

describeSignalSemantics('MemoryStore', (clock) => new MemoryStore(clock));

describe('a signal wait started by another client', () => {
  it('is refused by the engine when its name is one no signal can have', async () => {
    const engine = new Engine({ store: new MemoryStore(), waker: { wakeAt: async () => {} } });
    const { run } = await engine.startRun({ functionName: 'fn' });
    const session = await engine.openRun(run.runId);
    if (!session) throw new Error('not opened');
    const start = {
      Id: '1',
      Type: 'CALLBACK',
      SubType: 'WaitForSignal',
      Action: 'START',
      CallbackOptions: {},
    } as const;
    await expect(session.checkpoint([{ ...start, Name: 'no spaces' }])).rejects.toMatchObject({
      code: 'checkpoint_rejected',
      message: expect.stringContaining('Name: must start with a letter or digit'),
    });
    await expect(session.checkpoint([{ ...start }])).rejects.toBeInstanceOf(CheckpointRejectedError);
    expect(await session.checkpoint([{ ...start, Name: 'ok' }])).toMatchObject([{ Status: 'STARTED', Name: 'ok' }]);
  });
});
