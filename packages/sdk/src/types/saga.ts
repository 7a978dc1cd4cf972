/** Ours: a compensation that failed after its retries. */
export interface FailedCompensation {
  /** The compensated step's name (its id when it has none). */
  step: string;
  /** The message of the compensation's last error. */
  error: string;
}

/**
 * Ours: what the run's compensations undid so far (cumulative over the run), in the order they
 * ran. It is also the `ErrorData` (JSON) of a run that failed after compensating.
 */
export interface CompensationReport {
  /** The steps undone, by name (their id when unnamed), in the order their compensations ran. */
  compensated: string[];
  /** The compensations that failed after their retries (the others still ran). */
  failed: FailedCompensation[];
}
