import type { StepContext } from '@durable-lambda/sdk';

/** One execution of a step body, as the outside world saw it. */
export interface Execution {
  /** Order of execution across the whole test. */
  seq: number;
  runId: string;
  /** The run's execution the step belongs to: `<runId>[.<incarnation>]`, as the key names it. */
  execId: string;
  operationId: string;
  step: string;
  attempt: number;
  idempotencyKey: string;
  /** Virtual time, epoch ms. */
  at: number;
}

/** What the world does while a step body runs (an operator acting mid-invocation). */
export type StepHook = (execution: Execution) => Promise<void>;

/** A callback id handed out by a run, and the payload the outside completes it with. */
export interface HandedOutCallback {
  callbackId: string;
  payload: string;
}

/**
 * Everything outside the runs: a log of every step body executed (with its run, attempt and
 * idempotency key, parsed from the key `<runId>[.<incarnation>]:<operationId>:<attempt>`), and
 * the callbacks handed out for "test code" to complete.
 */
export class OutsideWorld {
  readonly executions: Execution[] = [];
  readonly callbacks = new Map<string, HandedOutCallback>();
  /** Steps that must run at most once per attempt, by run and operation id. */
  readonly atMostOnce = new Set<string>();
  private readonly perStep = new Map<string, number>();
  /** Runs inside each step body after it is recorded; none by default. */
  hook: StepHook | undefined;

  constructor(
    private readonly now: () => number,
    /** Completes a callback from outside; called once per handed-out id. */
    private readonly complete: (callback: HandedOutCallback) => void,
    /** The order shared with the store's write log; the world's own count without one. */
    private readonly order?: { next(): number },
  ) {}

  /** Records a step body's execution (see {@link record}), then lets the world act inside it. */
  async step(step: string, context: StepContext, options: { atMostOnce?: boolean } = {}): Promise<number> {
    const n = this.record(step, context, options);
    const execution = this.executions.at(-1);
    if (this.hook && execution) await this.hook(execution);
    return n;
  }

  /** Records a step body's execution; returns how many times a body of this name has run in the run. */
  record(step: string, context: StepContext, options: { atMostOnce?: boolean } = {}): number {
    const key = context.idempotencyKey;
    const first = key.indexOf(':');
    const last = key.lastIndexOf(':');
    // A run started with a key (a child run) names its incarnation after its id.
    const execId = key.slice(0, first);
    const runId = execId.split('.')[0] as string;
    const operationId = key.slice(first + 1, last);
    this.executions.push({
      seq: this.order ? this.order.next() : this.executions.length + 1,
      runId,
      execId,
      operationId,
      step,
      attempt: context.attempt,
      idempotencyKey: key,
      at: this.now(),
    });
    if (options.atMostOnce) this.atMostOnce.add(`${runId}|${operationId}`);
    // Counted by name: withRetry runs each attempt under a new operation id.
    const id = `${runId}|${step}`;
    const n = (this.perStep.get(id) ?? 0) + 1;
    this.perStep.set(id, n);
    return n;
  }

  /** A run hands a callback id out; the outside completes it (once) soon after. */
  handOut(callbackId: string, payload: string): void {
    if (this.callbacks.has(callbackId)) return;
    const callback = { callbackId, payload };
    this.callbacks.set(callbackId, callback);
    this.complete(callback);
  }
}
