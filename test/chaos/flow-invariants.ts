/**
 * The guarantees of issue 26 checked once a flow seed's world is quiet (every run driven to its
 * end, the reconciler run until nothing is due), on the store beneath the faults:
 *
 * - **Limit.** No key ever had more than `limit` handler bodies executing at once (`KeyedBodies`,
 *   checked at each entry), and no key's holder set is above its limit now.
 * - **No slot leaked.** No run is QUEUED (or RUNNING, or ended but still due), no queue entry is
 *   left that its run's record still names (a stale one, which the queue's readers drop when they
 *   meet it, is counted), and no holder of any key is a run that ended, unless its release was lost to a fault
 *   at its end (a lost response of its end's write, a death before its release) or its admission
 *   was never recorded (a slot taken, then the run ended from outside first): the engine heals
 *   such a slot at the key's next admission that finds it full (`evictEnded`), not before, so a
 *   key no run asks for again keeps it. `DURABLE_CHAOS_STRICT_SLOTS=1` counts those too.
 * - **Queued runs move on.** Every run that was QUEUED ran its handler after (a hand-over) or was
 *   ended from outside (cancelled, timed out).
 * - **One run per event.** Every distinct trigger event and every schedule firing that started a
 *   run created exactly one run, under its key's run id, however often and however late it was
 *   delivered (a late duplicate starts nothing: checked by the caller); a firing skipped by its
 *   overlap policy created none.
 * - **Ends as it should.** Every run SUCCEEDED with its job's result, or was CANCELLED by an
 *   action, or TIMED_OUT (or FAILED, once retried) under an execution timeout.
 */
import { type RunRecord, runIdFor, type Store } from '@durable-lambda/engine';
import type { TestDriver } from '@durable-lambda/local';
import type { FlowStarts, StartTally } from './flow-starts';
import { ENDED, expectedResult, KEYED, type KeyedBodies } from './flow-workflow';
import type { LoggedWrite } from './store-log';

/** What a flow seed did, for the summary. */
export interface FlowTally extends StartTally {
  /** Runs of the keyed function. */
  runs: number;
  /** Runs that passed their admission (entered their handler body). */
  admitted: number;
  /** Runs that were QUEUED at least once. */
  queued: number;
  /** QUEUED runs that later ran their handler (a slot handed over, or found free at a re-check). */
  handOvers: number;
  /** Keys whose bodies reached the limit at once (the key was contended). */
  contended: number;
  /** Invocations killed in admission or between their end and their slot's release. */
  slotKills: number;
  /** Slot writes whose response was lost (takeSlot, releaseSlot, enqueueRun, dequeueRun). */
  slotLost: number;
  /** Runs killed before their slot's release whose slot was freed later (evicted by an admission). */
  evicted: number;
  /** Ended runs still holding a slot once the world is quiet (their release lost to a fault). */
  endedHolders: number;
  /** Queue entries left once the world is quiet, stale (their run's record no longer names them). */
  staleEntries: number;
  /** Trigger deliveries that created nothing (duplicates, late or not). */
  duplicates: number;
}

/** What {@link checkFlow} looks at. */
export interface FlowEvidence {
  driver: TestDriver;
  raw: Store;
  log: readonly LoggedWrite[];
  bodies: KeyedBodies;
  starts: FlowStarts;
  runs: readonly RunRecord[];
  keys: readonly string[];
  limit: number;
  /** The seed's violations, added to. */
  violations: string[];
}

const SLOT_WRITES = new Set(['takeSlot', 'releaseSlot', 'enqueueRun', 'dequeueRun']);

