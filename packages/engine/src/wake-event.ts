/** The event a {@link Waker} sends to resume a run. */
export interface WakeEvent {
  durableLambda: { action: 'wake'; runId: string };
}

/** True for a wake-up event sent by a waker. */
export function isWakeEvent(event: unknown): event is WakeEvent {
  const d = (event as { durableLambda?: { action?: unknown; runId?: unknown } } | null)?.durableLambda;
  return d?.action === 'wake' && typeof d.runId === 'string';
}

/** Builds the event that resumes `runId`. */
export function wakeEvent(runId: string): WakeEvent {
  return { durableLambda: { action: 'wake', runId } };
}
