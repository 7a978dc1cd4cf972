import { Engine, RunKeyConflictError, type RunRecord, type StartRunRequest } from '@durable-lambda/engine';
import { splitRunName } from './version-pinning';

/**
 * The engine of a backend whose runs are pinned where they first run: starting a run whose key
 * names a run already there is idempotent when the two differ only in where the run is pinned
 * (`orders` or `orders:live` asked, `orders:7` recorded since its first invocation), as when a
 * parent replays the `invoke` that started its child, or a client repeats a start request. Any
 * other difference (another function, another input) is still a `RunKeyConflictError`.
 */
export class PinnedRunsEngine extends Engine {
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
}
