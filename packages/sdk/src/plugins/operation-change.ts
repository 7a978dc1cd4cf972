import type { DurableInvocation, Operation, OperationUpdate } from '@durable-lambda/protocol';
import { executionArnOf } from '../runtime/execution-arn';
import type { OperationInfo } from '../types/plugin';
import { toOperationInfoMap } from './operation-info';
import type { PluginRunner } from './runner';

/**
 * AWS's `onOperationChange`: each time the backend answers a checkpoint, the operations whose
 * status the answer changed (against what the invocation knew: the state it loaded and every
 * answer since) are reported, with the run's full operation map, and the hook is awaited before
 * the checkpoint resolves, as AWS's SDK awaits it while merging the answer. A step's START and
 * its outcome written in one checkpoint report the outcome only (AWS's batching does the same);
 * operations a re-read of the run finds changed (a callback completed while the invocation ran)
 * are reported the same way.
 *
 * Done by wrapping the invocation the runtime is given, so the runtime and its checkpoint queue
 * are the same with and without plugins: only a function whose plugins implement the hook pays
 * for the second map of the run's operations kept here.
 */
export function reportingOperationChanges(invocation: DurableInvocation, plugin: PluginRunner): DurableInvocation {
  const known = new Map<string, Operation>();
  for (const op of invocation.operations) known.set(op.Id, op);

  const merge = async (answer: readonly Operation[]): Promise<void> => {
    // By id: the same operation answered twice in one batch (START, then its outcome) counts once,
    // with its last state, as AWS's map of updated operations keeps it.
    const changed = new Map<string, Operation>();
    for (const op of answer) {
      if (known.get(op.Id)?.Status !== op.Status) changed.set(op.Id, op);
      known.set(op.Id, op);
    }
    if (changed.size === 0) return;
    const operations: Record<string, OperationInfo> = toOperationInfoMap(known.values(), false);
    const updatedOperations: Record<string, OperationInfo> = {};
    for (const id of changed.keys()) updatedOperations[id] = operations[id] as OperationInfo;
    await plugin.onOperationChange({ executionArn: executionArnOf(invocation), updatedOperations, operations });
  };

  const overrides: Partial<DurableInvocation> = {
    checkpoint: async (updates: readonly OperationUpdate[]) => {
      const stored = await invocation.checkpoint(updates);
      await merge(stored);
      return stored;
    },
    refresh: async () => {
      const operations = await invocation.refresh();
      await merge(operations);
      return operations;
    },
  };
  // Everything else is the invocation's own, called on it (a backend's class may keep private
  // fields); methods are bound once, not on every read (`now()` is read for every operation).
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(invocation, {
    get(target, property) {
      if (property in overrides) return overrides[property as keyof DurableInvocation];
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      let method = bound.get(property);
      if (method === undefined) {
        method = (value as (...args: unknown[]) => unknown).bind(target);
        bound.set(property, method);
      }
      return method;
    },
  });
}
