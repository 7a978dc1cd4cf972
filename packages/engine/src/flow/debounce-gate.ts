/**
 * `debounce`: the last run of a key in a quiet window runs; the earlier ones are skipped. One
 * register per key names the latest run (`latest`), when the window began (`firstAt`) and, once
 * decided, the run that fired (`fired`). A run arriving names itself latest and waits (QUEUED)
 * until `min(arrival + period, firstAt + timeout)`; woken then, it fires only if it is still the
 * latest, by one compare-and-set that records it as `fired` (so a retry after a lost response or a
 * crash finds the decision), else it is skipped: a later run took its place and will fire itself.
 */
import type { Store } from '../ports';
import type { GateKey } from './gate-records';
import { gateStore } from './gate-store';

/** A debounce window: `periodMs` quiet, at most `timeoutMs` after its first run (when given). */
export interface DebounceWindow {
  periodMs: number;
  timeoutMs?: number;
}

/** How many compare-and-set attempts one step makes before it fails (a very hot key). */
const ATTEMPTS = 20;

/** Names `runId` the key's latest run; returns when it is to fire if nothing comes after it. */
export async function debounceArrive(
  store: Store,
  gate: GateKey,
  window: DebounceWindow,
  runId: string,
  now: number,
): Promise<number> {
  const gates = gateStore(store);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const record = await gates.readGate(gate);
    const open = record !== undefined && record.value.fired === undefined;
    if (open && record.value.latest === runId) return Number(record.value.fireAt);
    const firstAt = open ? Number(record.value.firstAt) : now;
    const fireAt = Math.min(now + window.periodMs, firstAt + (window.timeoutMs ?? Number.POSITIVE_INFINITY));
    const value = { latest: runId, firstAt, fireAt };
    if (await gates.writeGate(gate, value, record?.version ?? 0, expiryOf(fireAt, window))) return fireAt;
  }
  throw new Error(`durable-lambda: debounce key ${JSON.stringify(gate.key)} is too contended`);
}

/**
 * At its fire time: true when `runId` fires (it is the latest; recorded so a retry answers
 * the same), false when a later run took its place (or the window is gone: decided without it).
 */
export async function debounceFire(
  store: Store,
  gate: GateKey,
  window: DebounceWindow,
  runId: string,
): Promise<boolean> {
  const gates = gateStore(store);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const record = await gates.readGate(gate);
    if (!record) return false;
    if (record.value.fired !== undefined) return record.value.fired === runId;
    if (record.value.latest !== runId) return false;
    const fired = { ...record.value, fired: runId };
    if (await gates.writeGate(gate, fired, record.version, expiryOf(Number(record.value.fireAt), window))) return true;
  }
  throw new Error(`durable-lambda: debounce key ${JSON.stringify(gate.key)} is too contended`);
}

/** A register outlives its window by a period, so a late retry still finds its decision. */
function expiryOf(fireAt: number, window: DebounceWindow): number {
  return fireAt + window.periodMs + 60_000;
}
