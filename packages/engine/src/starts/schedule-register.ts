/**
 * A schedule's register of its runs not yet seen to end (flow control's registers, kind
 * `schedule`, keyed by the schedule's name): what an overlap policy decides on, read in one
 * consistent read and one read per run it names (the live ones: one or two under `skip`,
 * `bufferOne`, `cancelPrevious`), whatever else the function runs. A firing names its run in the
 * register before starting it (the run's id follows from its key), by compare-and-set, so a
 * crash between the two leaves a name of a run that does not exist (read as ended), never a run
 * the next firing cannot see.
 */

import type { GateKey } from '../flow/gate-records';
import { gateStore } from '../flow/gate-store';
import type { RunRecord, Store } from '../ports';
import { functionBaseName } from '../run-query';

/** How long a register outlives its last firing (a schedule firing less often is read as new). */
const KEEP_MS = 400 * 86_400_000;

/** The schedule's runs, as its register names them, read now. */
export interface ScheduleRuns {
  /** The register's version (0: none yet), for the write that names the next run. */
  version: number;
  /** Its runs still RUNNING or QUEUED (ended and missing ones dropped). */
  live: RunRecord[];
}

/** The register of schedule `name` of `functionName`. */
export function scheduleGate(functionName: string, name: string): GateKey {
  return { functionName: functionBaseName(functionName), gate: 'schedule', key: name };
}

/** Reads the register and each run it names. */
export async function readScheduleRuns(store: Store, gate: GateKey): Promise<ScheduleRuns> {
  const record = await gateStore(store).readGate(gate);
  const ids = String(record?.value.runs ?? '')
    .split(',')
    .filter((id) => id.length > 0);
  const runs = await Promise.all(ids.map((id) => store.getRun(id)));
  const live = runs.filter((r): r is RunRecord => r !== undefined && (r.status === 'RUNNING' || r.status === 'QUEUED'));
  return { version: record?.version ?? 0, live };
}

/**
 * Names `runIds` (the live runs kept, and the firing's new one) in the register, if it is still
 * at `version`; false when another firing wrote first (read again and decide again).
 */
export async function nameScheduleRuns(
  store: Store,
  gate: GateKey,
  version: number,
  runIds: readonly string[],
  now: number,
): Promise<boolean> {
  const value = { runs: [...new Set(runIds)].join(',') };
  return gateStore(store).writeGate(gate, value, version, now + KEEP_MS);
}
