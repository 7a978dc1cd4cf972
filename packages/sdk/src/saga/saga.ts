import type { ErrorObject } from '@durable-lambda/protocol';
import type { CompensationRegistry, Scope } from '../context/scope';
import { runStep } from '../operations/step';
import type { RetryStrategy } from '../types/retry';
import type { CompensationReport } from '../types/saga';
import type { Serdes } from '../types/serdes';
import type { StepContext } from '../types/step';
import type { PlannedCompensation } from './compensation-config';

/** One step's registered undo. */
interface Registration {
  id: string;
  label: string;
  compensation: PlannedCompensation;
  /** The step's own outcome: the compensation receives its result. */
  outcome: Promise<unknown>;
  /** Known live once the step's result reached the handler. */
  succeeded: boolean;
  /** Its compensation has run (succeeded or failed for good): it never runs again. */
  settled: boolean;
}

/**
 * The run's compensations (one per invocation, shared by every context of the run: those
 * registered in child contexts belong to the run). Registration happens at the step's call, the
 * same on every replay; which ones a round undoes is itself a checkpointed step (`saga plan`),
 * so a round resumed after a crash undoes exactly the steps the first try chose, whatever
 * finished since, and the compensations already done replay instead of running again.
 */
export class Saga implements CompensationRegistry {
  private readonly registrations = new Map<string, Registration>();
  private readonly report: CompensationReport = { compensated: [], failed: [] };
  private round: Promise<unknown> = Promise.resolve();

  /** Registers the undo of step `id`, to run once `outcome` has succeeded. */
  register(id: string, name: string | undefined, compensation: PlannedCompensation, outcome: Promise<unknown>): void {
    const registration: Registration = {
      id,
      label: name ?? id,
      compensation,
      outcome,
      succeeded: false,
      settled: false,
    };
    this.registrations.set(id, registration);
    outcome.then(
      () => {
        registration.succeeded = true;
      },
      () => {},
    );
  }

  /** Whether a step of context `id` (or of a context within it) registered a compensation. */
  registeredUnder(id: string): boolean {
    const prefix = `${id}-`;
    for (const r of this.registrations.keys()) if (r.startsWith(prefix)) return true;
    return false;
  }

  /** True when some registered compensation has not run yet (a round may have work). */
  get pending(): boolean {
    return this.pendingUnder(undefined);
  }

  /** Whether some compensation registered under context `under` (or anywhere) has not run yet. */
  private pendingUnder(under: string | undefined): boolean {
    for (const r of this.registrations.values()) if (!r.settled && within(r.id, under)) return true;
    return false;
  }

  /** What the run has undone so far (a copy). */
  snapshot(): CompensationReport {
    return { compensated: [...this.report.compensated], failed: this.report.failed.map((f) => ({ ...f })) };
  }

  /**
   * Runs the compensations not yet run, in `scope`. Rounds are serialised: two `compensate()`
   * calls at once run one after the other, and the second finds nothing left to run.
   */
  compensate(scope: Scope, under?: string): Promise<CompensationReport> {
    const next = this.round.then(() => this.runRound(scope, under));
    this.round = next.catch(() => {});
    return next;
  }

  private async runRound(scope: Scope, under: string | undefined): Promise<CompensationReport> {
    // Nothing registered, or all run: no plan step, so a run without compensations records
    // exactly the operations (and error) it would without this feature.
    if (!this.pendingUnder(under)) return this.snapshot();
    const ids = await runStep<string[]>(scope, [
      'saga plan',
      () => this.plan(under),
      { serdes: PLAN_SERDES, retryStrategy: PLAN_RETRY },
    ]);
    for (const id of ids) {
      const registration = this.registrations.get(id);
      if (!registration || registration.settled) continue;
      registration.settled = true;
      const { run, config } = registration.compensation;
      try {
        await runStep(scope, [
          `compensate ${registration.label}`,
          async (context: StepContext) => {
            await run(await registration.outcome, context);
          },
          { ...config, serdes: IGNORED_RESULT },
        ]);
        this.report.compensated.push(registration.label);
      } catch (error) {
        this.report.failed.push({ step: registration.label, error: messageOf(error) });
      }
    }
    return this.snapshot();
  }

  /**
   * The steps this round undoes: those that succeeded and were not undone yet, last first. The
   * order is by position in the run (ids), not by the moment they finished, which replay does
   * not reproduce for steps run concurrently.
   */
  private plan(under: string | undefined): string[] {
    return [...this.registrations.values()]
      .filter((r) => r.succeeded && !r.settled && within(r.id, under))
      .map((r) => r.id)
      .sort(byPositionDescending);
  }
}

/** A compensation's return value is not the saga's business: nothing is stored for it. */
const IGNORED_RESULT: Serdes<unknown> = {
  serialize: () => undefined,
  deserialize: () => undefined,
};

/**
 * The plan has no side effect, so only lost attempts (killed invocations) fail it: they must not
 * use up a budget and leave the run failing with nothing undone. Bounded all the same.
 */
const PLAN_RETRY: RetryStrategy = (_error, attempt) => ({ shouldRetry: attempt < 100, delay: { seconds: 1 } });

/** JSON whatever the context's default serdes (a custom one may not handle a list of ids). */
const PLAN_SERDES: Serdes<string[]> = {
  serialize: (ids) => JSON.stringify(ids ?? []),
  deserialize: (data) => (data === undefined ? [] : (JSON.parse(data) as string[])),
};

/** Whether step `id` belongs to context `under` (any step when undefined). */
function within(id: string, under: string | undefined): boolean {
  return under === undefined || id.startsWith(`${under}-`);
}

function byPositionDescending(a: string, b: string): number {
  const pa = a.split('-').map(Number);
  const pb = b.split('-').map(Number);
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    if (pa[i] !== pb[i]) return (pb[i] ?? 0) - (pa[i] ?? 0);
  }
  return pb.length - pa.length;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The run's error once compensations ran: the handler's error as recorded without them, with
 * `ErrorData` saying what was undone (`{"compensated":[...],"failed":[...]}`); a durable error's
 * own `ErrorData` is kept under `errorData`. A run that undid nothing keeps its error unchanged
 * (AWS's shape).
 */
export function withCompensations(error: ErrorObject, report: CompensationReport): ErrorObject {
  if (report.compensated.length === 0 && report.failed.length === 0) return error;
  const data: CompensationReport & { errorData?: string } = { ...report };
  if (error.ErrorData !== undefined) data.errorData = error.ErrorData;
  return { ...error, ErrorData: JSON.stringify(data) };
}
