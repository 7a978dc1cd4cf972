import { type Invoker, isWakeEvent, type WakeRequest, type Waker } from '@durable-lambda/engine';
import type { FaultScope } from './fault-scope';
import { InjectedThrottlingError } from './injected-errors';

/** The second delivery of a duplicated event comes this much later at most. */
const MAX_DUPLICATE_DELAY_MS = 5_000;

/**
 * A {@link Waker} (EventBridge Scheduler) whose requests may be throttled before doing anything
 * (`throttleWaker`), and whose wake-ups may fire late (`wakeLate`), twice (`wakeTwice`) or never
 * (`wakeDropped`) although the request succeeded.
 */
export class FaultyWaker implements Waker {
  constructor(
    private readonly inner: Waker,
    private readonly scope: FaultScope,
  ) {}

  async wakeAt(request: WakeRequest): Promise<void> {
    const { runId, reason } = request;
    const key = `wake:${reason}#${this.scope.currentInvocation(runId)}`;
    const detail = `wakeAt ${reason}`;
    if (this.scope.roll('throttleWaker', runId, key, { detail })) throw new InjectedThrottlingError('wakeAt');
    if (this.scope.roll('wakeDropped', runId, key, { detail })) return;
    let at = request.at;
    if (this.scope.roll('wakeLate', runId, key, { detail })) {
      at += this.scope.plan.amount(`late|${runId}|${key}`, 1_000, Math.max(1_000, this.scope.plan.maxLateMs));
    }
    await this.inner.wakeAt({ ...request, at });
    if (this.scope.roll('wakeTwice', runId, key, { detail })) {
      const delay = this.scope.plan.amount(`twice|${runId}|${key}`, 0, MAX_DUPLICATE_DELAY_MS);
      await this.inner.wakeAt({ ...request, at: at + delay });
    }
  }

  async cancel(request: WakeRequest): Promise<void> {
    const key = `cancel:${request.reason}#${this.scope.currentInvocation(request.runId)}`;
    if (this.scope.roll('throttleWaker', request.runId, key, { detail: `cancel ${request.reason}` })) {
      throw new InjectedThrottlingError('cancel');
    }
    await this.inner.cancel?.(request);
  }
}

/**
 * An {@link Invoker} (Lambda async invoke) whose calls may be throttled before doing anything
 * (`throttleInvoker`), and whose events may be delivered twice (`eventTwice`) or never
 * (`eventDropped`) although the call succeeded.
 */
export class FaultyInvoker implements Invoker {
  constructor(
    private readonly inner: Invoker,
    private readonly scope: FaultScope,
  ) {}

  knows(functionName: string): boolean {
    return this.inner.knows?.(functionName) !== false;
  }

  async invoke(functionName: string, event: unknown): Promise<void> {
    const runId = isWakeEvent(event) ? event.durableLambda.runId : functionName;
    const key = `invoke#${this.scope.currentInvocation(runId)}`;
    const detail = `invoke ${functionName}`;
    if (this.scope.roll('throttleInvoker', runId, key, { detail })) throw new InjectedThrottlingError('invoke');
    if (this.scope.roll('eventDropped', runId, key, { detail })) return;
    await this.inner.invoke(functionName, event);
    if (this.scope.roll('eventTwice', runId, key, { detail })) await this.inner.invoke(functionName, event);
  }
}
