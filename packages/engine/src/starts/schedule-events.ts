import { functionBaseName } from '../run-query';

/**
 * What a schedule's firing does while the schedule's previous run is still RUNNING: `skip` (no
 * run), `bufferOne` (run once the previous ends, at most one waiting), `allowAll` (start anyway),
 * `cancelPrevious` (cancel the running one, then start).
 */
export type OverlapPolicy = 'skip' | 'bufferOne' | 'allowAll' | 'cancelPrevious';

/** The policies {@link OverlapPolicy} names. */
export const OVERLAP_POLICIES: readonly OverlapPolicy[] = ['skip', 'bufferOne', 'allowAll', 'cancelPrevious'];

/**
 * The event a schedule's firing delivers (the CDK's Scheduler schedule writes it as the target's
 * input, `<aws.scheduler.scheduled-time>` in `scheduledTime`; the dev server's timer builds it).
 */
export interface ScheduleFiringEvent {
  durableLambda: {
    action: 'schedule';
    /** The schedule's name, unique in its function. */
    name: string;
    /** When the firing was due, ISO 8601 (Scheduler's scheduled time): with the name, the run key. */
    scheduledTime: string;
    overlap: OverlapPolicy;
    /** The run's input, JSON. */
    input?: string;
  };
}

/** True for a {@link ScheduleFiringEvent} whose time parses. */
export function isScheduleFiring(event: unknown): event is ScheduleFiringEvent {
  const d = (event as { durableLambda?: Record<string, unknown> } | null)?.durableLambda;
  return (
    typeof d === 'object' &&
    d !== null &&
    d.action === 'schedule' &&
    typeof d.name === 'string' &&
    d.name.length > 0 &&
    typeof d.scheduledTime === 'string' &&
    Number.isFinite(Date.parse(d.scheduledTime)) &&
    OVERLAP_POLICIES.includes(d.overlap as OverlapPolicy) &&
    (d.input === undefined || typeof d.input === 'string')
  );
}

/**
 * The prefix of every run key of schedule `name` of `functionName` (its bare name: every version
 * shares it). The function is in the key because run keys name runs table-wide: two functions'
 * schedules of one name firing at one time are two runs.
 */
export function scheduleKeyPrefix(functionName: string, name: string): string {
  return `schedule:${functionBaseName(functionName)}:${name}:`;
}

/**
 * The run key of a firing: the function, the schedule's name and its fire time, normalised to
 * ISO 8601 in ms (`schedule:report:nightly:2026-01-01T00:00:00.000Z`), so a duplicate firing is
 * the same run.
 */
export function scheduleRunKey(functionName: string, name: string, scheduledTime: string | number): string {
  return `${scheduleKeyPrefix(functionName, name)}${new Date(scheduledTime).toISOString()}`;
}

/** What a firing does against the schedule's runs still RUNNING (see {@link OverlapPolicy}). */
export type OverlapDecision = { action: 'start'; cancel: string[] } | { action: 'skip' } | { action: 'buffer' };

/**
 * Decides a firing against the schedule's other runs still RUNNING (`running`: their run ids;
 * `buffered`: how many wait already, for `bufferOne`).
 */
export function decideOverlap(policy: OverlapPolicy, running: readonly string[], buffered = 0): OverlapDecision {
  if (running.length === 0 || policy === 'allowAll') return { action: 'start', cancel: [] };
  if (policy === 'cancelPrevious') return { action: 'start', cancel: [...running] };
  if (policy === 'bufferOne' && buffered === 0) return { action: 'buffer' };
  return { action: 'skip' };
}
