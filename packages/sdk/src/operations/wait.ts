import type { Scope } from '../context/scope';
import { type Duration, durationToMs, ONE_YEAR_MS } from '../duration';
import { InvalidArgumentError } from '../errors/invalid-argument';
import { OperationSubType } from '../types/operation-enums';
import { isObject, splitNamed } from './arguments';
import { operationEnd, operationStart } from './plugin-hooks';
import { parentOf } from './step';

/**
 * `context.wait`: a durable sleep of 1 s to 1 year. The first time, its START is stored with
 * the due time the engine computes; the invocation then suspends (or sleeps in-process when
 * the wait is short) and the wait completes on the engine's clock.
 */
export async function runWait(scope: Scope, args: readonly unknown[]): Promise<void> {
  const { name, main, config } = splitNamed<Duration>(args, isObject, 'duration');
  if (config !== undefined) throw new InvalidArgumentError('wait', 'takes (name?, duration) only');
  const ms = durationToMs(main, 'duration', { maxMs: ONE_YEAR_MS });
  const id = scope.nextId();
  const runtime = scope.runtime;
  let record = runtime.find(id, 'WAIT', name, OperationSubType.WAIT);
  if (record?.Status === 'SUCCEEDED') return;
  if (!record) {
    record = await runtime.checkpoint({
      Id: id,
      Type: 'WAIT',
      SubType: OperationSubType.WAIT,
      Action: 'START',
      ...(name === undefined ? {} : { Name: name }),
      ...parentOf(scope),
      WaitOptions: { WaitSeconds: ms / 1000 },
    });
    await operationStart(scope, record);
  }
  if (record.Status === 'SUCCEEDED') return;
  await runtime.blockUntil(record.WaitDetails?.ScheduledEndTimestamp);
  await operationEnd(scope, { ...record, Status: 'SUCCEEDED', EndTimestamp: runtime.invocation.now() });
}
