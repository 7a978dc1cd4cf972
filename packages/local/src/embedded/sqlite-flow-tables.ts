/**
 * The flow-control tables of a `SqliteStore` (the base it extends): concurrency slots and queues
 * (`SqliteSlots`), the registers of throttle, rate limit and debounce (`SqliteGates`) and each
 * function's recorded limits (`SqliteFunctionLimits`), as the `Store` port's optional methods.
 */
import type { FunctionLimitsRecord, GateKey, GateRecord, QueuedRunEntry, SlotKey } from '@durable-lambda/engine';
import type { SqliteDatabase } from './sqlite-driver';
import { SqliteFunctionLimits } from './sqlite-function-limits';
import { SqliteGates } from './sqlite-gates';
import { SqliteSlots } from './sqlite-slots';

/** The `Store` port's flow-control methods over a database's tables (attached once it is open). */
export abstract class SqliteFlowTables {
  private slots!: SqliteSlots;
  private gates!: SqliteGates;
  private functionLimits!: SqliteFunctionLimits;

  /** Serves the methods from `db` (migrated); `now` reads the store's clock. */
  protected attachFlowTables(db: SqliteDatabase, now: () => number): void {
    this.slots = new SqliteSlots(db);
    this.gates = new SqliteGates(db, now);
    this.functionLimits = new SqliteFunctionLimits(db);
  }

  async takeSlot(slot: SlotKey, runId: string, limit: number): Promise<boolean> {
    return this.slots.take(slot, runId, limit);
  }

  async releaseSlot(slot: SlotKey, runId: string): Promise<void> {
    this.slots.release(slot, runId);
  }

  async slotHolders(slot: SlotKey): Promise<string[]> {
    return this.slots.holders(slot);
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
    return this.gates.read(gate);
  }

  async writeGate(gate: GateKey, value: GateRecord['value'], expected: number, expiresAt: number): Promise<boolean> {
    return this.gates.write(gate, value, expected, expiresAt);
  }

  async putFunctionLimits(record: FunctionLimitsRecord): Promise<void> {
    this.functionLimits.put(record);
  }

  async getFunctionLimits(functionName: string): Promise<FunctionLimitsRecord | undefined> {
    return this.functionLimits.get(functionName);
  }

  async listFunctionLimits(): Promise<FunctionLimitsRecord[]> {
    return this.functionLimits.list();
  }
}
