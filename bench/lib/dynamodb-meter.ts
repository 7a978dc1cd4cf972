import { writeSync } from 'node:fs';
import {
  type AttributeValue,
  DescribeTableCommand,
  type DynamoDBClient,
  GetItemCommand,
  QueryCommand,
  type ServiceInputTypes,
  type ServiceOutputTypes,
} from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { InitializeMiddleware } from '@smithy/types';

// ---------------------------------------------------------------------------------------------
// Item sizes and capacity units, by DynamoDB's documented rules

/** A DynamoDB item in the low-level client's shape. */
export type Item = Record<string, AttributeValue>;

/** Bytes of a string in UTF-8 (DynamoDB sizes names and strings so). */
export const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');

/** A number's size: about one byte per two significant digits, plus one. */
export function numberSize(n: string): number {
  const digits = n
    .replace(/^[-+]/, '')
    .replace(/[eE].*$/, '')
    .replace('.', '')
    .replace(/^0+/, '')
    .replace(/0+$/, '');
  return Math.ceil(Math.max(1, digits.length) / 2) + 1;
}

/** Size of one attribute value by DynamoDB's documented rules. */
export function valueSize(v: AttributeValue): number {
  if (v.S !== undefined) return utf8(v.S);
  if (v.N !== undefined) return numberSize(v.N);
  if (v.B !== undefined) return v.B.length;
  if (v.BOOL !== undefined || v.NULL !== undefined) return 1;
  if (v.SS) return v.SS.reduce((sum, s) => sum + utf8(s), 0);
  if (v.NS) return v.NS.reduce((sum, n) => sum + numberSize(n), 0);
  if (v.BS) return v.BS.reduce((sum, b) => sum + b.length, 0);
  // Maps and lists: 3 bytes, plus 1 byte per element.
  if (v.M) return 3 + Object.entries(v.M).reduce((sum, [k, x]) => sum + utf8(k) + valueSize(x) + 1, 0);
  if (v.L) return 3 + v.L.reduce((sum, x) => sum + valueSize(x) + 1, 0);
  return 0;
}

/** An item's size: attribute names plus values. */
export function itemSize(item: Item | undefined): number {
  if (!item) return 0;
  return Object.entries(item).reduce((sum, [name, v]) => sum + utf8(name) + valueSize(v), 0);
}

/** Write units of one item write: 1 per KB, rounded up; 2 per KB in a transaction. */
export const writeUnits = (bytes: number, transactional: boolean) =>
  Math.max(1, Math.ceil(bytes / 1024)) * (transactional ? 2 : 1);
/** Read units of one read: 1 per 4 KB rounded up when strongly consistent, half when not. */
export const readUnits = (bytes: number, consistent: boolean) =>
  Math.max(1, Math.ceil(bytes / 4096)) * (consistent ? 1 : 0.5);

/**
 * A global secondary index of the table: its name, its partition key attributes (`HASH`: one, or
 * several for a multi-attribute key, whose values together make the partition key value), its
 * sort key attributes and what it projects.
 */
export interface IndexDef {
  name: string;
  hashKeys: string[];
  rangeKeys: string[];
  /** `ALL`, or the non-key attributes projected (none for KEYS_ONLY). */
  projected: 'ALL' | string[];
}

/** The table's key attributes (partition key first) and its indexes. */
export interface TableShape {
  keys: string[];
  indexes: IndexDef[];
}

/**
 * The table's key schema and its indexes' as DescribeTable reports them, so the meter follows
 * whatever layout the store writes (not a copy of it).
 */
export async function describeShape(client: DynamoDBClient, tableName: string): Promise<TableShape> {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
  const keyNames = (schema: { AttributeName?: string; KeyType?: string }[] | undefined, type: string) =>
    (schema ?? []).filter((k) => k.KeyType === type).map((k) => k.AttributeName!);
  return {
    keys: [...keyNames(Table?.KeySchema, 'HASH'), ...keyNames(Table?.KeySchema, 'RANGE')],
    indexes: (Table?.GlobalSecondaryIndexes ?? []).map((gsi) => ({
      name: gsi.IndexName!,
      hashKeys: keyNames(gsi.KeySchema, 'HASH'),
      rangeKeys: keyNames(gsi.KeySchema, 'RANGE'),
      projected: gsi.Projection?.ProjectionType === 'ALL' ? 'ALL' : (gsi.Projection?.NonKeyAttributes ?? []),
    })),
  };
}

