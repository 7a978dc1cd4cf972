// Read once at load: the check sits on hot paths where logging is usually off.
let verbose = readVerbose();

function readVerbose(): boolean {
  return typeof process !== 'undefined' && process.env.DURABLE_VERBOSE_MODE === 'true';
}

/**
 * Re-reads `DURABLE_VERBOSE_MODE` (AWS's): with `true`, the runtime writes its decisions
 * (checkpoints, suspensions, the end of each invocation) to `console.debug`. The flag is read
 * once at load; call this after changing the variable at run time.
 */
export function refreshLogConfig(): void {
  verbose = readVerbose();
}

/** Writes a runtime decision to `console.debug` in verbose mode; `data` is built only then. */
export function verboseLog(message: string, data?: () => unknown): void {
  if (!verbose) return;
  let detail = '';
  if (data) {
    try {
      detail = JSON.stringify(data());
    } catch {
      detail = '[unserializable]';
    }
  }
  console.debug(`[durable-lambda] ${message}`, detail);
}
