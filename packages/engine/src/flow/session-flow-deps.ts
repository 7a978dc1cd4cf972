/** What a session's flow control reaches the engine through (its store, clock and hooks). */
import type { QueueDeps } from '../concurrency-queue';
import type { SessionDeps } from '../session-deps';
import type { FlowDeps } from './admission';

/** The queue's deps of a session: its store and clock, and its engine's wake-up. */
export function queueDepsOf(deps: Pick<SessionDeps, 'store' | 'clock' | 'hooks'>): QueueDeps {
  return { store: deps.store, clock: deps.clock, wake: (run) => deps.hooks.wake(run) };
}

/** Flow control's deps of a session; an engine whose sessions cannot cancel runs cannot serve it. */
export function flowDepsOf(deps: Pick<SessionDeps, 'store' | 'clock' | 'hooks'>): FlowDeps {
  const { cancel } = deps.hooks;
  if (!cancel)
    throw new Error('durable-lambda: this engine cannot serve flow control (its sessions have no cancel hook)');
  return { ...queueDepsOf(deps), cancel: (runId, byRunId) => cancel(runId, byRunId) };
}