/** A partition key value as the reports print it: the values of its attributes, joined. */
const keyValue = (item: Item, names: string[]) => names.map((n) => str(item[n])).join(' | ');

/** The partition key value of a table item (its first key attribute). */
export const tablePartition = (item: Item, shape: TableShape): string => keyValue(item, shape.keys.slice(0, 1));

/**
 * An item's entry in an index (undefined when it lacks a key attribute: a sparse index leaves it
 * out): its partition key value, its whole key, its content and its size.
 */
export function indexEntry(item: Item | undefined, tableKeys: string[], index: IndexDef) {
  const indexKeys = [...index.hashKeys, ...index.rangeKeys];
  if (!item || indexKeys.some((k) => item[k] === undefined)) return undefined;
  const projected = index.projected === 'ALL' ? Object.keys(item) : index.projected;
  const names = [...new Set([...tableKeys, ...indexKeys, ...projected])].filter((n) => item[n] !== undefined);
  const entry = Object.fromEntries(names.map((n) => [n, item[n]!]));
  // Index items carry 100 bytes of overhead.
  return {
    partition: keyValue(item, index.hashKeys),
    key: JSON.stringify(indexKeys.map((k) => item[k])),
    content: JSON.stringify(entry),
    size: itemSize(entry) + 100,
  };
}

/**
 * Write units an index consumes for one item write, by the index partition they land in: a new or
 * removed entry is one write, a changed index key two (a delete in the old partition, a put in the
 * new), a changed projected attribute one, no change none. Index writes are charged as standard
 * writes, also for transactions (an assumption: the index is updated asynchronously, outside the
 * transaction; DynamoDB Local charges them doubled).
 */
export function indexWrites(
  before: Item | undefined,
  after: Item | undefined,
  tableKeys: string[],
  index: IndexDef,
): Array<{ partition: string; wru: number }> {
  const b = indexEntry(before, tableKeys, index);
  const a = indexEntry(after, tableKeys, index);
  if (!b && !a) return [];
  if (!b) return [{ partition: a!.partition, wru: writeUnits(a!.size, false) }];
  if (!a) return [{ partition: b.partition, wru: writeUnits(b.size, false) }];
  if (a.key !== b.key) {
    return [
      { partition: b.partition, wru: writeUnits(b.size, false) },
      { partition: a.partition, wru: writeUnits(a.size, false) },
    ];
  }
  return a.content === b.content ? [] : [{ partition: a.partition, wru: writeUnits(Math.max(a.size, b.size), false) }];
}

/** Write units an index consumes for one item write (see {@link indexWrites}). */
export const indexWriteUnits = (
  before: Item | undefined,
  after: Item | undefined,
  tableKeys: string[],
  index: IndexDef,
) => indexWrites(before, after, tableKeys, index).reduce((sum, w) => sum + w.wru, 0);

/**
 * Write units by partition key value: per target (`table`, or an index's name), per partition
 * key value, the units written there and the tags (runs) they were written for.
 */
export type PartitionWrites = Map<string, Map<string, { wru: number; tags: Set<string> }>>;

// ---------------------------------------------------------------------------------------------
// The meter: client middleware counting requests and units

/** What a DynamoDB command consumes: write units, read units, or nothing. */
export type Kind = 'write' | 'read' | 'other';
/** Commands that take `ReturnConsumedCapacity`, by what they consume. */
export const KIND: Record<string, Kind> = {
  PutItem: 'write',
  UpdateItem: 'write',
  DeleteItem: 'write',
  BatchWriteItem: 'write',
  TransactWriteItems: 'write',
  GetItem: 'read',
  Query: 'read',
  Scan: 'read',
  BatchGetItem: 'read',
  TransactGetItems: 'read',
};

/** What the requests of one command name added up to. */
export interface Tally {
  requests: number;
  /** HTTP attempts (SDK retries included). */
  attempts: number;
  failed: number;
  /** CapacityUnits as DynamoDB Local reported them (write units for writes, read units for reads). */
  localUnits: number;
  /** Computed: write units of table items. */
  tableWru: number;
  /** Computed: write units of index entries. */
  indexWru: number;
  /** Computed: read units. */
  rru: number;
  /** Items the reads returned (Item, Items, Responses). */
  itemsRead: number;
}

