import { setImmediate } from 'node:timers';
import type { DurableInvocation, Operation, OperationUpdate } from '@durable-lambda/protocol';

interface Queued {
  update: OperationUpdate;
  resolve: (op: Operation | undefined) => void;
}

/**
 * Batches updates made in the same turn of the event loop into one checkpoint, and keeps one
 * checkpoint in flight at a time so updates reach the engine in the order they were made.
 */
export class Checkpointer {
  private queue: Queued[] = [];
  private inFlight: Promise<void> | undefined;
  private scheduled = false;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly invocation: DurableInvocation,
    /** Receives the operations each checkpoint changed. */
    private readonly onApplied: (ops: readonly Operation[]) => void,
    /** Receives a failed checkpoint; the invocation ends there. */
    private readonly onFault: (error: unknown) => void,
    /** Called whenever the checkpointer becomes idle. */
    private readonly onIdle: () => void,
    /** True once the invocation has ended: updates still queued are dropped, never sent. */
    private readonly isClosed: () => boolean = () => false,
  ) {}

  /** Queues an update; resolves with the stored operation once it is durable. */
  push(update: OperationUpdate): Promise<Operation | undefined> {
    return new Promise((resolve) => {
      this.queue.push({ update, resolve });
      this.schedule();
    });
  }

  /** True while updates wait or a checkpoint is in flight. */
  get busy(): boolean {
    return this.queue.length > 0 || this.inFlight !== undefined || this.scheduled;
  }

  /** Resolves once everything queued so far is durable (or the invocation faulted). */
  drain(): Promise<void> {
    if (!this.busy) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight) return;
    this.scheduled = true;
    // setImmediate, not a microtask: updates from several promise chains that settle in the
    // same turn land in one checkpoint.
    setImmediate(() => {
      this.scheduled = false;
      this.inFlight = this.flush().finally(() => {
        this.inFlight = undefined;
        if (this.queue.length > 0) this.schedule();
        else this.becameIdle();
      });
    });
  }

  private async flush(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    // Queued before the invocation ended (e.g. a non-deterministic replay failed it at once):
    // its output is already being recorded, and nothing may be written after it.
    if (batch.length === 0 || this.isClosed()) return;
    let stored: readonly Operation[];
    try {
      stored = await this.invocation.checkpoint(batch.map((q) => q.update));
    } catch (error) {
      // The waiting operations are left unresolved on purpose: the invocation ends now with an
      // explicit result, and handler code must not run on after a lost checkpoint.
      this.queue = [];
      this.onFault(error);
      return;
    }
    this.onApplied(stored);
    // A batch is usually one or two updates (a step's START with the last one's outcome): a map of
    // the answer costs more than looking through it; a large batch (a map's items) gets one.
    if (batch.length <= 4) {
      for (const q of batch) q.resolve(stored.find((op) => op.Id === q.update.Id));
      return;
    }
    const byId = new Map(stored.map((op) => [op.Id, op]));
    for (const q of batch) q.resolve(byId.get(q.update.Id));
  }

  private becameIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
    this.onIdle();
  }
}
