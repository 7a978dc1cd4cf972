/**
 * The shapes of flow control's small registers (`throttle`, `rateLimit`, `debounce`): one record
 * per (function, gate, key), a version and a value, written only by compare-and-set through the
 * optional gate methods of the `Store` port. A leaf of the engine's import graph.
 */

/** The gates that keep a register (and a schedule's runs, `starts/schedule-register.ts`). */
export type GateKind = 'throttle' | 'rateLimit' | 'debounce' | 'schedule';

/** A register's identity: per function (every version shares it), per gate, per key. */
export interface GateKey {
  /** The function's bare name. */
  functionName: string;
  gate: GateKind;
  /** The run's key under the gate (a function of its input). */
  key: string;
}

/** A register as stored: its value and the version every write must name. */
export interface GateRecord {
  /** Grows by one at every write; the first write makes version 1. */
  version: number;
  /** The gate's state (see `rate-gate.ts`, `debounce-gate.ts`): small, flat, JSON-safe. */
  value: Record<string, string | number>;
}
