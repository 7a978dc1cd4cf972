import { type ChunkItem, ChunkPool, type ChunkRef } from './chunks';
import {
  BatchGetCommand,
  BatchWriteCommand,
  type DynamoDbTransport,
  GetCommand,
  QueryCommand,
  type QueryCommandInput,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from './commands';
import { retryConflicts } from './errors';
import { Expressions } from './expressions';
import { chunkSk, PK, SK, TTL, ttlPassed } from './layout';
import { OBJECT_PREFIX, objectKey, type PayloadObjectStore } from './payload-objects';

/** An item as the document client reads and writes it. */
export type Item = Record<string, unknown>;
/** One entry of a TransactWriteItems request. */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** The run item's part of one transaction: the update, or (before the last) a check or a smaller update. */
export type RunEntry = Required<Pick<TransactItem, 'Update'>> | Required<Pick<TransactItem, 'ConditionCheck'>>;

/** Items per BatchWriteItem (DynamoDB's limit). */
const ITEMS_PER_BATCH_WRITE = 25;
/** Keys per BatchGetItem (DynamoDB's limit). */
const KEYS_PER_BATCH_GET = 100;
/** Batches sent at once. */
const PARALLEL_BATCHES = 4;
/** Attempts at items DynamoDB leaves unprocessed in a batch. */
const BATCH_ATTEMPTS = 10;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The requests the store makes to its table, with their retries and pagination. */
export class TableAccess {
  constructor(
    /** The light client, or a user's document client behind its adapter. */
    readonly client: DynamoDbTransport,
    readonly tableName: string,
    /** The payload bucket, when large values go there (`payload-objects.ts`). */
    readonly objects?: PayloadObjectStore,
    /** Prefix of every object key (a bucket shared with other data). */
    readonly objectPrefix = '',
  ) {}

  /** One item, strongly consistent; `attributes` narrows what is read (keys always come). */
  async getItem(pk: string, sk: string, attributes?: readonly string[]): Promise<Item | undefined> {
    const e = new Expressions();
    const projection = attributes && [PK, SK, ...attributes].map((name) => e.name(name)).join(', ');
    const out = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { [PK]: pk, [SK]: sk },
        ConsistentRead: true,
        ...(projection ? { ProjectionExpression: projection, ...e.attributes() } : {}),
      }),
    );
    return out.Item;
  }

  /** Every item of a Query (strongly consistent unless on an index), following its pages. */
  async queryAll(input: Omit<QueryCommandInput, 'TableName'>): Promise<Item[]> {
    const items: Item[] = [];
    for await (const page of this.queryPages(input)) items.push(...page);
    return items;
  }

  /** One page of a Query (strongly consistent unless on an index) and where the next would start. */
  async queryPage(input: Omit<QueryCommandInput, 'TableName'>): Promise<{ items: Item[]; lastKey?: Item }> {
    const out = await this.client.send(
      new QueryCommand({ ...input, TableName: this.tableName, ...(input.IndexName ? {} : { ConsistentRead: true }) }),
    );
    return { items: out.Items ?? [], ...(out.LastEvaluatedKey ? { lastKey: out.LastEvaluatedKey } : {}) };
  }

  /** The pages of a Query, one request each. */
  async *queryPages(input: Omit<QueryCommandInput, 'TableName'>): AsyncGenerator<Item[]> {
    let start: Item | undefined;
    do {
      const out = await this.client.send(
        new QueryCommand({
          ...input,
          TableName: this.tableName,
          ...(input.IndexName ? {} : { ConsistentRead: true }),
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      yield out.Items ?? [];
      start = out.LastEvaluatedKey;
    } while (start);
  }

  /**
   * Items by key, strongly consistent: one BatchGetItem per 100 keys (a few at once), retrying
   * keys DynamoDB leaves unprocessed. Missing items are simply absent from the result.
   */
  async batchGet(keys: readonly Item[]): Promise<Item[]> {
    const batches: Item[][] = [];
    for (let i = 0; i < keys.length; i += KEYS_PER_BATCH_GET) batches.push(keys.slice(i, i + KEYS_PER_BATCH_GET));
    const found: Item[] = [];
    await inGroups(batches, async (batch) => {
      let pending = batch;
      for (let attempt = 1; pending.length > 0; attempt++) {
        if (attempt > BATCH_ATTEMPTS) throw new Error(`BatchGetItem: ${pending.length} keys still unprocessed`);
        if (attempt > 1) await sleep(Math.random() * 25 * 2 ** attempt);
        const out = await this.client.send(
          new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: pending, ConsistentRead: true } } }),
        );
        found.push(...(out.Responses?.[this.tableName] ?? []));
        pending = (out.UnprocessedKeys?.[this.tableName]?.Keys ?? []) as Item[];
      }
    });
    return found;
  }

  /**
   * Writes items with BatchWriteItem, 25 at a time, retrying unprocessed ones. Used for chunk
   * items only: they are written before the item that references them, so a crash in between
   * leaves only chunks nothing references, never a half-written value.
   */
  async writeChunks(chunks: readonly ChunkItem[]): Promise<void> {
    if (chunks.length === 0) return;
    const all = [...new Map(chunks.map((chunk) => [`${chunk[PK]} ${chunk[SK]}`, chunk])).values()];
    const objects = all.filter((chunk) => chunk[SK].startsWith(OBJECT_PREFIX));
    const unique = all.filter((chunk) => !chunk[SK].startsWith(OBJECT_PREFIX));
    if (objects.length > 0) await this.putObjects(objects);
    const batches: ChunkItem[][] = [];
    for (let i = 0; i < unique.length; i += ITEMS_PER_BATCH_WRITE)
      batches.push(unique.slice(i, i + ITEMS_PER_BATCH_WRITE));
    await inGroups(batches, async (batch) => {
      let requests = batch.map((item) => ({ PutRequest: { Item: item as unknown as Item } }));
      for (let attempt = 1; requests.length > 0; attempt++) {
        if (attempt > BATCH_ATTEMPTS) throw new Error(`BatchWriteItem: ${requests.length} items still unprocessed`);
        if (attempt > 1) await sleep(Math.random() * 25 * 2 ** attempt);
        const out = await this.client.send(new BatchWriteCommand({ RequestItems: { [this.tableName]: requests } }));
        requests = (out.UnprocessedItems?.[this.tableName] ?? []) as typeof requests;
      }
    });
  }

  /** Puts pending object writes in the bucket, a few at a time (each a retried, idempotent put). */
  private async putObjects(items: readonly ChunkItem[]): Promise<void> {
    const objects = this.objects;
    if (!objects) throw new Error('a value is bound for the payload bucket, but the store has none');
    await inGroups(
      items.map((item) => [item]),
      async ([item]) => {
        const chunk = item as ChunkItem;
        await objects.put(objectKey(chunk[PK], chunk[SK].slice(OBJECT_PREFIX.length), this.objectPrefix), chunk.data);
      },
    );
  }

  /**
   * Reads into `pool` the payload-bucket objects `refs` name (those not read yet). A missing
   * object is left out: the join that needs it fails as for a missing chunk.
   */
  async readObjects(pk: string, refs: readonly ChunkRef[], pool: ChunkPool): Promise<void> {
    const wanted = [...new Map(refs.filter((ref) => ref.o === 1).map((ref) => [ref.h, ref])).values()];
    if (wanted.length === 0) return;
    const objects = this.objects;
    if (!objects) throw new Error(`${pk}: a value is in the payload bucket, but the store has none configured`);
    await inGroups(
      wanted.map((ref) => [ref]),
      async ([ref]) => {
        const h = (ref as ChunkRef).h;
        const data = await objects.get(objectKey(pk, h, this.objectPrefix));
        if (data) pool.addObject(h, data);
      },
    );
  }

  /** The chunk sets `refs` name, read by key, ignoring chunks past their TTL. */
  async readChunks(pk: string, refs: readonly ChunkRef[], now: number): Promise<ChunkPool | undefined> {
    if (refs.length === 0) return undefined;
    const pool = new ChunkPool();
    await this.readObjects(pk, refs, pool);
    const sets = [...new Map(refs.filter((ref) => ref.o !== 1).map((ref) => [ref.h, ref])).values()];
    const keys = sets.flatMap((ref) =>
      Array.from({ length: ref.n }, (_, index) => ({ [PK]: pk, [SK]: chunkSk(ref.h, index) })),
    );
    if (keys.length === 0) return pool;
    for (const item of await this.batchGet(keys)) if (!ttlPassed(item[TTL], now)) pool.add(item);
    return pool;
  }

  /** A TransactWriteItems, sent again while it only collided with another transaction. */
  async transact(items: TransactItem[]): Promise<void> {
    await retryConflicts(() => this.client.send(new TransactWriteCommand({ TransactItems: items })));
  }
}

/** Runs `work` over `batches`, a few at a time. */
async function inGroups<T>(batches: readonly T[], work: (batch: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < batches.length; i += PARALLEL_BATCHES) {
    await Promise.all(batches.slice(i, i + PARALLEL_BATCHES).map(work));
  }
}