/** A tally of nothing yet. */
export const emptyTally = (): Tally => ({
  requests: 0,
  attempts: 0,
  failed: 0,
  localUnits: 0,
  tableWru: 0,
  indexWru: 0,
  rru: 0,
  itemsRead: 0,
});

/** Totals over commands, split by kind. */
export interface Totals {
  requests: number;
  writeRequests: number;
  readRequests: number;
  attempts: number;
  failed: number;
  wru: number;
  tableWru: number;
  indexWru: number;
  rru: number;
  localWru: number;
  localRru: number;
  itemsRead: number;
}

/** Sums the tallies of every command into one run's totals. */
export function totalsOf(byCommand: Map<string, Tally>): Totals {
  const t: Totals = {
    requests: 0,
    writeRequests: 0,
    readRequests: 0,
    attempts: 0,
    failed: 0,
    wru: 0,
    tableWru: 0,
    indexWru: 0,
    rru: 0,
    localWru: 0,
    localRru: 0,
    itemsRead: 0,
  };
  for (const [command, x] of byCommand) {
    const kind = KIND[command] ?? 'other';
    t.requests += x.requests;
    t.attempts += x.attempts;
    t.failed += x.failed;
    if (kind === 'write') {
      t.writeRequests += x.requests;
      t.localWru += x.localUnits;
    }
    if (kind === 'read') {
      t.readRequests += x.requests;
      t.localRru += x.localUnits;
    }
    t.tableWru += x.tableWru;
    t.indexWru += x.indexWru;
    t.wru += x.tableWru + x.indexWru;
    t.rru += x.rru;
    t.itemsRead += x.itemsRead;
  }
  return t;
}

/** One item a write touches, and how it is charged. */
export interface WriteTarget {
  table: string;
  key: Item;
  transactional: boolean;
  /** A ConditionCheck: charged like a write of the item, changes no index. */
  check: boolean;
}

/** A command's input, untyped (the meter reads it by field name). */
export type Input = Record<string, unknown>;

/** A key or item attribute as the document client or the low-level client holds it. */
export const str = (v: unknown): string =>
  typeof v === 'string' ? v : ((v as { S?: string } | undefined)?.S ?? String((v as { N?: string })?.N));

/** Sums `ConsumedCapacity` (one object, or one per table for batches and transactions). */
export function consumed(c: unknown): number {
  const list = Array.isArray(c) ? c : c ? [c] : [];
  return list.reduce((sum, x: { CapacityUnits?: number }) => sum + (x.CapacityUnits ?? 0), 0);
}

/** Items a read's output holds: GetItem's Item, Query's Items, BatchGetItem's Responses. */
function itemsIn(output: unknown): number {
  const o = output as { Item?: unknown; Items?: unknown[]; Responses?: Record<string, unknown[]> };
  if (o.Items) return o.Items.length;
  if (o.Responses) return Object.values(o.Responses).reduce((sum, xs) => sum + xs.length, 0);
  return o.Item ? 1 : 0;
}

/** Client middleware that counts every request and computes its capacity units. */
export class Meter {
  byCommand = new Map<string, Tally>();
  /** Off: count requests and DynamoDB Local's figures only (no extra reads, for timing). */
  computeUnits = true;
  /**
   * On: every request and the items it wrote go to stderr (`--trace`; with `BENCH_TRACE_INPUT=1`,
   * each request's input too).
   */
  trace = false;
  /** Write units by partition key value (the table's and each index's), while `computeUnits` is on. */
  partitions: PartitionWrites = new Map();
  /** What the writes from now on are attributed to in {@link partitions} (a run id, say). */
  tag = '';
  private writeLock: Promise<unknown> = Promise.resolve();
  private described: Promise<TableShape> | undefined;

  /** `raw` is an unmetered client the meter reads items and the table's key schema with. */
  constructor(
    private readonly raw: DynamoDBClient,
    private readonly tableName: string,
  ) {}

  /** The table's key schema and indexes (DescribeTable, once: the table must exist by then). */
  shape(): Promise<TableShape> {
    this.described ??= describeShape(this.raw, this.tableName).catch((error: unknown) => {
      this.described = undefined;
      throw error;
    });
    return this.described;
  }

