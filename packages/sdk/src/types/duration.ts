/** A span of time in whole units (compat with AWS's SDK; at least one unit, validated at the call). */
export interface Duration {
  days?: number;
  hours?: number;
  minutes?: number;
  seconds?: number;
}