/** Checks the flow invariants (adding to `violations`) and returns the seed's tally. */
export async function checkFlow(e: FlowEvidence): Promise<FlowTally> {
  const { raw, log, bodies, starts, runs, keys, limit, violations } = e;
  const byId = new Map(runs.map((r) => [r.runId, r]));
  for (const run of runs) {
    if (run.status === 'RUNNING' || run.status === 'QUEUED') violations.push(`run ${run.runId} stayed ${run.status}`);
    else if (run.dueAt !== undefined) violations.push(`run ${run.runId} ended ${run.status} but is still due`);
  }
  const holdersLeft = new Set<string>();
  const strict = process.env.DURABLE_CHAOS_STRICT_SLOTS === '1';
  // Runs whose end may have lost its slot's release: a write of theirs lost its response, or they died before it.
  const lostEnd = new Set(
    e.driver.faults
      .filter(
        (f) =>
          (f.kind === 'storeLostResponse' && (f.detail === 'commit' || f.detail === 'reviseRun')) ||
          (f.kind === 'killInCheckpoint' && f.detail?.includes('slot is released')),
      )
      .map((f) => f.runId),
  );
  let endedHolders = 0;
  let staleEntries = 0;
  for (const key of keys) {
    const slot = { functionName: KEYED, key };
    const holders = (await raw.slotHolders?.(slot)) ?? [];
    if (holders.length > limit) violations.push(`key ${key} has ${holders.length} holders, above its limit ${limit}`);
    for (const holder of holders) {
      holdersLeft.add(holder);
      const status = byId.get(holder)?.status ?? 'gone';
      if (!ENDED.has(status) && status !== 'gone') continue;
      endedHolders += 1;
      // Its admission never recorded (a slot taken, then the run ended from outside before the
      // record): the engine cannot know it holds one, and leaves it to the next full admission.
      const unrecorded = byId.get(holder)?.concurrencyKey === undefined;
      if (strict || !(lostEnd.has(holder) || unrecorded)) {
        violations.push(
          `slot leaked: key ${key} is still held by run ${holder}, which ended ${status}` +
            (lostEnd.has(holder)
              ? ' (its release was lost to a fault)'
              : unrecorded
                ? ' (its admission was never recorded)'
                : ' with no fault at its end to explain it'),
        );
      }
    }
    for (const entry of (await raw.listQueuedRuns?.(slot, 100)) ?? []) {
      const run = byId.get(entry.runId);
      // An entry the run's record no longer names (admitted since, or queued again, or never
      // recorded) is stale: the queue's readers drop it when they next meet it (`queueHead`).
      const named = run?.concurrencyKey === key && run.queuedAt === entry.queuedAt;
      staleEntries += 1;
      if (strict || (named && !lostEnd.has(entry.runId)) || run?.status === 'QUEUED') {
        violations.push(`queue entry left: key ${key} still queues run ${entry.runId} (${run?.status ?? 'gone'})`);
      }
    }
  }
  // Queued runs: each ran its handler after its last QUEUED mark, or was ended from outside.
  const lastQueued = new Map<string, number>();
  for (const w of log) if (w.status === 'QUEUED') lastQueued.set(w.runId, w.seq);
  let handOvers = 0;
  for (const [runId, seq] of lastQueued) {
    const ran = bodies.entries.some((b) => b.runId === runId && b.seq > seq);
    if (ran) handOvers += 1;
    const status = byId.get(runId)?.status;
    if (!ran && status !== 'CANCELLED' && status !== 'TIMED_OUT') {
      violations.push(`run ${runId} was QUEUED and never ran, yet ended ${status}`);
    }
  }
  // One run per event, however delivered.
  const creates = new Map<string, number>();
  for (const w of log) if (w.kind === 'create') creates.set(w.runId, (creates.get(w.runId) ?? 0) + 1);
  const expectOne = (what: string, runKey: string) => {
    const runId = runIdFor(runKey);
    const n = creates.get(runId) ?? 0;
    if (n !== 1) violations.push(`${what} (${runKey}) created ${n} runs; expected exactly one`);
    const answered = [...(starts.answered.get(runKey) ?? [])];
    if (answered.some((id) => id !== runId)) {
      violations.push(`${what} (${runKey}) was answered with runs ${answered.join(', ')}; expected ${runId} alone`);
    }
  };
  let triggerRuns = 0;
  for (const t of starts.triggers) {
    for (const runKey of t.runKeys) {
      expectOne(`trigger event ${t.name}`, runKey);
      triggerRuns += 1;
    }
  }
  for (const f of starts.firings) {
    if (starts.started.has(f.runKey)) expectOne('schedule firing', f.runKey);
    else if ((creates.get(runIdFor(f.runKey)) ?? 0) > 0) {
      violations.push(`schedule firing ${f.runKey} was skipped, yet created a run`);
    }
  }
  // How each run ended.
  for (const run of runs) {
    const cancelled = (run.actions ?? []).some((a) => a.action === 'cancel' || a.action === 'cancel_tree');
    if (run.status === 'SUCCEEDED') {
      if (!expectedResult(run.result === undefined ? undefined : JSON.parse(run.result))) {
        violations.push(`run ${run.runId} succeeded with ${run.result}, not its job's result`);
      }
    } else if (
      !(run.status === 'CANCELLED' && cancelled) &&
      // A run with an execution timeout may end TIMED_OUT, or FAILED once retried (its callback ended by the timeout).
      !((run.status === 'TIMED_OUT' || run.status === 'FAILED') && run.executionTimeoutMs !== undefined)
    ) {
      violations.push(`run ${run.runId} ended ${run.status} (${JSON.stringify(run.error)}) with no cause for it`);
    }
  }
  const faults = e.driver.faults;
  const releaseKills = faults.filter((f) => f.kind === 'killInCheckpoint' && f.detail?.includes('slot is released'));
  return {
    ...starts.tally,
    runs: runs.length,
    admitted: new Set(bodies.entries.map((b) => b.runId)).size,
    queued: lastQueued.size,
    handOvers,
    contended: [...bodies.peak.values()].filter((n) => n >= limit).length,
    slotKills: faults.filter((f) => f.kind === 'killInCheckpoint' && /slot (write|is released)/.test(f.detail ?? ''))
      .length,
    slotLost: faults.filter((f) => f.kind === 'storeLostResponse' && SLOT_WRITES.has(f.detail ?? '')).length,
    evicted: new Set(releaseKills.map((f) => f.runId).filter((id) => !holdersLeft.has(id))).size,
    duplicates: Math.max(0, starts.tally.deliveries - triggerRuns),
    endedHolders,
    staleEntries,
  };
}
