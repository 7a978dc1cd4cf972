/**
 * What time alone changes in a session's operations: a wait that came due, a retry that became
 * ready. Applied as the session looks (only time-bound operations are looked at: the hot path),
 * kept to ride with the session's next write, and told once to a caller that asks what changed.
 */
import type { Operation } from '@durable-lambda/protocol';
import type { HistoryCounter } from './history-order';
import type { SessionOperations } from './session-operations';
import { settleDue } from './transitions';

/** The operations time changed in one session, since its last write and since the last ask. */
export class TimeSettlement {
  /** Ids changed by time, not yet written (they ride with the next write). */
  readonly unwritten = new Set<string>();
  /** Ids changed by time since {@link takeChanged} last looked (one per wait or retry, so small). */
  private changed: string[] = [];

  constructor(
    private readonly ops: SessionOperations,
    private readonly history: HistoryCounter,
  ) {}

  /** Applies what time alone changed by `now`. */
  settle(now: number): void {
    if (this.ops.timeBound.size === 0) return;
    for (const id of [...this.ops.timeBound]) {
      const op = this.ops.byId.get(id);
      const settled = op && settleDue(op, now);
      const next = settled && this.history.place(op, settled);
      if (next) {
        this.ops.put(next);
        this.unwritten.add(id);
        this.changed.push(id);
      }
    }
  }

  /** The operations time changed since the last call, as they stand now. */
  takeChanged(): Operation[] {
    if (this.changed.length === 0) return [];
    const ids = new Set(this.changed);
    this.changed = [];
    const ops: Operation[] = [];
    for (const id of ids) {
      const op = this.ops.byId.get(id);
      if (op) ops.push(op);
    }
    return ops;
  }

  /** `operations` with the unwritten ones time changed before them (rare: only after a wait came due). */
  withUnwritten(operations: Operation[]): Operation[] {
    if (this.unwritten.size === 0) return operations;
    const ids = new Set(operations.map((op) => op.Id));
    const carried: Operation[] = [];
    for (const id of this.unwritten) {
      const op = this.ops.byId.get(id);
      if (op && !ids.has(id)) carried.push(op);
    }
    return [...carried, ...operations];
  }
}
