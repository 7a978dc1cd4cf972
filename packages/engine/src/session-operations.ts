/**
 * The operations an `EngineSession` holds, by id, with the sets of ids it looks at instead of
 * scanning them all: those time alone can change, those that may have a due time, and those
 * waiting on an outside event. Kept as each operation is stored, so a close is as cheap after
 * 100,000 completed operations as after ten (replay loads only the live ones; the invocation that
 * ran them holds them all).
 */
import type { Operation } from '@durable-lambda/protocol';

/** A session's operations and the indexes kept with them (see the module's comment). */
export class SessionOperations {
  /** Every operation, by id. */
  readonly byId = new Map<string, Operation>();
  /** Ids of operations that time alone can change (started waits, pending retries). */
  readonly timeBound = new Set<string>();
  /**
   * Ids of the operations `close` looks at: those with a due time (`nextDue`'s: started waits,
   * pending or ready retries, started callbacks) and those waiting outside (started callbacks and
   * chained invokes).
   */
  readonly mayBeDue = new Set<string>();
  /** Ids of started callbacks and chained invokes. */
  readonly waitingOutside = new Set<string>();

  /** Stores `op` (replacing the one with its id) and files its id in the indexes it belongs to. */
  put(op: Operation): void {
    this.byId.set(op.Id, op);
    const waitsOnTime =
      (op.Type === 'WAIT' && op.Status === 'STARTED') || (op.Type === 'STEP' && op.Status === 'PENDING');
    if (waitsOnTime) this.timeBound.add(op.Id);
    else this.timeBound.delete(op.Id);
    const outside = (op.Type === 'CALLBACK' || op.Type === 'CHAINED_INVOKE') && op.Status === 'STARTED';
    if (outside) this.waitingOutside.add(op.Id);
    else this.waitingOutside.delete(op.Id);
    if (waitsOnTime || outside || (op.Type === 'STEP' && op.Status === 'READY')) this.mayBeDue.add(op.Id);
    else this.mayBeDue.delete(op.Id);
  }

  /**
   * What `nextDue` needs to answer as over every operation: the operations that may have a due
   * time, with their ancestors (it leaves out those under a finished context).
   */
  dueCandidates(): Map<string, Operation> {
    const scope = new Map<string, Operation>();
    for (const id of this.mayBeDue) {
      for (
        let op = this.byId.get(id);
        op && !scope.has(op.Id);
        op = op.ParentId ? this.byId.get(op.ParentId) : undefined
      ) {
        scope.set(op.Id, op);
      }
    }
    return scope;
  }
}
