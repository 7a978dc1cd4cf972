/** Flow control's registers in memory (the `MemoryStore`'s `readGate` and `writeGate`). */
import type { GateKey, GateRecord } from './gate-records';

interface Stored extends GateRecord {
  expiresAt: number;
}

/** Registers by (function, gate, key); an expired one reads as absent and is overwritten as new. */
export class MemoryGates {
  private readonly gates = new Map<string, Stored>();

  read(gate: GateKey, now: number): GateRecord | undefined {
    const stored = this.gates.get(idOf(gate));
    if (!stored || stored.expiresAt <= now) return undefined;
    return { version: stored.version, value: { ...stored.value } };
  }

  write(gate: GateKey, value: GateRecord['value'], expected: number, expiresAt: number, now: number): boolean {
    const current = this.read(gate, now);
    if ((current?.version ?? 0) !== expected) return false;
    this.gates.set(idOf(gate), { version: expected + 1, value: { ...value }, expiresAt });
    return true;
  }
}

function idOf(gate: GateKey): string {
  return JSON.stringify([gate.functionName, gate.gate, gate.key]);
}
