import type { LeaseGrant, RunPatch, RunRecord, RunStatus, Store } from '@durable-lambda/engine';
import { incarnationId, type Operation } from '@durable-lambda/protocol';

/** One write the store took (the faults sit above this log: only writes that landed are here). */
export interface LoggedWrite {
  /**
   * Order among the world's writes and step executions (shared with the outside world), taken
   * when the store answered: the write landed before this.
   */
  seq: number;
  /** The same order, taken when the write was sent: the write landed after this. */
  sentSeq: number;
  runId: string;
  /** The run's execution (`<runId>[.<incarnation>]`) the write landed on. */
  execId: string;
  kind: 'create' | 'lease' | 'commit' | 'revise';
  /** The run's status after the write, when the write set or returned it. */
  status?: RunStatus;
  /** The run's fence after the write (lease, revise, create); for a commit, the fence it was made at. */
  fence: number;
  /** For a revise: the kind of the operator action it recorded, if it recorded one. */
  action?: string;
  /** Step attempts whose START the write holds, as `<operationId>:<attempt>`. */
  starts: string[];
}

/** A counter shared by the store log and the outside world, so writes and executions interleave in one order. */
export class WorldOrder {
  private n = 0;
  next(): number {
    this.n += 1;
    return this.n;
  }
}

/**
 * Wraps a store (beneath the injected faults) and logs every write that landed, in world order:
 * what the fencing and terminal-state invariants are checked against. Reads and everything else
 * pass through unchanged, optional methods included.
 */
export function loggedStore(inner: Store, order: WorldOrder, log: LoggedWrite[]): Store {
  /** The current execution of each run id, as the log saw it created. */
  const current = new Map<string, string>();
  const execOf = (run: Pick<RunRecord, 'runId' | 'incarnation'>) => incarnationId(run.runId, run.incarnation);
  const starts = (operations: readonly Operation[]) =>
    operations
      .filter((op) => op.Type === 'STEP' && op.Status === 'STARTED')
      .map((op) => `${op.Id}:${op.StepDetails?.Attempt ?? 1}`);
  const push = (sentSeq: number, entry: Omit<LoggedWrite, 'seq' | 'sentSeq'>) =>
    log.push({ seq: order.next(), sentSeq, ...entry });
  const wrapped: Partial<Store> = {
    async createRun(run, execution) {
      const sent = order.next();
      const result = await inner.createRun(run, execution);
      if (result.created) {
        current.set(run.runId, execOf(result.run));
        push(sent, {
          runId: run.runId,
          execId: execOf(result.run),
          kind: 'create',
          status: result.run.status,
          fence: result.run.fence,
          starts: [],
        });
      }
      return result;
    },
    async acquireLease(runId, now, leaseExpiresAt, leaseToken): Promise<LeaseGrant | undefined> {
      const sent = order.next();
      const grant = await inner.acquireLease(runId, now, leaseExpiresAt, leaseToken);
      if (grant) {
        push(sent, { runId, execId: execOf(grant.run), kind: 'lease', fence: grant.run.fence, starts: [] });
      }
      return grant;
    },
    async commit(runId: string, fence: number, write: { operations: readonly Operation[]; run?: RunPatch }) {
      const sent = order.next();
      await inner.commit(runId, fence, write);
      const status = write.run?.status ?? undefined;
      push(sent, {
        runId,
        execId: current.get(runId) ?? runId,
        kind: 'commit',
        ...(status ? { status } : {}),
        fence,
        starts: starts(write.operations),
      });
    },
    async reviseRun(runId, expectStatus, patch, operations, basedOn) {
      const sent = order.next();
      const revised = await inner.reviseRun(runId, expectStatus, patch, operations, basedOn);
      if (revised) {
        const newest = patch.actions?.at(-1);
        push(sent, {
          runId,
          execId: execOf(revised),
          kind: 'revise',
          status: revised.status,
          fence: revised.fence,
          ...(newest && patch.actions ? { action: newest.action } : {}),
          starts: starts(operations),
        });
      }
      return revised;
    },
  };
  return new Proxy(inner, {
    get(target, prop) {
      const own = (wrapped as Record<PropertyKey, unknown>)[prop];
      if (own !== undefined) return own;
      // Read on the store itself: its getters and methods may use private fields.
      const value = Reflect.get(target, prop);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
