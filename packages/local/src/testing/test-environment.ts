/** AWS's `LocalDurableTestRunnerSetupParameters`. */
export interface LocalDurableTestRunnerSetupParameters {
  /**
   * True: waits, backoffs and deadlines are skipped (our virtual clock; no fake timers are
   * installed, unlike AWS's). False or omitted: they elapse on the real clock, as AWS's default.
   */
  skipTime?: boolean;
  /**
   * AWS simulates a slow checkpoint API with it. Accepted for compatibility and ignored: our
   * checkpoints go to the in-memory engine (the fault options inject slow and failing writes).
   */
  checkpointDelay?: number;
}

let environment: LocalDurableTestRunnerSetupParameters | undefined;

/** Records the environment `setupTestEnvironment` set up (replacing any earlier one). */
export function setupEnvironment(params: LocalDurableTestRunnerSetupParameters | undefined): void {
  if (params !== undefined && (params === null || typeof params !== 'object')) {
    throw new TypeError('setupTestEnvironment: params must be an object ({ skipTime?, checkpointDelay? })');
  }
  if (params?.skipTime !== undefined && typeof params.skipTime !== 'boolean') {
    throw new TypeError('setupTestEnvironment: params.skipTime must be a boolean');
  }
  environment = { ...params };
}

/** Forgets the environment: runners go back to our default (the virtual clock). */
export function teardownEnvironment(): void {
  environment = undefined;
}

/**
 * Whether runners skip time: our virtual clock when `setupTestEnvironment` was never called (our
 * default); once it was, its `skipTime` as AWS reads it (omitted = false = real time).
 */
export function environmentSkipsTime(): boolean {
  return environment === undefined ? true : environment.skipTime === true;
}
