/**
 * A checkpoint's operations that the replay load left out. Each Lambda-shaped request rebuilds
 * its session from the run's replay scope (`loadReplayOperations`: the live operations and one
 * record per finished context), yet AWS's SDK may still send, in the same invocation, an update
 * under a finished context: a parallel branch or map item the context abandoned keeps running
 * in-process and checkpoints its steps. Such an update names a parent the session does not hold
 * (or holds as a finished context, whose children were not loaded), so those records, its own and
 * its missing ancestors', are read one by one before it is applied, and the checkpoint is judged
 * exactly as against every operation of the run. An update whose parent's children the session
 * holds costs no read: the common path stays one load per request.
 */
import { type EngineSession, replaysChildren, type Store } from '@durable-lambda/engine';
import type { Operation, OperationUpdate } from '@durable-lambda/protocol';

/**
 * Reads from `store` the operations `updates` touch that `session` (opened on the replay scope of
 * `runId`) lacks, with their ancestors up to one it holds, and has the session adopt them. Needs
 * every update of one request, in order: an operation started earlier in the batch is new, so its
 * children are too. Answers how many operations were read.
 */
export async function adoptOutOfScope(
  store: Pick<Store, 'getOperation'>,
  runId: string,
  session: Pick<EngineSession, 'operations' | 'adopt'>,
  updates: readonly OperationUpdate[],
): Promise<number> {
  if (!updates.some((update) => update.ParentId !== undefined)) return 0;
  const held = new Map(session.operations.map((op) => [op.Id, op]));
  const fetched = new Map<string, Operation>();
  // Operations of this batch the store does not hold: they have no stored children to miss.
  const fresh = new Set<string>();
  const known = (id: string) => held.has(id) || fetched.has(id) || fresh.has(id);
  // Whether the session holds every stored child of `id`: the replay scope includes the children
  // of a held operation unless it is a finished context (without `ReplayChildren`).
  const childrenHeld = (id: string): boolean => {
    if (fresh.has(id)) return true;
    const op = held.get(id);
    return op !== undefined && replaysChildren(op);
  };
  const read = async (id: string): Promise<Operation | undefined> => {
    const op = await store.getOperation(runId, id);
    if (op) fetched.set(id, op);
    return op;
  };
  for (const update of updates) {
    if (known(update.Id)) continue;
    const parentId = update.ParentId;
    // Top-level operations are always in the replay scope: one not held is new.
    if (parentId === undefined || childrenHeld(parentId)) {
      fresh.add(update.Id);
      continue;
    }
    if (!(await read(update.Id))) fresh.add(update.Id);
    for (let id: string | undefined = parentId; id !== undefined && !known(id); ) {
      id = (await read(id))?.ParentId;
    }
  }
  if (fetched.size > 0) session.adopt([...fetched.values()]);
  return fetched.size;
}
