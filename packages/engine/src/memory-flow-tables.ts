/**
 * The flow-control tables of a `MemoryStore` (the base it extends), as `SqliteFlowTables` is the
 * SQLite store's: concurrency slots and queues (`MemorySlots`), the registers of throttle, rate
 * limit and debounce (`MemoryGates`) and each function's recorded limits, as the `Store` port's
 * optional methods.
 */
import type { QueuedRunEntry, SlotKey } from './concurrency-slots';
import type { GateKey, GateRecord } from './flow/gate-records';
import { MemoryGates } from './flow/memory-gates';
import type { FunctionLimitsRecord } from './function-limits';
import { MemorySlots } from './memory-slots';
import { copyData } from './operation-copy';

/** The `Store` port's flow-control methods, in memory. */
export abstract class MemoryFlowTables {
  /** The slots and queues of concurrency keys. */
  private readonly slots = new MemorySlots();
  /** Flow control's registers (`throttle`, `rateLimit`, `debounce`). */
  private readonly gates = new MemoryGates();
  /** Each function's limits record, by bare name. */
  private readonly functionLimits = new Map<string, FunctionLimitsRecord>();

  /** `clock` is the store's: gates expire by it. */
  constructor(protected readonly clock: { now(): number }) {}

  async takeSlot(slot: SlotKey, runId: string, limit: number): Promise<boolean> {
    return this.slots.take(slot, runId, limit);
  }

  async releaseSlot(slot: SlotKey, runId: string): Promise<void> {
    this.slots.release(slot, runId);
  }

  async slotHolders(slot: SlotKey): Promise<string[]> {
    return this.slots.holdersOf(slot);
  }

  async enqueueRun(slot: SlotKey, entry: QueuedRunEntry): Promise<void> {
    this.slots.enqueue(slot, entry);
  }

  async dequeueRun(slot: SlotKey, entry: QueuedRunEntry): Promise<void> {
    this.slots.dequeue(slot, entry);
  }

  async listQueuedRuns(slot: SlotKey, limit: number, after?: QueuedRunEntry): Promise<QueuedRunEntry[]> {
    return this.slots.list(slot, limit, after);
  }

  async readGate(gate: GateKey): Promise<GateRecord | undefined> {
    return this.gates.read(gate, this.clock.now());
  }

  async writeGate(gate: GateKey, value: GateRecord['value'], expected: number, expiresAt: number): Promise<boolean> {
    return this.gates.write(gate, value, expected, expiresAt, this.clock.now());
  }

  async putFunctionLimits(record: FunctionLimitsRecord): Promise<void> {
    this.functionLimits.set(record.functionName, copyData(record));
  }

  async getFunctionLimits(functionName: string): Promise<FunctionLimitsRecord | undefined> {
    const record = this.functionLimits.get(functionName);
    return record && copyData(record);
  }

  async listFunctionLimits(): Promise<FunctionLimitsRecord[]> {
    return [...this.functionLimits.values()]
      .sort((a, b) => (a.functionName < b.functionName ? -1 : a.functionName > b.functionName ? 1 : 0))
      .map((record) => copyData(record));
  }
}
