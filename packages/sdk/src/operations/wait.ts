import type { Scope } from '../context/scope';
import { type Duration, durationToMs, ONE_YEAR_MS } from '../duration';
import { InvalidArgumentError } from '../errors/invalid-argument';
import type { Demand } from '../runtime/waiters';
import { OperationSubType } from '../types/operation-enums';
import { isObject, splitNamed } from './arguments';
import { operationEnd, operationStart, replayedOperation } from './plugin-hooks';
import { parentOf } from './step';

/**
 * `context.wait`: a durable sleep of 1 s to 1 year. The first time, its START is stored with
 * the due time the engine computes; the invocation then suspends (or sleeps in-process when
 * the wait is short) and the wait completes on the engine's clock.
 */
export async function runWait(scope: Scope, args: readonly unknown[], demand?: Demand): Promise<void> {
  const { name, main, config } = splitNamed<Duration>(args, isObject, 'duration');
  if (config !== undefined) throw new InvalidArgumentError('wait', 'takes (name?, duration) only');
  const ms = durationToMs(main, 'duration', { maxMs: ONE_YEAR_MS });
  const id = scope.nextId();
  const runtime = scope.runtime;
  let record = runtime.find(id, 'WAIT', name, OperationSubType.WAIT);
  // Recorded by an earlier invocation: plugins hear of it again (ended, or still pending).
  if (record && scope.plugin.active) await replayedOperation(scope, record);
  if (record?.Status === 'SUCCEEDED') return;
  if (!record) {
    const start = {
      Id: id,
      Type: 'WAIT' as const,
      SubType: OperationSubType.WAIT,
      Action: 'START' as const,
      ...(name === undefined ? {} : { Name: name }),
      ...parentOf(scope),
      WaitOptions: { WaitSeconds: ms / 1000 },
    };
    if (ms > runtime.settings.inProcessWaitMs && !scope.plugin.active) {
      // Too long to sleep through here: the invocation will suspend on it, so its START may ride
      // with the suspension's write (one write, not two). Should it be written first after all
      // (other branches checkpoint meanwhile), the wait goes on from the stored record.
      const stored = runtime.checkpointDeferrable(start);
      await runtime.blockUntil(runtime.invocation.now() + ms, demand);
      record = await stored;
    } else {
      record = await runtime.checkpoint(start);
      await operationStart(scope, record);
    }
  }
  if (record.Status === 'SUCCEEDED') return;
  await runtime.blockUntil(record.WaitDetails?.ScheduledEndTimestamp, demand);
  await operationEnd(scope, { ...record, Status: 'SUCCEEDED', EndTimestamp: runtime.invocation.now() });
}