  reset(): void {
    this.byCommand = new Map();
  }

  copy(): Map<string, Tally> {
    return new Map([...this.byCommand].map(([k, v]) => [k, { ...v }]));
  }

  install(client: DynamoDBClient): void {
    const middleware: InitializeMiddleware<ServiceInputTypes, ServiceOutputTypes> = (next, context) => async (args) => {
      const command = String(context.commandName ?? 'Unknown').replace(/Command$/, '');
      const kind = KIND[command] ?? 'other';
      const input = (kind === 'other' ? args.input : { ...args.input, ReturnConsumedCapacity: 'TOTAL' }) as Input;
      const tally = this.tally(command);
      tally.requests++;
      const send = async () => {
        const shape = kind === 'write' && this.computeUnits ? await this.shape() : undefined;
        const targets = shape ? this.writeTargets(command, input, shape) : [];
        const before = await this.snapshot(targets);
        try {
          const result = await next({ ...args, input: input as ServiceInputTypes });
          const output = result.output as { ConsumedCapacity?: unknown; $metadata?: { attempts?: number } };
          tally.attempts += output.$metadata?.attempts ?? 1;
          tally.localUnits += consumed(output.ConsumedCapacity);
          if (kind === 'read') tally.itemsRead += itemsIn(result.output);
          let detail = '';
          if (shape) detail = this.chargeWrites(tally, targets, before, await this.snapshot(targets), shape);
          if (this.computeUnits && kind === 'read') {
            const rru = await this.readCost(command, input, await this.shape());
            tally.rru += rru;
            detail = `${fmt(rru)} RRU`;
          }
          // fd 2 directly: `World.measure` captures process.stderr as the invocation's log lines.
          if (this.trace)
            writeSync(
              2,
              `    ${command} ${detail} ${process.env.BENCH_TRACE_INPUT ? JSON.stringify(input).slice(0, 1500) : ''}\n`,
            );
          return result;
        } catch (error) {
          tally.failed++;
          tally.attempts += (error as { $metadata?: { attempts?: number } }).$metadata?.attempts ?? 1;
          // A failed conditional write is still charged, on the item as it stands.
          if (shape) this.chargeWrites(tally, targets, before, before, shape);
          throw error;
        }
      };
      // Writes one at a time, so the items read before and after belong to this write.
      if (kind !== 'write') return send();
      const done = this.writeLock.then(send, send);
      this.writeLock = done.catch(() => undefined);
      return done;
    };
    client.middlewareStack.add(middleware, { step: 'initialize', name: 'benchMeter', priority: 'high' });
  }

  private tally(command: string): Tally {
    const t = this.byCommand.get(command) ?? emptyTally();
    this.byCommand.set(command, t);
    return t;
  }

  private key(itemOrKey: Input, shape: TableShape): Item {
    return Object.fromEntries(shape.keys.map((k) => [k, { S: str(itemOrKey[k]) }]));
  }

  private writeTargets(command: string, input: Input, shape: TableShape): WriteTarget[] {
    const one = (table: string, x: Input, transactional: boolean, check = false): WriteTarget => ({
      table,
      key: this.key(x, shape),
      transactional,
      check,
    });
    const table = input.TableName as string;
    switch (command) {
      case 'PutItem':
        return [one(table, input.Item as Input, false)];
      case 'UpdateItem':
      case 'DeleteItem':
        return [one(table, input.Key as Input, false)];
      case 'TransactWriteItems':
        return (input.TransactItems as Input[]).map((ti) => {
          const [action, body] = Object.entries(ti).find(([, v]) => v !== undefined) as [string, Input];
          return one(body.TableName as string, (body.Item ?? body.Key) as Input, true, action === 'ConditionCheck');
        });
      case 'BatchWriteItem':
        return Object.entries(input.RequestItems as Record<string, Input[]>).flatMap(([t, requests]) =>
          requests.map((r) => {
            const body = (r.PutRequest ?? r.DeleteRequest) as Input;
            return one(t, (body.Item ?? body.Key) as Input, false);
          }),
        );
      default:
        return [];
    }
  }

  private async getItem(table: string, key: Item): Promise<Item | undefined> {
    const out = await this.raw.send(new GetItemCommand({ TableName: table, Key: key, ConsistentRead: true }));
    return out.Item;
  }

