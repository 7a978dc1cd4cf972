/**
 * The slots and queues of concurrency keys on DynamoDB (flow control per key; TABLE.md, "Slots
 * and queues"). One partition per (function, key), `pk=SLOT#<function>#<key>`, so a busy key is
 * its own partition and no key throttles another:
 *
 * - `sk=HOLDERS`: the run ids holding a slot, a string set `holders`. Taken with one conditional
 *   `ADD` (already a holder, or fewer than the limit), released with an unconditional `DELETE`:
 *   a set is idempotent under retries and lost responses, and names each holder for the leak check.
 * - `sk=Q#<priority>#<queuedAt>#<runId>` (numbers zero-padded, so the sort key is the admission
 *   order): one item per queued run, put when it is queued and deleted when it is admitted or ends.
 */
import type { QueuedRunEntry, SlotKey } from '@durable-lambda/engine';
import { DeleteCommand, PutCommand, UpdateCommand } from './commands';
import { isConditionFailure } from './errors';
import { Expressions } from './expressions';
import { PK, SK } from './layout';
import type { TableAccess } from './table-access';

/** The sort key of a key's holders item. */
const HOLDERS_SK = 'HOLDERS';
/** The set of holders on it. */
const HOLDERS = 'holders';
/** The sort key prefix of a key's queue items. */
const QUEUE_PREFIX = 'Q#';

/** The partition of a concurrency key. */
export function slotPk(slot: SlotKey): string {
  return `SLOT#${slot.functionName}#${slot.key}`;
}

/** A queue item's sort key: priority (offset so it is never negative), time, run id, each sortable as text. */
export function queueSk(entry: QueuedRunEntry): string {
  const priority = String(entry.priority + 1_000_000_000).padStart(10, '0');
  return `${QUEUE_PREFIX}${priority}#${String(entry.queuedAt).padStart(15, '0')}#${entry.runId}`;
}

/** The `Store` port's slot methods on the table. */
export class DynamoDbSlots {
  constructor(private readonly access: TableAccess) {}

  /** `Store.takeSlot`: one conditional UpdateItem of the holders item. */
  async take(slot: SlotKey, runId: string, limit: number): Promise<boolean> {
    const e = new Expressions();
    const holders = e.name(HOLDERS);
    const id = e.value(new Set([runId]));
    try {
      await this.access.client.send(
        new UpdateCommand({
          TableName: this.access.tableName,
          Key: { [PK]: slotPk(slot), [SK]: HOLDERS_SK },
          UpdateExpression: `ADD ${holders} ${id}`,
          ConditionExpression: `attribute_not_exists(${holders}) OR contains(${holders}, ${e.value(runId)}) OR size(${holders}) < ${e.value(limit)}`,
          ...e.attributes(),
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /** `Store.releaseSlot`: an unconditional `DELETE` from the set (an empty set removes the attribute). */
  async release(slot: SlotKey, runId: string): Promise<void> {
    const e = new Expressions();
    try {
      await this.access.client.send(
        new UpdateCommand({
          TableName: this.access.tableName,
          Key: { [PK]: slotPk(slot), [SK]: HOLDERS_SK },
          UpdateExpression: `DELETE ${e.name(HOLDERS)} ${e.value(new Set([runId]))}`,
          // No item: nothing to release, and none is made.
          ConditionExpression: `attribute_exists(${e.name(PK)})`,
          ...e.attributes(),
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  /** `Store.slotHolders`: one strongly consistent GetItem. */
  async holders(slot: SlotKey): Promise<string[]> {
    const item = await this.access.getItem(slotPk(slot), HOLDERS_SK, [HOLDERS]);
    const set = item?.[HOLDERS];
    return set instanceof Set ? [...set].map(String).sort() : [];
  }

  /** `Store.enqueueRun`: a PutItem of the queue item (the same entry again rewrites it alike). */
  async enqueue(slot: SlotKey, entry: QueuedRunEntry): Promise<void> {
    await this.access.client.send(
      new PutCommand({
        TableName: this.access.tableName,
        Item: {
          [PK]: slotPk(slot),
          [SK]: queueSk(entry),
          runId: entry.runId,
          priority: entry.priority,
          queuedAt: entry.queuedAt,
        },
      }),
    );
  }

  /** `Store.dequeueRun`: a DeleteItem. */
  async dequeue(slot: SlotKey, entry: QueuedRunEntry): Promise<void> {
    await this.access.client.send(
      new DeleteCommand({ TableName: this.access.tableName, Key: { [PK]: slotPk(slot), [SK]: queueSk(entry) } }),
    );
  }

  /** `Store.listQueuedRuns`: one strongly consistent Query of the key's partition, in sort-key order. */
  async list(slot: SlotKey, limit: number, after?: QueuedRunEntry): Promise<QueuedRunEntry[]> {
    const e = new Expressions();
    const pk = slotPk(slot);
    const { items } = await this.access.queryPage({
      KeyConditionExpression: `${e.name(PK)} = ${e.value(pk)} AND begins_with(${e.name(SK)}, ${e.value(QUEUE_PREFIX)})`,
      Limit: limit,
      ...(after ? { ExclusiveStartKey: { [PK]: pk, [SK]: queueSk(after) } } : {}),
      ...e.attributes(),
    });
    return items.map((item) => ({
      runId: String(item.runId),
      priority: Number(item.priority),
      queuedAt: Number(item.queuedAt),
    }));
  }
}
