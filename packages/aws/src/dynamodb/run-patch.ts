import type { HistoryInvocation, RunMeterIncrement, RunPatch, RunRecord } from '@durable-lambda/engine';
import type { ChunkItem } from './chunks';
import type { Expressions } from './expressions';
import { encodeInvocations, HISTORY_INVOCATIONS, HISTORY_SEQ } from './history-attributes';
import { type ItemLimits, LARGE_RUN_FIELDS, type LargeRunField, prepareRunField, refAttribute } from './items';
import { DUE_SHARD, dueShard, runPk, TTL, ttlSeconds } from './layout';
import { addRunMeter } from './run-meter';

/** Run fields besides the large ones that a {@link RunPatch} may set or remove. */
const PATCHABLE = new Set<string>([
  'status',
  'endedAt',
  'leaseExpiresAt',
  'nextWakeAt',
  'expiresAt',
  'handledEventSeq',
  'parentNotified',
  'deadlineAt',
  'childrenOpen',
  'actions',
  'concurrencyKey',
  'queuedAt',
  'queuePriority',
  'slotHeld',
  'flow',
  'published',
  'tags',
  'signalCursor',
] satisfies (keyof RunPatch)[]);

/**
 * Adds a {@link RunPatch} to an update of the run item: values SET, `null` REMOVEs, large values
 * go to chunks (returned, to be written first) with a reference in `<field>Ref`; `expiresAt`
 * also moves the item's `ttl`, `dueAt` the item's due-index shard ({@link setDueAt}). Keys in
 * `skip` are left out.
 */
export function applyRunPatch(
  e: Expressions,
  runId: string,
  patch: RunPatch | undefined,
  limits: ItemLimits,
  chunkTtl: number,
  skip: ReadonlySet<keyof RunRecord> = new Set(),
): ChunkItem[] {
  const chunks: ChunkItem[] = [];
  for (const [key, value] of Object.entries(patch ?? {})) {
    if (value === undefined || skip.has(key as keyof RunRecord)) continue;
    if ((LARGE_RUN_FIELDS as readonly string[]).includes(key)) {
      const field = key as LargeRunField;
      if (value === null) {
        e.removes(field).removes(refAttribute(field));
        continue;
      }
      const stored = prepareRunField(runPk(runId), field, value, limits, chunkTtl);
      if (stored.ref) e.setTo(refAttribute(field), stored.ref).removes(field);
      else e.setTo(field, stored.inline).removes(refAttribute(field));
      chunks.push(...stored.chunks);
      continue;
    }
    if (key === 'dueAt') {
      setDueAt(e, runId, value as number | null);
      continue;
    }
    // The history's order, under short names (history-attributes.ts).
    if (key === 'historySeq' || key === 'historyInvocations') {
      const attribute = key === 'historySeq' ? HISTORY_SEQ : HISTORY_INVOCATIONS;
      if (value === null) e.removes(attribute);
      else e.setTo(attribute, key === 'historySeq' ? value : encodeInvocations(value as HistoryInvocation[]));
      continue;
    }
    // Run meter hook: an increment, ADDed (see run-meter.ts).
    if (key === 'meter') {
      addRunMeter(e, value as RunMeterIncrement);
      continue;
    }
    if (!PATCHABLE.has(key)) throw new Error(`run patch: ${key} is not a field a commit may change`);
    // A counter that only grows, left out of the item while 0 (items.ts): setting it to 0 changes nothing.
    if (key === 'handledEventSeq' && value === 0) continue;
    if (value === null) e.removes(key);
    else e.setTo(key, value);
    if (key === 'expiresAt') {
      if (value === null) e.removes(TTL);
      else e.setTo(TTL, ttlSeconds(Number(value)));
    }
  }
  return chunks;
}

/**
 * Puts the run in the due index at `dueAt`, or takes it out (`null`): `dueAt` and `dueShard` are
 * set together or removed together, so the sparse index holds exactly the runs with a `dueAt`.
 */
export function setDueAt(e: Expressions, runId: string, dueAt: number | null): void {
  if (dueAt === null) e.removes('dueAt').removes(DUE_SHARD);
  else e.setTo('dueAt', dueAt).setTo(DUE_SHARD, dueShard(runId));
}
