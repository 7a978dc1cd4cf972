/**
 * `rateLimit`: at most `limit` starts of a key in any window of `period`, exactly; a start past
 * it is refused (the run is skipped). One register per key holds the times of the key's last
 * `limit` starts (a sliding log), written by compare-and-set, with the last writer (`by`) so a
 * retry after a lost response finds its own admission. The log costs about 14 bytes a start on
 * DynamoDB: a limit of 70 keeps the item under 1 KB (1 WRU a start); 1,000, about 14 WRU.
 */
import type { Store } from '../ports';
import type { GateKey } from './gate-records';
import { gateStore } from './gate-store';

/** How many compare-and-set attempts one admission makes before it fails (a very hot key). */
const ATTEMPTS = 20;

/** True when `runId` may start now (its start logged); else when the next start will be allowed. */
export async function admitRateLimited(
  store: Store,
  gate: GateKey,
  limit: number,
  periodMs: number,
  runId: string,
  now: number,
): Promise<{ admitted: true } | { admitted: false; nextAt: number }> {
  const gates = gateStore(store);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const record = await gates.readGate(gate);
    if (record && record.value.by === runId) return { admitted: true };
    // Sorted: starts logged by processes whose clocks differ a little need not be in order.
    const log = parseLog(record?.value.log)
      .filter((t) => t > now - periodMs)
      .sort((a, b) => a - b);
    if (log.length >= limit) return { admitted: false, nextAt: (log[log.length - limit] as number) + periodMs };
    const next = [...log, now].slice(-limit);
    const value = { log: next.join(','), by: runId };
    if (await gates.writeGate(gate, value, record?.version ?? 0, now + periodMs)) return { admitted: true };
  }
  throw new Error(`durable-lambda: rateLimit key ${JSON.stringify(gate.key)} is too contended to admit a start`);
}

function parseLog(log: string | number | undefined): number[] {
  if (typeof log !== 'string' || log === '') return [];
  return log.split(',').map(Number);
}
