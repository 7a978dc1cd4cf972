/**
 * Flow control at a run's admission: the gates its function declares (`AdmissionRequest`), passed
 * in order — `debounce`, `rateLimit`, `throttle`, `singleton`, `concurrency` — before its handler
 * first runs. Each gate passed is marked on the run (`RunRecord.flow`), so a run woken from a wait
 * goes on from where it stood and a retried invocation asks nothing twice. The decision says what
 * the session writes: run now, wait QUEUED for a slot or for a time, or end the run skipped.
 */
import type { AdmissionRequest, ErrorObject } from '@durable-lambda/protocol';
import { afterAdmission, decideAdmission } from '../concurrency-admission';
import type { QueuedRunEntry } from '../concurrency-slots';
import { functionBaseName } from '../run-query';
import type { FlowGate, FlowMarks, RunPatch, RunRecord } from '../run-record';
import { checkAdmission } from './admission-request';
import { debounceArrive, debounceFire } from './debounce-gate';
import { noteDeclaredLimits } from './declared-limits';
import type { GateKey, GateKind } from './gate-records';
import { admitRateLimited } from './rate-limit-gate';
import { type SingletonDeps, takeSingleton } from './singleton-gate';
import { reserveStart } from './throttle-gate';

/** What the engine needs to decide an admission. */
export type FlowDeps = SingletonDeps;

/** What admission decided, with the fields the session writes for it. */
export type FlowDecision =
  /** Run the handler; `patch` (when present) records the gates passed. */
  | { kind: 'run'; patch?: RunPatch; entry?: QueuedRunEntry }
  /** Wait QUEUED for a slot of the concurrency key (re-checked by the reconciler). */
  | { kind: 'queue'; patch: RunPatch }
  /** Wait QUEUED until `until` (a throttled start, a debounce window), woken then. */
  | { kind: 'wait'; until: number; patch: RunPatch }
  /** End the run CANCELLED with `error`, its handler never run. */
  | { kind: 'skip'; error: ErrorObject; patch: RunPatch };

/** The stable codes of a skipped run's error. */
export type SkipCode = 'debounced' | 'rate_limited' | 'singleton_running';

/**
 * Decides `run`'s admission under `request` (see the module's comment). `previousLost`: the
 * invocation before died, maybe between a slot taken and its record.
 */
export async function decideFlow(
  deps: FlowDeps,
  run: RunRecord,
  request: AdmissionRequest,
  previousLost: boolean,
): Promise<FlowDecision> {
  checkAdmission(request);
  await noteDeclaredLimits(deps.store, deps.clock, run.functionName, request);
  const now = deps.clock.now();
  const passed: FlowGate[] = [...(run.flow?.passed ?? [])];
  const marks = (extra: Omit<FlowMarks, 'passed'> = {}): RunPatch => ({ flow: { passed: [...passed], ...extra } });
  const gateOf = (gate: GateKind, key: string): GateKey => ({
    functionName: functionBaseName(run.functionName),
    gate,
    key,
  });

  const { debounce, rateLimit, throttle, singleton, concurrency } = request;
  if (debounce && !passed.includes('debounce')) {
    const gate = gateOf('debounce', debounce.key);
    if (run.flow?.waitingFor !== 'debounce') {
      const fireAt = await debounceArrive(deps.store, gate, debounce, run.runId, now);
      if (fireAt > now) return { kind: 'wait', until: fireAt, patch: marks({ waitingFor: 'debounce', until: fireAt }) };
    }
    if (!(await debounceFire(deps.store, gate, debounce, run.runId))) {
      return skipped(
        'debounced',
        `a later run of debounce key ${JSON.stringify(debounce.key)} took its place`,
        marks(),
      );
    }
    passed.push('debounce');
  }
  if (rateLimit && !passed.includes('rateLimit')) {
    const gate = gateOf('rateLimit', rateLimit.key);
    const admitted = await admitRateLimited(deps.store, gate, rateLimit.limit, rateLimit.periodMs, run.runId, now);
    if (!admitted.admitted) {
      const next = new Date(admitted.nextAt).toISOString();
      return skipped(
        'rate_limited',
        `rate key ${JSON.stringify(rateLimit.key)} allows ${rateLimit.limit} starts per ${rateLimit.periodMs} ms; the next is allowed at ${next}`,
        marks(),
      );
    }
    passed.push('rateLimit');
  }
  if (throttle && !passed.includes('throttle')) {
    const rate = { limit: throttle.limit, periodMs: throttle.periodMs, burst: throttle.burst ?? 1 };
    const at = await reserveStart(deps.store, gateOf('throttle', throttle.key), rate, run.runId, now);
    passed.push('throttle');
    // Its start is reserved (marked passed): woken at its time, it goes on to the next gate.
    if (at > now) return { kind: 'wait', until: at, patch: marks({ waitingFor: 'throttle', until: at }) };
  }
  if (singleton && !passed.includes('singleton')) {
    const taken = await takeSingleton(deps, run, singleton.key, singleton.mode);
    if (!taken.held) {
      const holders = taken.holders.join(', ') || 'another run';
      return skipped(
        'singleton_running',
        `singleton key ${JSON.stringify(singleton.key)} is held by ${holders}`,
        marks(),
      );
    }
    passed.push('singleton');
    return { kind: 'run', patch: { ...marks(), concurrencyKey: singleton.key, slotHeld: true } };
  }
  if (concurrency) {
    const decided = await decideAdmission(deps, run, concurrency, previousLost);
    if (!decided.admitted) return { kind: 'queue', patch: { ...marks(), ...decided.patch } };
    const patch = changed(run, passed) ? { ...marks(), ...decided.patch } : decided.patch;
    return { kind: 'run', ...(patch ? { patch } : {}), ...(decided.entry ? { entry: decided.entry } : {}) };
  }
  return changed(run, passed) ? { kind: 'run', patch: marks() } : { kind: 'run' };
}

/** After an admission to run is recorded: a run that came from a concurrency queue leaves it. */
export async function afterFlow(
  deps: FlowDeps,
  run: RunRecord,
  request: AdmissionRequest,
  entry: QueuedRunEntry | undefined,
): Promise<void> {
  if (request.concurrency) await afterAdmission(deps, run, request.concurrency, entry);
}

/** Whether the gates passed differ from those the run has marked (or a wait is to be cleared). */
function changed(run: RunRecord, passed: readonly FlowGate[]): boolean {
  return (run.flow?.passed.length ?? 0) !== passed.length || run.flow?.waitingFor !== undefined;
}

function skipped(code: SkipCode, message: string, patch: RunPatch): FlowDecision {
  return { kind: 'skip', error: { ErrorType: 'RunSkipped', ErrorMessage: message, ErrorCode: code }, patch };
}
