/**
 * `throttle`: at most `limit` starts per `period` per key, smoothed, kept as a generic cell rate
 * (GCRA) in one register per key. Each start reserves the next start time the key allows in one
 * compare-and-set write: starts are spaced `period / limit` apart, and `burst` of them may go at
 * once (default 1: at most `limit` in any window of `period`). The run waits for its reserved time
 * QUEUED, woken by its waker, so waiting costs no invocation.
 *
 * The register holds the key's theoretical arrival time `tat` (when the bucket is full again) and
 * the last reservation (`by`, `at`), so a retry after a lost response finds its own reservation
 * instead of taking a second.
 */
import type { Store } from '../ports';
import type { GateKey } from './gate-records';
import { gateStore } from './gate-store';

/** A rate: at most `limit` starts per `periodMs`, `burst` at once. */
export interface Rate {
  limit: number;
  periodMs: number;
  burst: number;
}

/** How many compare-and-set attempts one reservation makes before it fails (a very hot key). */
const ATTEMPTS = 20;

/** Reserves a start for `runId` under `rate`: when it may start (now or later). */
export async function reserveStart(
  store: Store,
  gate: GateKey,
  rate: Rate,
  runId: string,
  now: number,
): Promise<number> {
  const gates = gateStore(store);
  const interval = rate.periodMs / rate.limit;
  const tolerance = (rate.burst - 1) * interval;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const record = await gates.readGate(gate);
    if (record && record.value.by === runId) return Number(record.value.at);
    const tat = Math.max(Number(record?.value.tat ?? 0), now);
    const at = Math.max(now, tat - tolerance);
    const value = { tat: tat + interval, by: runId, at };
    // Idle past `tat + interval`, the register says nothing a fresh one would not.
    if (await gates.writeGate(gate, value, record?.version ?? 0, tat + interval + rate.periodMs)) return at;
  }
  throw new Error(`durable-lambda: ${gate.gate} key ${JSON.stringify(gate.key)} is too contended to reserve a start`);
}
