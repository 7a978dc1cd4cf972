/**
 * A run id derived from a key (a run key, the Lambda request id of a plain event, a parent's
 * invoke) names a new run again once the old run's retention has passed: the store replaces the
 * expired run. Anything derived from the run id alone would then be issued a second time (seed
 * 000: a step's idempotency key is never issued for two attempts, across any re-creation). Such a
 * run carries an incarnation, random and unique to its creation, stored with it so it is the same
 * in every invocation; what must differ between creations is derived from {@link incarnationId}.
 */

/**
 * The id that names one creation of a run: `<runId>.<incarnation>`, or the run id alone for a run
 * without an incarnation (a random id, never used again; or a run created before incarnations).
 * Run ids and incarnations use `[0-9a-z]` only, so the `.` is unambiguous.
 */
export function incarnationId(runId: string, incarnation: string | undefined): string {
  return incarnation === undefined ? runId : `${runId}.${incarnation}`;
}
