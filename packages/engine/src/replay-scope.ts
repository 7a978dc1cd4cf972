/**
 * What an invocation replays from: the run's live operations and ONE record per finished child
 * context (a map item, a parallel branch, a `runInChildContext`), never the operations inside a
 * finished context. A finished context returns its stored result on replay without running its
 * body (our SDK and AWS's), so its children are history, kept in the store for the console and
 * export but not loaded by the invocation: a resume costs the same whether the run's completed
 * contexts hold ten operations or a hundred thousand.
 *
 * The exception is a finished context with `ContextDetails.ReplayChildren`: its result was too
 * large to store inline (AWS's SDK re-runs its body; our map/parallel rebuild their result from
 * their items' records), so its children are loaded, and theirs by the same rule, recursively.
 */
import { isTerminal, type Operation } from '@durable-lambda/protocol';
import type { Store } from './ports';

/**
 * Whether a replay needs the children of `op`: true for everything but a finished CONTEXT
 * whose result is stored inline (no `ReplayChildren`). Operations of other types have no
 * children in either SDK; a stray one would still be loaded (the safe side).
 */
export function replaysChildren(op: Pick<Operation, 'Type' | 'Status' | 'ContextDetails'>): boolean {
  return !(op.Type === 'CONTEXT' && isTerminal(op.Status) && op.ContextDetails?.ReplayChildren !== true);
}

/**
 * The operations of `all` a replay needs, in the order given: those reachable from the run's
 * top level (no `ParentId`) through operations that {@link replaysChildren}. The engine refuses
 * an operation whose parent is not stored, so every stored operation is reachable in the full
 * tree; an abandoned branch (a parallel branch still STARTED inside a finished parallel) is left
 * out with its finished parent's other children. Stores that index children by parent compute
 * the same set without reading the rest; this is the reference they are tested against.
 */
export function replayScope(all: readonly Operation[]): Operation[] {
  const byId = new Map(all.map((op) => [op.Id, op]));
  const memo = new Map<string, boolean>();
  const inScope = (op: Operation): boolean => {
    const parentId = op.ParentId;
    if (parentId === undefined) return true;
    const known = memo.get(parentId);
    if (known !== undefined) return known;
    const parent = byId.get(parentId);
    const answer = parent !== undefined && replaysChildren(parent) && inScope(parent);
    memo.set(parentId, answer);
    return answer;
  };
  return all.filter(inScope);
}

/**
 * The operations an invocation opens with: the store's {@link Store.loadReplayOperations} when it
 * has one, else every operation (a superset: the SDK skips the children of finished contexts).
 */
export function loadReplayOperations(store: Store, runId: string): Promise<Operation[]> {
  return store.loadReplayOperations ? store.loadReplayOperations(runId) : store.loadOperations(runId);
}
