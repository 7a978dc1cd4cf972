import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type {
  IdempotencyRecord,
  LeaseGrant,
  OperationDeadlines,
  RunPage,
  RunPatch,
  RunQuery,
  RunRecord,
  RunStatus,
  Store,
} from '@durable-lambda/engine';
import { FencedError, type Operation } from '@durable-lambda/protocol';
import { ChunkPool } from './chunks';
import { failedAnyCondition, failedConditionAt, isConditionFailure, retryConflicts } from './errors';
import { Expressions } from './expressions';
import { IdempotencyRecords } from './idempotency';
import {
  EPOCH,
  type ItemLimits,
  itemRefs,
  OP,
  OP_FENCE,
  OP_REFS,
  operationFromItem,
  operationItem,
  runFromItem,
  runItem,
} from './items';
import { CHUNK_PREFIX, OP_PREFIX, operationSk, PK, RUN_SK, runPk, SK, TTL, ttlPassed, ttlSeconds } from './layout';
import { listRuns } from './run-listing';
import { applyRunPatch } from './run-patch';
import { type Item, TableAccess, type TransactItem } from './table-access';

/** Options of a {@link DynamoDbStore}. */
export interface DynamoDbStoreOptions {
  /** A document client; create it with `marshallOptions: { removeUndefinedValues: true }`. */
  client: DynamoDBDocumentClient;
  /** A table made by `durableTableDefinition` / `createDurableTable` (or the CDK construct). */
  tableName: string;
  /** The clock deciding expiry and `updatedAt`. Default: the system clock. */
  clock?: { now(): number };
  /**
   * Largest item written, bytes; larger values move into chunk items. Default 350,000 (DynamoDB's
   * limit is 400 KB; the margin covers the size estimate).
   */
  maxItemBytes?: number;
  /**
   * How long operation and chunk items live after their last write when the run's retention is not
   * known yet: their TTL ceiling, so nothing outlives its run forever once TTL deletes the run item.
   * Default 400 days (runs last up to a year). A run kept longer than this loses its operations.
   */
  itemTtlCeilingMs?: number;
}

/** What an outside write expects of the operation. */
type OutsideExpectation = Pick<Operation, 'Status'> & { deadlines?: OperationDeadlines };

const DEFAULT_MAX_ITEM_BYTES = 350_000;
const DEFAULT_ITEM_TTL_CEILING_MS = 400 * 24 * 60 * 60 * 1000;
/** Operations per transaction besides the run item (DynamoDB allows 100 items). */
const OPERATIONS_PER_TRANSACTION = 99;
/** Bytes per transaction, under DynamoDB's 4 MB with room for the size estimate. */
const TRANSACTION_BYTES = 3_500_000;
/** What the run item contributes to a read of operations: its retention and epoch, not its data. */
const RUN_ATTRIBUTES_FOR_OPERATIONS = ['expiresAt', EPOCH];
const NO_LEASE_PATCH = new Set<keyof RunRecord>(['leaseExpiresAt']);

/**
 * The {@link Store} on one DynamoDB table, in the single-table layout of `packages/aws/TABLE.md`:
 * per run a partition `pk=RUN#<runId>` holding the run item (`sk=RUN`: lease, fence, outcome),
 * one item per operation (`sk=OP#<sortable id>`) and chunk items for large values
 * (`sk=CHUNK#<hash>#<n>`); idempotency records at `pk=IDEM#<key>`; TTL on `ttl` (seconds).
 *
 * Every write is conditional: a commit only while the run's fence is the committer's (one
 * TransactWriteItems for up to 99 operations, one UpdateItem without operations), a lease only
 * when free or lapsed, an outside event only while the operation is as expected. Reads are
 * strongly consistent (listing, on an index, is eventually consistent) and ignore items whose
 * retention has passed, as DynamoDB deletes expired items only eventually.
 */
export class DynamoDbStore implements Store {
  private readonly access: TableAccess;
  private readonly clock: { now(): number };
  private readonly limits: ItemLimits;
  private readonly ceilingMs: number;
  private readonly idempotency: IdempotencyRecords;