  private snapshot(targets: WriteTarget[]): Promise<(Item | undefined)[]> {
    return Promise.all(targets.map((t) => this.getItem(t.table, t.key)));
  }

  /** Adds `wru` written to `partition` of `target` (the table, or an index) to {@link partitions}. */
  private charge(target: string, partition: string, wru: number): void {
    const byKey = this.partitions.get(target) ?? new Map<string, { wru: number; tags: Set<string> }>();
    this.partitions.set(target, byKey);
    const at = byKey.get(partition) ?? { wru: 0, tags: new Set<string>() };
    byKey.set(partition, at);
    at.wru += wru;
    at.tags.add(this.tag);
  }

  /** Charges a write's items to `tally` and to their partitions; returns what it charged, for `--trace`. */
  private chargeWrites(
    tally: Tally,
    targets: WriteTarget[],
    before: (Item | undefined)[],
    after: (Item | undefined)[],
    shape: TableShape,
  ): string {
    return targets
      .map((t, i) => {
        // The larger of the item before and after the write.
        const [b, a] = [itemSize(before[i]), itemSize(after[i])];
        const wru = writeUnits(Math.max(b, a), t.transactional);
        tally.tableWru += wru;
        this.charge('table', tablePartition(t.key, shape), wru);
        let index = 0;
        if (!t.check) {
          for (const def of shape.indexes) {
            for (const w of indexWrites(before[i], after[i], shape.keys, def)) {
              index += w.wru;
              this.charge(def.name, w.partition, w.wru);
            }
          }
        }
        tally.indexWru += index;
        return `${t.key.sk?.S} ${b}->${a} B: ${wru}${index ? ` + ${index} index` : ''} WRU`;
      })
      .join('; ');
  }

  /** Read units of a read, from the sizes of the whole items it read (projections do not reduce them). */
  private async readCost(command: string, input: Input, shape: TableShape): Promise<number> {
    switch (command) {
      case 'GetItem': {
        const item = await this.getItem(input.TableName as string, this.key(input.Key as Input, shape));
        return readUnits(itemSize(item), input.ConsistentRead === true);
      }
      case 'BatchGetItem': {
        let units = 0;
        for (const [table, req] of Object.entries(input.RequestItems as Record<string, Input>)) {
          for (const key of req.Keys as Input[]) {
            units += readUnits(itemSize(await this.getItem(table, this.key(key, shape))), req.ConsistentRead === true);
          }
        }
        return units;
      }
      case 'Query': {
        // Replay the key condition (a filter does not reduce what is read); sizes summed, then rounded.
        const condition = input.KeyConditionExpression as string;
        const names = Object.fromEntries(
          Object.entries((input.ExpressionAttributeNames ?? {}) as Record<string, string>).filter(([n]) =>
            new RegExp(`${n}\\b`).test(condition),
          ),
        );
        const values = Object.fromEntries(
          Object.entries((input.ExpressionAttributeValues ?? {}) as Record<string, unknown>).filter(([v]) =>
            new RegExp(`${v}\\b`).test(condition),
          ),
        );
        const out = await this.raw.send(
          new QueryCommand({
            TableName: input.TableName as string,
            ...(input.IndexName ? { IndexName: input.IndexName as string } : {}),
            KeyConditionExpression: condition,
            ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
            ExpressionAttributeValues: marshall(values, { removeUndefinedValues: true }),
            ConsistentRead: input.ConsistentRead === true,
            ...(input.Limit ? { Limit: input.Limit as number } : {}),
            ...(input.ScanIndexForward === false ? { ScanIndexForward: false } : {}),
            ...(input.ExclusiveStartKey ? { ExclusiveStartKey: marshall(input.ExclusiveStartKey as Input) } : {}),
          }),
        );
        const bytes = (out.Items ?? []).reduce((sum, item) => sum + itemSize(item), 0);
        return readUnits(bytes, input.ConsistentRead === true);
      }
      default:
        return 0;
    }
  }
}

/** A number for the reports: integers as they are, others to `digits` decimals. */
export const fmt = (x: number, digits = 2): string =>
  Number.isInteger(x) ? x.toLocaleString('en-US') : x.toLocaleString('en-US', { maximumFractionDigits: digits });
