import {
  Engine,
  type EngineOptions,
  type EngineSession,
  RunKeyConflictError,
  type RunRecord,
  type StartRunRequest,
} from '@durable-lambda/engine';
import { splitRunName } from './version-pinning';

/**
 * Where the runs an invocation meets may run: this invocation's code and the function's pinning
 * policy (the production backend's is `runsElsewhere` and `namePinnedAtLease` of the code it runs).
 */
export interface RunPlacement {
  /** The name to hand a run recorded as `functionName` to (its own), or undefined: it runs here. */
  elsewhere(functionName: string): string | undefined;
  /**
   * True when a run leased here under `functionName` should have been pinned by its lease and
   * was not (the pin write failed): it must not run unpinned, or a later invocation on other code
   * would pin it there after steps ran here.
   */
  unpinned(functionName: string): boolean;
  /** Hands the run over to `functionName`: an asynchronous invoke with the run's wake event. */
  handOver(functionName: string, runId: string): Promise<void>;
}

/** A store that can read a run for the engine's own read of it that follows (`PinningStore`). */
interface ReadsAhead {
  readAhead(runId: string): Promise<RunRecord | undefined>;
}

function readsAhead(store: unknown): store is ReadsAhead {
  return typeof (store as Partial<ReadsAhead>).readAhead === 'function';
}

/** Options of a {@link PinnedRunsEngine}: the engine's, and where runs may run. */
export interface PinnedRunsEngineOptions extends EngineOptions {
  /** Without it, every run opens here (the control API's engine, which runs no code). */
  placement?: RunPlacement;
}

/**
 * The engine of a backend whose runs are pinned where they first run.
 *
 * Starting a run whose key names a run already there is idempotent when the two differ only in
 * where the run is pinned (`orders` or `orders:live` asked, `orders:7` recorded since its first
 * invocation), as when a parent replays the `invoke` that started its child, a client repeats a
 * start request, or Lambda delivers a start event again after a deploy. Any other difference
 * (another function, another input) is still a `RunKeyConflictError`.
 *
 * Opening a run (a wake-up, or a start event that found its run) is the one way code runs on a
 * run, so it is where the {@link RunPlacement} is enforced: a run recorded elsewhere is handed
 * there unopened (read first, so the common case costs no write), and a run found elsewhere once
 * leased (pinned by another invocation between that read and the lease, or left unpinned by a
 * failed pin write) is released at once, due again in a moment, without running anything.
 */
export class PinnedRunsEngine extends Engine {
  private readonly placement: RunPlacement | undefined;

  constructor(options: PinnedRunsEngineOptions) {
    const { placement, ...engine } = options;
    super(engine);
    this.placement = placement;
  }

  override async startRun(request: StartRunRequest): Promise<{ run: RunRecord; created: boolean }> {
    try {
      return await super.startRun(request);
    } catch (error) {
      if (!(error instanceof RunKeyConflictError)) throw error;
      const run = await this.getRun(error.runId);
      const same =
        run !== undefined &&
        splitRunName(run.functionName).name === splitRunName(request.functionName).name &&
        run.input === request.input;
      if (!same) throw error;
      return { run, created: false };
    }
  }

  override async openRun(
    runId: string,
    options: { remainingTimeMs?: () => number } = {},
  ): Promise<EngineSession | undefined> {
    const placement = this.placement;
    if (!placement) return super.openRun(runId, options);
    // The engine reads the run again at once: a store that reads ahead answers that from this read.
    const run = await (readsAhead(this.store) ? this.store.readAhead(runId) : this.store.getRun(runId));
    const recordedElsewhere = run?.status === 'RUNNING' ? placement.elsewhere(run.functionName) : undefined;
    if (recordedElsewhere !== undefined) {
      await placement.handOver(recordedElsewhere, runId);
      return undefined;
    }
    const session = await super.openRun(runId, options);
    if (!session) return undefined;
    const leasedElsewhere = placement.elsewhere(session.functionName);
    if (leasedElsewhere === undefined && !placement.unpinned(session.functionName)) return session;
    // Nothing ran: the lease is released with the run due in a moment (and its wake-up asked for).
    await session.abort(new Error(`durable-lambda: run ${runId} (${session.functionName}) does not run here`));
    if (leasedElsewhere !== undefined) await placement.handOver(leasedElsewhere, runId);
    return undefined;
  }
}