  constructor(options: DynamoDbStoreOptions) {
    if (options.client.config.translateConfig?.marshallOptions?.removeUndefinedValues !== true) {
      throw new Error(
        'DynamoDbStore: create the document client with `marshallOptions: { removeUndefinedValues: true }` ' +
          '(DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } }))',
      );
    }
    this.access = new TableAccess(options.client, options.tableName);
    this.clock = options.clock ?? { now: () => Date.now() };
    this.limits = { maxItemBytes: options.maxItemBytes ?? DEFAULT_MAX_ITEM_BYTES };
    this.ceilingMs = options.itemTtlCeilingMs ?? DEFAULT_ITEM_TTL_CEILING_MS;
    this.idempotency = new IdempotencyRecords(this.access, this.limits);
  }

  private get table(): string {
    return this.access.tableName;
  }

  async createRun(run: RunRecord, execution: Operation): Promise<{ created: boolean; run: RunRecord }> {
    const pk = runPk(run.runId);
    let replacing: Item | undefined;
    let chunksWritten = false;
    for (let attempt = 0; attempt < 5; attempt++) {
      const now = this.clock.now();
      // A run re-created over an expired one starts above its fences: its operations stay hidden
      // (they carry lower fences) and its invocations' fences are never valid again.
      const epoch = replacing ? Math.max(run.fence, Number(replacing.fence ?? 0) + 1) : run.fence;
      const stored: RunRecord = { ...run, fence: epoch };
      const ttl = this.itemTtl(now, run.expiresAt);
      const runPrepared = runItem(stored, epoch, this.limits, ttl);
      const opPrepared = operationItem(run.runId, execution, epoch, ttl, this.limits);
      if (!chunksWritten) {
        await this.access.writeChunks([...runPrepared.chunks, ...opPrepared.chunks]);
        chunksWritten = true;
      }
      const c = new Expressions();
      const condition = replacing
        ? `${c.name('fence')} = ${c.value(replacing.fence)} AND ${c.name('expiresAt')} = ${c.value(replacing.expiresAt)}`
        : `attribute_not_exists(${c.name(PK)})`;
      try {
        await this.access.transact([
          { Put: { TableName: this.table, Item: runPrepared.item, ConditionExpression: condition, ...c.attributes() } },
          { Put: { TableName: this.table, Item: opPrepared.item } },
        ]);
        return { created: true, run: structuredClone(stored) };
      } catch (error) {
        if (!failedConditionAt(error, 0)) throw error;
      }
      const existing = await this.access.getItem(pk, RUN_SK);
      if (existing && this.live(existing)) return { created: false, run: await this.runOf(existing) };
      replacing = existing;
    }
    throw new Error(`run ${run.runId}: could not create it, the stored run kept changing`);
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    const item = await this.access.getItem(runPk(runId), RUN_SK);
    return item && this.live(item) ? this.runOf(item) : undefined;
  }

