import type { Operation } from '@durable-lambda/protocol';
import { parseName } from '../config';
import type { Scope } from '../context/scope';
import { describe } from '../duration';
import { InvalidArgumentError } from '../errors/invalid-argument';
import { operationEnd, operationStart } from './plugin-hooks';
import { parentOf } from './step';

/**
 * The SubType of a patch marker: a STEP named after the patch, succeeded at once with no
 * payload. A plain STEP outcome, so the engine, the history views and the dashboard take it as
 * they take any step; not one of AWS's `OperationSubType` values (AWS's SDK has no patches).
 */
export const PATCH_SUBTYPE = 'Patch';

/** Each context's answers so far, per patch id: a patch asked twice in one context answers the same. */
const answers = new WeakMap<Scope, Map<string, boolean>>();

/** Validates `patchId`: a string of 1–256 characters without control characters. */
function parsePatchId(args: readonly unknown[], operation: string): string {
  if (args.length > 1) throw new InvalidArgumentError(operation, 'takes (patchId) only');
  const value = args[0];
  if (typeof value !== 'string') throw new InvalidArgumentError('patchId', `must be a string, got ${describe(value)}`);
  return parseName(value, 'patchId') as string;
}

/** True when `op` is the marker of `patchId`. */
function isMarker(op: Operation | undefined, patchId: string): boolean {
  return op?.Type === 'STEP' && op.SubType === PATCH_SUBTYPE && op.Name === patchId;
}

/** The position of `id` among the operations of the context `parentId` ("3-1-4" → 4), or NaN. */
function positionOf(id: string, parentId: string | undefined): number {
  const local = parentId === undefined ? id : id.startsWith(`${parentId}-`) ? id.slice(parentId.length + 1) : '';
  return /^\d+$/.test(local) ? Number(local) : Number.NaN;
}

/**
 * Whether the run holds an operation of this context at `id`'s position or after it: it went
 * past this point before the change. A later one without one at `id` happens when the one at
 * `id` was still being written behind (e.g. a lazily started step) as the invocation ended.
 */
export function passedPosition(scope: Scope, id: string): boolean {
  if (scope.runtime.get(id)) return true;
  const here = positionOf(id, scope.parentId);
  for (const op of scope.runtime.operations()) {
    if (op.Type === 'EXECUTION' || op.ParentId !== scope.recordParentId) continue;
    if (positionOf(op.Id, scope.parentId) > here) return true;
  }
  return false;
}

/**
 * `context.patched(patchId)`: at the patch's position in its context, the marker of this patch
 * means the run took the new path (true); nothing there means the run never got this far, so
 * it takes the new path and the marker is recorded (true); another operation there means an
 * older run passed this point before the change (false), and the position is left to that
 * operation so the run's later ids line up. The answer is fixed per context at the first ask.
 */
export function runPatched(scope: Scope, args: readonly unknown[]): boolean {
  const patchId = parsePatchId(args, 'patched');
  let known = answers.get(scope);
  const earlier = known?.get(patchId);
  if (earlier !== undefined) return earlier;
  const runtime = scope.runtime;
  const id = scope.peekId();
  const stored = runtime.get(id);
  const taken = isMarker(stored, patchId) || !passedPosition(scope, id);
  if (taken) {
    scope.nextId();
    // Checks type, name and SubType as any replayed operation does, and leaves replay mode
    // when the marker is new work.
    const record = runtime.find(id, 'STEP', patchId, PATCH_SUBTYPE);
    if (!record) recordMarker(scope, id, patchId);
  }
  if (!known) {
    known = new Map();
    answers.set(scope, known);
  }
  known.set(patchId, taken);
  return taken;
}

/**
 * Records the marker, written behind: the answer is synchronous, and the marker is durable
 * before anything that follows it is (the checkpoint queue keeps order) or the invocation
 * ends. Lost with the invocation, nothing after it was kept either: the next replay finds the
 * position empty and answers true again.
 */
function recordMarker(scope: Scope, id: string, patchId: string): void {
  const base = { Id: id, Type: 'STEP' as const, SubType: PATCH_SUBTYPE, Name: patchId, ...parentOf(scope) };
  scope.runtime.enqueue({ ...base, Action: 'SUCCEED' });
  if (!scope.plugin.active) return;
  const done = { ...base, Status: 'SUCCEEDED', StartTimestamp: scope.runtime.invocation.now() } as Operation;
  void operationStart(scope, { ...done, Status: 'STARTED' })
    .then(() => operationEnd(scope, done))
    .catch(() => {});
}

/**
 * `context.deprecatePatch(patchId)`: the step after `patched` once no run without the marker
 * remains. The marker of this patch at its position is passed over (its id taken, so later
 * ids line up); anything else leaves the position alone, and nothing is recorded, so once no
 * run with the marker remains the call can be deleted.
 */
export function runDeprecatePatch(scope: Scope, args: readonly unknown[]): void {
  const patchId = parsePatchId(args, 'deprecatePatch');
  const id = scope.peekId();
  if (!isMarker(scope.runtime.get(id), patchId)) return;
  scope.nextId();
  scope.runtime.find(id, 'STEP', patchId, PATCH_SUBTYPE);
}
