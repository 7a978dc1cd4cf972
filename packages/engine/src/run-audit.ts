/**
 * The run's record of operator actions: who did what, and when. Each entry is written in the same
 * atomic revision as the change it records (`Store.reviseRun`), so no action is ever stored
 * without its entry, nor an entry without its action. An entry's `id` also makes the action
 * idempotent: a repeat with the same id finds its own earlier effect and changes nothing.
 */
import { EngineInputError } from './errors';
import type { RunAction, RunRecord } from './run-record';

export type { RunAction, RunActionKind } from './run-record';

/** Who and which request, as callers of an operator action give it. */
export interface ActionOrigin {
  /** Who asks (at most 256 characters). Default `anonymous`. */
  actor?: string;
  /** Makes the action idempotent (at most 256 characters): the same id is applied once. */
  actionId?: string;
}

/** How many entries a run keeps: the newest. */
export const MAX_RUN_ACTIONS = 100;

/** The origin checked, with defaults: an actor named, and an id (random when none was given). */
export function parseOrigin(origin: ActionOrigin | undefined, newId: () => string): Required<ActionOrigin> {
  const actor = origin?.actor ?? 'anonymous';
  if (typeof actor !== 'string' || actor.length === 0 || actor.length > 256) {
    throw new EngineInputError('actor', 'must be a string of 1-256 characters');
  }
  const actionId = origin?.actionId ?? newId();
  if (typeof actionId !== 'string' || actionId.length === 0 || actionId.length > 256) {
    throw new EngineInputError('actionId', 'must be a string of 1-256 characters');
  }
  return { actor, actionId };
}

/** The run's entry with this id, if the action was already applied. */
export function findAction(run: RunRecord, actionId: string): RunAction | undefined {
  return run.actions?.find((entry) => entry.id === actionId);
}

/** The run's actions with `entry` added (the oldest dropped past {@link MAX_RUN_ACTIONS}). */
export function withAction(run: RunRecord, entry: RunAction): RunAction[] {
  return [...(run.actions ?? []), entry].slice(-MAX_RUN_ACTIONS);
}
