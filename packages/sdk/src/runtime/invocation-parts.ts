import { type InvocationOutput, isTerminal, type Operation, type OperationUpdate } from '@durable-lambda/protocol';

/**
 * Ids of the recorded operations a replay walks again: all but the execution and the children
 * of finished contexts (a finished context returns its stored result without running).
 */
export function replayableIds(operations: readonly Operation[]): Set<string> {
  const byId = new Map(operations.map((op) => [op.Id, op]));
  const insideFinished = (op: Operation): boolean => {
    for (let p = op.ParentId && byId.get(op.ParentId); p; p = p.ParentId ? byId.get(p.ParentId) : undefined) {
      if (p.Type === 'CONTEXT' && isTerminal(p.Status)) return true;
    }
    return false;
  };
  return new Set(operations.filter((op) => op.Type !== 'EXECUTION' && !insideFinished(op)).map((op) => op.Id));
}

/** A promise that never settles: the awaiting code belongs to an invocation that has ended. */
export function never<T>(_reason?: unknown): Promise<T> {
  return new Promise<T>(() => {});
}

/** `output` with the updates to write with it, when there are any. */
export function withUpdates(output: InvocationOutput, updates: readonly OperationUpdate[]): InvocationOutput {
  return updates.length === 0 ? output : { ...output, Updates: updates };
}