  async acquireLease(runId: string, now: number, leaseExpiresAt: number): Promise<LeaseGrant | undefined> {
    const e = new Expressions();
    const lease = e.name('leaseExpiresAt');
    const condition = [
      `attribute_exists(${e.name(PK)})`,
      `${e.name('status')} = ${e.value('RUNNING')}`,
      `(attribute_not_exists(${lease}) OR ${lease} <= ${e.value(now)})`,
      this.liveCondition(e),
    ].join(' AND ');
    e.setTo('leaseExpiresAt', leaseExpiresAt).setTo('updatedAt', now).adds('fence', 1).adds('invocations', 1);
    let old: Item | undefined;
    try {
      const out = await this.access.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { [PK]: runPk(runId), [SK]: RUN_SK },
          UpdateExpression: e.update(),
          ConditionExpression: condition,
          ReturnValues: 'ALL_OLD',
          ...e.attributes(),
        }),
      );
      old = out.Attributes;
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
    if (!old) return undefined;
    const before = await this.runOf(old);
    const previousLost = before.leaseExpiresAt !== undefined;
    const run: RunRecord = {
      ...before,
      fence: before.fence + 1,
      leaseExpiresAt,
      invocations: before.invocations + 1,
      lostInvocations: before.lostInvocations + (previousLost ? 1 : 0),
      updatedAt: now,
    };
    if (previousLost) await this.countLostInvocation(runId, run.fence);
    return { run, previousLost };
  }

  async loadOperations(runId: string): Promise<Operation[]> {
    const e = new Expressions();
    // One Query over CHUNK#… < OP#… < RUN: the chunks, the operations, and the run item (for its
    // retention and epoch only: the projection leaves its input and result behind).
    const items = await this.access.queryAll({
      KeyConditionExpression: `${e.name(PK)} = ${e.value(runPk(runId))} AND ${e.name(SK)} BETWEEN ${e.value(CHUNK_PREFIX)} AND ${e.value(RUN_SK)}`,
      ProjectionExpression: [PK, SK, OP, OP_REFS, OP_FENCE, TTL, 'data', ...RUN_ATTRIBUTES_FOR_OPERATIONS]
        .map((n) => e.name(n))
        .join(', '),
      ...e.attributes(),
    });
    const now = this.clock.now();
    const pool = new ChunkPool();
    const operations: Item[] = [];
    let run: Item | undefined;
    for (const item of items) {
      const sk = item[SK] as string;
      if (sk === RUN_SK) run = item;
      else if (ttlPassed(item[TTL], now)) continue;
      else if (sk.startsWith(OP_PREFIX)) operations.push(item);
      else if (sk.startsWith(CHUNK_PREFIX)) pool.add(item);
    }
    if (!run || !this.live(run)) return [];
    const epoch = Number(run[EPOCH] ?? 0);
    return operations
      .filter((item) => Number(item[OP_FENCE] ?? 0) >= epoch)
      .map((item) => operationFromItem(item, pool));
  }

  async getOperation(runId: string, operationId: string): Promise<Operation | undefined> {
    const pk = runPk(runId);
    const [run, item] = await Promise.all([
      this.access.getItem(pk, RUN_SK, RUN_ATTRIBUTES_FOR_OPERATIONS),
      this.access.getItem(pk, operationSk(operationId)),
    ]);
    const now = this.clock.now();
    if (!run || !this.live(run) || !item || ttlPassed(item[TTL], now)) return undefined;
    if (Number(item[OP_FENCE] ?? 0) < Number(run[EPOCH] ?? 0)) return undefined;
    return operationFromItem(item, await this.access.readChunks(pk, itemRefs(item), now));
  }

  async listRuns(query: RunQuery): Promise<RunPage> {
    return listRuns(this.access, query, this.clock.now(), (items) =>
      Promise.all(items.map((item) => this.runOf(item))),
    );
  }

  async reviseRun(
    runId: string,
    expectStatus: RunStatus,
    patch: RunPatch,
    operations: readonly Operation[],
  ): Promise<RunRecord | undefined> {
    const pk = runPk(runId);
    for (let attempt = 0; attempt < 5; attempt++) {
      // Read first: the revised run is returned, and the operations are written with its new fence.
      const current = await this.access.getItem(pk, RUN_SK);
      if (!current || !this.live(current) || current.status !== expectStatus) return undefined;
      const before = await this.runOf(current);
      const now = this.clock.now();
      const fence = before.fence + 1;
      const expiresAt = typeof patch.expiresAt === 'number' ? patch.expiresAt : undefined;
      const ttl = this.itemTtl(now, expiresAt);
      const prepared = this.operationItems(runId, operations, fence, ttl);
      const e = new Expressions();
      const condition = [
        `${e.name('fence')} = ${e.value(before.fence)}`,
        `${e.name('status')} = ${e.value(expectStatus)}`,
        this.liveCondition(e, now),
      ].join(' AND ');
      const chunks = applyRunPatch(e, runId, patch, this.limits, ttl, NO_LEASE_PATCH);
      e.setTo('fence', fence).setTo('updatedAt', now).removes('leaseExpiresAt');
      await this.access.writeChunks([...prepared.flatMap((p) => p.chunks), ...chunks]);
      try {
        await this.writeFenced(pk, prepared, {
          TableName: this.table,
          Key: { [PK]: pk, [SK]: RUN_SK },
          UpdateExpression: e.update(),
          ConditionExpression: condition,
          ...e.attributes(),
        });
      } catch (error) {
        // The run moved on (a lease, a commit) since the read: look again.
        if (error instanceof FencedError) continue;
        throw error;
      }
      const revised: Record<string, unknown> = { ...before, fence, updatedAt: now };
      delete revised.leaseExpiresAt;
      for (const [key, value] of Object.entries(patch)) {
        if (key === 'leaseExpiresAt' || value === undefined) continue;
        if (value === null) delete revised[key];
        else revised[key] = structuredClone(value);
      }
      return revised as unknown as RunRecord;
    }
    throw new Error(`run ${runId}: could not revise it, the stored run kept changing`);
  }

  claimIdempotencyKey(
    record: IdempotencyRecord,
  ): Promise<{ claimed: true } | { claimed: false; existing: IdempotencyRecord }> {
    return this.idempotency.claim(record, this.clock.now());
  }

  completeIdempotencyKey(key: string, response: NonNullable<IdempotencyRecord['response']>): Promise<void> {
    return this.idempotency.complete(key, response, this.clock.now());
  }

  releaseIdempotencyKey(key: string): Promise<void> {
    return this.idempotency.release(key);
  }

  async writeOutsideEvent(
    runId: string,
    next: Operation,
    expected: OutsideExpectation,
    event: boolean,
  ): Promise<boolean> {
    const now = this.clock.now();
    const pk = runPk(runId);
    const ttl = this.itemTtl(now, undefined);
    // An update, not a put: the operation keeps the fence it was written with.
    const prepared = operationItem(runId, next, 0, ttl, this.limits);
    await this.access.writeChunks(prepared.chunks);

    const op = new Expressions();
    op.setTo(OP, prepared.item[OP]).setTo(TTL, ttl);
    if (prepared.item[OP_REFS]) op.setTo(OP_REFS, prepared.item[OP_REFS]);
    else op.removes(OP_REFS);
    const opCondition = [
      `attribute_exists(${op.name(PK)})`,
      `${op.name(TTL)} > ${op.value(now / 1000)}`,
      `${op.name(`${OP}.Status`)} = ${op.value(expected.Status)}`,
    ];
    if (expected.deadlines) {
      for (const key of ['TimeoutTimestamp', 'HeartbeatDeadline'] as const) {
        const path = op.name(`${OP}.CallbackDetails.${key}`);
        const value = expected.deadlines[key];
        opCondition.push(value === undefined ? `attribute_not_exists(${path})` : `${path} = ${op.value(value)}`);
      }
    }
    const run = new Expressions();
    const runCondition = `attribute_exists(${run.name(PK)}) AND ${this.liveCondition(run, now)}`;
    run.setTo('updatedAt', now);
    if (event) run.adds('eventSeq', 1);
    try {
      await this.access.transact([
        {
          Update: {
            TableName: this.table,
            Key: { [PK]: pk, [SK]: operationSk(next.Id) },
            UpdateExpression: op.update(),
            ConditionExpression: opCondition.join(' AND '),
            ...op.attributes(),
          },
        },
        {
          Update: {
            TableName: this.table,
            Key: { [PK]: pk, [SK]: RUN_SK },
            UpdateExpression: run.update(),
            ConditionExpression: runCondition,
            ...run.attributes(),
          },
        },
      ]);
      return true;
    } catch (error) {
      if (failedAnyCondition(error)) return false;
      throw error;
    }
  }

  async commit(
    runId: string,
    fence: number,
    write: { operations: readonly Operation[]; run?: RunPatch },
  ): Promise<void> {
    const now = this.clock.now();
    const pk = runPk(runId);
    const expiresAt = typeof write.run?.expiresAt === 'number' ? write.run.expiresAt : undefined;
    const ttl = this.itemTtl(now, expiresAt);
    // Everything is prepared, and checked against the payload limit, before anything is written.
    const prepared = this.operationItems(runId, write.operations, fence, ttl);
    const e = new Expressions();
    const condition = this.fenceCondition(e, fence, now);
    e.setTo('updatedAt', now);
    const chunks = applyRunPatch(e, runId, write.run, this.limits, ttl);
    await this.access.writeChunks([...prepared.flatMap((p) => p.chunks), ...chunks]);
    await this.writeFenced(
      pk,
      prepared,
      {
        TableName: this.table,
        Key: { [PK]: pk, [SK]: RUN_SK },
        UpdateExpression: e.update(),
        ConditionExpression: condition,
        ...e.attributes(),
      },
      () => new FencedError(`run ${runId} is no longer owned by fence ${fence}`),
    );
  }

  /**
   * Writes operation items with a conditional update of the run item: one UpdateItem without
   * operations, else one TransactWriteItems per 99 operations (and under 4 MB), each conditioned
   * on the run as the update is (earlier ones by a ConditionCheck), the update itself with the
   * last, so a run never shows an outcome before its operations. A failed run condition is a
   * {@link FencedError} (from `fenced`), and then the transaction wrote nothing.
   */
  private async writeFenced(
    pk: string,
    operations: ReadonlyArray<{ item: Item; size: number }>,
    runUpdate: NonNullable<TransactItem['Update']>,
    fenced: () => Error = () => new FencedError(),
  ): Promise<void> {
    if (operations.length === 0) {
      try {
        await retryConflicts(() => this.access.client.send(new UpdateCommand(runUpdate)));
      } catch (error) {
        if (isConditionFailure(error)) throw fenced();
        throw error;
      }
      return;
    }
    const batches: Item[][] = [[]];
    let bytes = 0;
    for (const { item, size } of operations) {
      const batch = batches[batches.length - 1] as Item[];
      if (batch.length > 0 && (batch.length >= OPERATIONS_PER_TRANSACTION || bytes + size > TRANSACTION_BYTES)) {
        batches.push([item]);
        bytes = size;
      } else {
        batch.push(item);
        bytes += size;
      }
    }
    for (const [index, batch] of batches.entries()) {
      const runEntry: TransactItem =
        index === batches.length - 1
          ? { Update: runUpdate }
          : {
              ConditionCheck: {
                TableName: this.table,
                Key: { [PK]: pk, [SK]: RUN_SK },
                ConditionExpression: runUpdate.ConditionExpression as string,
                ...conditionAttributes(runUpdate),
              },
            };
      try {
        await this.access.transact([
          runEntry,
          ...batch.map((item) => ({ Put: { TableName: this.table, Item: item } })),
        ]);
      } catch (error) {
        if (failedConditionAt(error, 0)) throw fenced();
        throw error;
      }
    }
  }

  /** Operation items to write, the last of each id only, checked against the payload limit. */
  private operationItems(runId: string, operations: readonly Operation[], fence: number, ttl: number) {
    const latest = new Map<string, Operation>();
    for (const op of operations) latest.set(op.Id, op);
    return [...latest.values()].map((op) => operationItem(runId, op, fence, ttl, this.limits));
  }

  /** Adds one lost invocation to the run the lease just went to (only after a crash). */
  private async countLostInvocation(runId: string, fence: number): Promise<void> {
    const e = new Expressions();
    const condition = `${e.name('fence')} = ${e.value(fence)}`;
    e.adds('lostInvocations', 1);
    try {
      await this.access.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { [PK]: runPk(runId), [SK]: RUN_SK },
          UpdateExpression: e.update(),
          ConditionExpression: condition,
          ...e.attributes(),
        }),
      );
    } catch (error) {
      // A newer lease already took over: this grant is stale, and its commits will be fenced.
      if (!isConditionFailure(error)) throw error;
    }
  }

  /** `fence` is the run's, and its retention has not passed. */
  private fenceCondition(e: Expressions, fence: number, now: number): string {
    return `${e.name('fence')} = ${e.value(fence)} AND ${this.liveCondition(e, now)}`;
  }

  /** The run's retention has not passed (DynamoDB may not have deleted it yet). */
  private liveCondition(e: Expressions, now = this.clock.now()): string {
    const expiresAt = e.name('expiresAt');
    return `(attribute_not_exists(${expiresAt}) OR ${expiresAt} > ${e.value(now)})`;
  }

  /** Whether a run item is within its retention. */
  private live(item: Item): boolean {
    return typeof item.expiresAt !== 'number' || item.expiresAt > this.clock.now();
  }

  /** The TTL of operation and chunk items written now: the ceiling, or the run's retention if later. */
  private itemTtl(now: number, expiresAt: number | undefined): number {
    return ttlSeconds(Math.max(now + this.ceilingMs, expiresAt ?? 0));
  }

  /** The run record of a run item, with its chunked fields read. */
  private async runOf(item: Item): Promise<RunRecord> {
    const refs = itemRefs(item);
    const pool = await this.access.readChunks(String(item[PK]), refs, this.clock.now());
    return runFromItem(item, pool);
  }
}

/** The names and values a condition expression of an update uses (DynamoDB refuses unused ones). */
function conditionAttributes(update: NonNullable<TransactItem['Update']>): {
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
} {
  const used = update.ConditionExpression ?? '';
  const pick = <T>(map: Record<string, T> | undefined) =>
    Object.fromEntries(Object.entries(map ?? {}).filter(([key]) => new RegExp(`${key}(?![A-Za-z0-9_])`).test(used)));
  const names = pick(update.ExpressionAttributeNames);
  const values = pick(update.ExpressionAttributeValues as Record<string, unknown> | undefined);
  return {
    ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
    ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
  };
}
