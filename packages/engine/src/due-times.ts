/**
 * What time alone does to operations: a started wait comes due, a pending retry becomes ready
 * (`settleDue`), and the earliest time anything of a run does so (`nextDue`). Run on every
 * checkpoint and close (hot path).
 */
import { isTerminal, type Operation } from '@durable-lambda/protocol';

/**
 * Applies what time alone changes: a wait whose end has passed succeeds, a step whose next
 * attempt is due becomes READY. Returns the changed operation, or undefined.
 */
export function settleDue(op: Operation, now: number): Operation | undefined {
  if (op.Type === 'WAIT' && op.Status === 'STARTED') {
    const end = op.WaitDetails?.ScheduledEndTimestamp;
    if (end !== undefined && end <= now) return { ...op, Status: 'SUCCEEDED', EndTimestamp: end };
  }
  if (op.Type === 'STEP' && op.Status === 'PENDING') {
    const next = op.StepDetails?.NextAttemptTimestamp;
    if (next !== undefined && next <= now) return { ...op, Status: 'READY' };
  }
  return undefined;
}

/**
 * The earliest time something of the run comes due: a wait's end, a retry's next attempt, a
 * callback's deadline. Undefined when nothing waits on time. Operations under a finished context
 * (the loser of a race, a map item after the map completed) are abandoned: no replay ever reaches
 * them again, so they never make the run due.
 */
export function nextDue(operations: ReadonlyMap<string, Operation> | Iterable<Operation>): number | undefined {
  const ops: ReadonlyMap<string, Operation> =
    operations instanceof Map
      ? operations
      : new Map([...(operations as Iterable<Operation>)].map((op) => [op.Id, op] as const));
  let earliest: number | undefined;
  const abandoned = abandonedCheck(ops);
  const consider = (op: Operation, t: number | undefined) => {
    if (t !== undefined && (earliest === undefined || t < earliest) && !abandoned(op)) earliest = t;
  };
  for (const op of ops.values()) {
    if (op.Type === 'WAIT' && op.Status === 'STARTED') consider(op, op.WaitDetails?.ScheduledEndTimestamp);
    else if (op.Type === 'STEP' && op.Status === 'PENDING') consider(op, op.StepDetails?.NextAttemptTimestamp);
    else if (op.Type === 'CALLBACK' && op.Status === 'STARTED') {
      consider(op, op.CallbackDetails?.TimeoutTimestamp);
      consider(op, op.CallbackDetails?.HeartbeatDeadline);
    }
    // A READY step is due already: its (past) next-attempt time says so.
    else if (op.Type === 'STEP' && op.Status === 'READY')
      consider(op, op.StepDetails?.NextAttemptTimestamp ?? op.StartTimestamp);
  }
  return earliest;
}

/** Whether an operation has a finished context among its ancestors (memoized per parent). */
function abandonedCheck(ops: ReadonlyMap<string, Operation>): (op: Operation) => boolean {
  const memo = new Map<string, boolean>();
  const underFinished = (parentId: string | undefined): boolean => {
    if (parentId === undefined) return false;
    const known = memo.get(parentId);
    if (known !== undefined) return known;
    const parent = ops.get(parentId);
    const result = parent !== undefined && (isTerminal(parent.Status) || underFinished(parent.ParentId));
    memo.set(parentId, result);
    return result;
  };
  return (op) => underFinished(op.ParentId);
}
