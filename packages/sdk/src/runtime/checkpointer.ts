import { setImmediate } from 'node:timers';
import {
  type DurableInvocation,
  type Operation,
  type OperationUpdate,
  TransactConditionFailedError,
  TransactRejectedError,
} from '@durable-lambda/protocol';

interface Queued {
  update: OperationUpdate;
  resolve: (op: Operation | undefined) => void;
  /** Nothing runs on once it is durable but a wait: it may ride with the invocation's end. */
  deferrable: boolean;
  /** A transactional step's outcome: a refusal of its writes rejects it instead of ending the invocation. */
  refused?: (error: Error) => void;
}

/**
 * Batches updates made in the same turn of the event loop into one checkpoint, and keeps one
 * checkpoint in flight at a time so updates reach the engine in the order they were made.
 */
export class Checkpointer {
  private queue: Queued[] = [];
  private inFlight: Promise<void> | undefined;
  /** The queue holds deferrable updates only, kept back because the invocation is suspending. */
  private parked = false;
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
    /**
     * Asked before a batch of deferrable updates only is sent: true when the invocation is about
     * to suspend, so the batch is held (parked) and written with the invocation's end instead.
     */
    private readonly aboutToSuspend: () => boolean = () => false,
  ) {}

  /**
   * Queues an update; resolves with the stored operation once it is durable. `deferrable`: the
   * update is a step's outcome written behind or the START of a wait that cannot end in this
   * invocation, so if the invocation suspends before it is sent, it rides with the suspension's
   * write (one write instead of two) and its promise never settles.
   */
  push(update: OperationUpdate, deferrable = false): Promise<Operation | undefined> {
    return new Promise((resolve) => {
      this.queue.push({ update, resolve, deferrable });
      this.parked = false;
      this.schedule();
    });
  }

  /**
   * Queues a transactional step's outcome (its `TransactWrites`): resolves once it and its writes
   * are durable; rejects with the protocol's `TransactConditionFailedError` or
   * `TransactRejectedError` when the backend refused its writes (then nothing of that checkpoint
   * was written, and the other updates it carried are sent again).
   */
  pushTransact(update: OperationUpdate): Promise<Operation | undefined> {
    return new Promise((resolve, reject) => {
      this.queue.push({ update, resolve, deferrable: false, refused: reject });
      this.parked = false;
      this.schedule();
    });
  }

  /** True while updates wait to be sent or a checkpoint is in flight (parked ones excepted). */
  get busy(): boolean {
    return (this.queue.length > 0 && !this.parked) || this.inFlight !== undefined || this.scheduled;
  }

  /** True while deferrable updates are held for the invocation's end. */
  get hasParked(): boolean {
    return this.parked && this.queue.length > 0;
  }

  /** Sends the parked updates after all (the invocation will not suspend now). */
  unpark(): void {
    if (!this.hasParked) return;
    this.parked = false;
    this.schedule();
  }

  /** Takes the parked updates (the invocation suspends now and writes them with its end). */
  takeParked(): OperationUpdate[] {
    if (!this.hasParked) return [];
    const taken = this.queue.map((q) => q.update);
    this.queue = [];
    this.parked = false;
    return taken;
  }

  /**
   * Ends the queue for the invocation's end: waits for the checkpoint in flight, then takes the
   * updates not yet sent, which the backend writes with the end (their promises never settle).
   */
  async takeForEnd(): Promise<OperationUpdate[]> {
    while (this.inFlight) await this.inFlight;
    const taken = this.queue.map((q) => q.update);
    this.queue = [];
    this.parked = false;
    return taken;
  }

  /** Resolves once everything queued so far is durable (or the invocation faulted). */
  drain(): Promise<void> {
    if (!this.busy) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Reads the run's operations again (callbacks and invokes ended from outside) when nothing is
   * being written: the read and the writes never overlap, and updates pushed meanwhile wait for it.
   */
  refresh(): Promise<void> {
    if (this.inFlight || this.scheduled || this.isClosed()) return Promise.resolve();
    const reading = this.invocation
      .refresh()
      .then((ops) => {
        if (!this.isClosed()) this.onApplied(ops);
      })
      .catch((error: unknown) => this.onFault(error));
    this.inFlight = reading.finally(() => {
      this.inFlight = undefined;
      if (this.queue.length > 0 && !this.parked) this.schedule();
      else this.becameIdle();
    });
    return this.inFlight;
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
        if (this.queue.length > 0 && !this.parked) this.schedule();
        else this.becameIdle();
      });
    });
  }

  private async flush(): Promise<void> {
    // Queued before the invocation ended (e.g. a non-deterministic replay failed it at once):
    // its output is already being recorded, and nothing may be written after it.
    if (this.queue.length === 0 || this.isClosed()) {
      this.queue = [];
      return;
    }
    // Only deferrable updates, and nothing will run before the invocation suspends: they are
    // written with the suspension (the runtime's end takes them), one write instead of two.
    if (this.queue.every((q) => q.deferrable) && this.aboutToSuspend()) {
      this.parked = true;
      return;
    }
    // A transactional outcome ends its batch: one step's writes per checkpoint, so a refusal names
    // that step alone and the rest is sent again as it was.
    const cut = this.queue.findIndex((q) => q.refused !== undefined);
    const batch = cut < 0 ? this.queue : this.queue.slice(0, cut + 1);
    this.queue = cut < 0 ? [] : this.queue.slice(cut + 1);
    let stored: readonly Operation[];
    try {
      stored = await this.invocation.checkpoint(batch.map((q) => q.update));
    } catch (error) {
      const refusedOne = batch.find((q) => q.refused !== undefined);
      if (
        refusedOne?.refused &&
        (error instanceof TransactConditionFailedError || error instanceof TransactRejectedError)
      ) {
        // Nothing of the batch was written: the step's attempt fails with the refusal, the rest goes again.
        this.queue = [...batch.filter((q) => q !== refusedOne), ...this.queue];
        refusedOne.refused(error);
        return;
      }
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
