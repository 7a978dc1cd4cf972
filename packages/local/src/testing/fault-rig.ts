import { type Invoker, parseCallbackId, type Store, type Waker } from '@durable-lambda/engine';
import type { OpenedInvocation } from '@durable-lambda/protocol';
import { type FaultOptions, FaultPlan } from '../faults/fault-plan';
import { FaultScope } from '../faults/fault-scope';
import { FaultyInvoker, FaultyWaker } from '../faults/faulty-delivery';
import { FaultyInvocation } from '../faults/faulty-invocation';
import { FaultyStore } from '../faults/faulty-store';
import type { VirtualClock } from '../virtual-clock';

/** The fault decorators of one test driver, over one plan. */
export class FaultRig {
  readonly plan: FaultPlan;
  readonly scope: FaultScope;

  constructor(
    options: FaultOptions,
    clock: VirtualClock,
    private readonly onWrite: () => void,
  ) {
    this.plan = new FaultPlan(options, clock);
    this.scope = new FaultScope(this.plan);
  }

  store(inner: Store, onRun: (runId: string) => void): Store {
    return new FaultyStore(inner, this.scope, {
      onWrite: this.onWrite,
      onCreateRun: (run) => onRun(run.runId),
    });
  }

  waker(inner: Waker): Waker {
    return new FaultyWaker(inner, this.scope);
  }

  invoker(inner: Invoker): Invoker {
    return new FaultyInvoker(inner, this.scope);
  }

  /** Wraps an opened invocation so it may be killed, or raced when `race` is given. */
  invocation(inner: OpenedInvocation, index: number, race: (() => Promise<void>) | undefined): FaultyInvocation {
    return new FaultyInvocation(inner, this.scope, index, race ? { race } : {});
  }

  /** Whether an injected fault killed this invocation. */
  killed(opened: OpenedInvocation): boolean {
    return opened instanceof FaultyInvocation && opened.killed;
  }

  /** Whether the test's completion of this callback is sent a second time. */
  callbackTwice(callbackId: string): boolean {
    // Keyed by where the callback lives: its id carries a random secret, different in a replay.
    let where: { runId: string; operationId: string } | undefined;
    try {
      where = parseCallbackId(callbackId);
    } catch {
      return false;
    }
    return this.scope.roll('callbackTwice', where.runId, `callback:${where.operationId}`, {
      invocation: -1,
      operationId: where.operationId,
      detail: 'callback completion',
    });
  }
}
