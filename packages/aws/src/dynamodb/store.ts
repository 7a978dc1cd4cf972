import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type {
  CommitWrite,
  DueRun,
  FunctionLimitsRecord,
  GateKey,
  GateRecord,
  IdempotencyRecord,
  LeaseGrant,
  OperationPage,
  OperationPageRequest,
  QueuedRunEntry,
  RevisionBase,
  RunPage,
  RunPatch,
  RunQuery,
  RunRecord,
  RunStatus,
  SignalAppend,
  SignalRecord,
  SignalSend,
  SlotKey,
  Store,
} from '@durable-lambda/engine';
import { FencedError, type Operation } from '@durable-lambda/protocol';
import { type DynamoDbTransport, isDynamoDbTransport } from './commands';
import { DynamoDbSlots } from './concurrency-slots';
import { duePartitions, findDueRuns } from './due-index';
import { DynamoDbGates } from './flow-gates';
import { DynamoDbFunctionLimits } from './function-limits';
import { IdempotencyRecords } from './idempotency';
import { keyFits, operationSk, RUN_SK, runPk } from './layout';
import { loadOperationPage } from './operation-page';
import { getOperation, loadOperations } from './operation-reads';
import { type OutsideExpectation, writeOutsideEvent } from './outside-events';
import { DEFAULT_OBJECT_THRESHOLD_BYTES, type PayloadObjectStore } from './payload-objects';
import { loadReplayOperations } from './replay-reads';
import { commit } from './run-commit';
import { acquireLease } from './run-lease';
import { listRuns } from './run-listing';
import { pinRun } from './run-pin';
import { createRun, reviseRun } from './run-writes';
import { DocumentClientTransport } from './sdk-transport';
import { appendSignal, listSignals } from './signals';
import { StoreContext } from './store-context';
import { TableAccess } from './table-access';
import { deleteReplacedTagEntries, writeTagEntries } from './tag-index';
import { searchRuns } from './tag-search';

/** Options of a {@link DynamoDbStore}. */
export interface DynamoDbStoreOptions {
  /**
   * What requests go through: the light client (`new LightDynamoDbClient({ region })`, what the
   * production backend uses), or an AWS SDK document client, created with
   * `marshallOptions: { removeUndefinedValues: true }` (its middleware, retries and errors apply).
   */
  client: DynamoDBDocumentClient | DynamoDbTransport;
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
  /**
   * The table still has the layout-1 listing indexes (`byFunction`, `byFunctionBase`, `byStatus`:
   * a table made before layout 2): listings read them too, so runs written before are found.
   * Default false. See TABLE.md, "Moving a table to layout 2".
   */
  legacyIndexes?: boolean;
  /**
   * A bucket for large payloads (the light S3 client, `LightS3Client`, or anything keeping S3's
   * semantics): values of {@link DynamoDbStoreOptions.objectThresholdBytes} or more are put there
   * before the item that references them, instead of into chunk items. Default: none (chunks).
   */
  payloadObjects?: PayloadObjectStore;
  /** With `payloadObjects`: the size from which a value goes to the bucket, bytes. Default 16 KiB. */
  objectThresholdBytes?: number;
  /** With `payloadObjects`: a prefix of every object key (`runs/<runId>/<hash>` after it). Default none. */
  objectKeyPrefix?: string;
}

const DEFAULT_MAX_ITEM_BYTES = 350_000;

/** The bucket threshold given, checked: a whole number of bytes, at least 1. */
function objectThreshold(given: number | undefined): number {
  if (given === undefined) return DEFAULT_OBJECT_THRESHOLD_BYTES;
  if (!Number.isInteger(given) || given < 1) {
    throw new TypeError(`objectThresholdBytes: a whole number of bytes, at least 1; got ${given}`);
  }
  return given;
}
const DEFAULT_ITEM_TTL_CEILING_MS = 400 * 24 * 60 * 60 * 1000;

/**
 * The {@link Store} on one DynamoDB table, in the single-table layout of `packages/aws/TABLE.md`:
 * per run a partition `pk=RUN#<runId>` holding the run item (`sk=RUN`: lease, fence, outcome),
 * one item per operation (`sk=OP#<sortable id>`; a step's START rides in the run item's
 * `inflight` map instead, up to 8 at once) and chunk items for large values
 * (`sk=CHUNK#<hash>#<n>`); idempotency records at `pk=IDEM#<key>`; TTL on `ttl` (seconds); the
 * sparse, sharded `due` index of runs by `dueAt`, which every run write keeps current.
 *
 * Every write is conditional: a commit only while the run's fence is the committer's (one
 * TransactWriteItems for up to 99 operations, one UpdateItem without operations), a lease only
 * when free or lapsed, an outside event only while the operation is as expected. Reads are
 * strongly consistent (listing, on an index, is eventually consistent) and ignore items whose
 * retention has passed, as DynamoDB deletes expired items only eventually. A conditional write
 * the client sent again after a lost response recognises its own earlier success (a lease by its
 * token, a claim by its token, a revision by its id, an outside event by the operation it wrote).
 *
 * The class only checks its options and delegates, one module per concern: `run-writes.ts`
 * (creating, revising), `run-lease.ts`, `run-commit.ts`, `fenced-writes.ts` (the transactions
 * behind a commit), `run-pin.ts` (a version policy's pin), `inline-starts.ts` (STARTs in the run item), `operation-reads.ts`,
 * `outside-events.ts`, `run-listing.ts`, `due-index.ts` and `idempotency.ts`.
 */
export class DynamoDbStore implements Store {
  private readonly ctx: StoreContext;
  private readonly idempotency: IdempotencyRecords;
  private readonly slots: DynamoDbSlots;
  private readonly gates: DynamoDbGates;
  private readonly functionLimits: DynamoDbFunctionLimits;
  private readonly legacyIndexes: boolean;

  constructor(options: DynamoDbStoreOptions) {
    const access = new TableAccess(
      transportOf(options.client),
      options.tableName,
      options.payloadObjects,
      options.objectKeyPrefix,
    );
    const limits = {
      maxItemBytes: options.maxItemBytes ?? DEFAULT_MAX_ITEM_BYTES,
      ...(options.payloadObjects ? { objectBytes: objectThreshold(options.objectThresholdBytes) } : {}),
    };
    this.ctx = new StoreContext(
      access,
      options.clock ?? { now: () => Date.now() },
      limits,
      options.itemTtlCeilingMs ?? DEFAULT_ITEM_TTL_CEILING_MS,
    );
    this.idempotency = new IdempotencyRecords(access, limits);
    this.slots = new DynamoDbSlots(access);
    this.gates = new DynamoDbGates(access, () => this.ctx.clock.now());
    this.functionLimits = new DynamoDbFunctionLimits(access);
    this.legacyIndexes = options.legacyIndexes === true;
  }

  takeSlot(slot: SlotKey, runId: string, limit: number): Promise<boolean> {
    return this.slots.take(slot, runId, limit);
  }

  releaseSlot(slot: SlotKey, runId: string): Promise<void> {
    return this.slots.release(slot, runId);
  }

  slotHolders(slot: SlotKey): Promise<string[]> {
    return this.slots.holders(slot);
  }

  enqueueRun(slot: SlotKey, entry: QueuedRunEntry): Promise<void> {
    return this.slots.enqueue(slot, entry);
  }

  dequeueRun(slot: SlotKey, entry: QueuedRunEntry): Promise<void> {
    return this.slots.dequeue(slot, entry);
  }

  listQueuedRuns(slot: SlotKey, limit: number, after?: QueuedRunEntry): Promise<QueuedRunEntry[]> {
    return this.slots.list(slot, limit, after);
  }

  readGate(gate: GateKey): Promise<GateRecord | undefined> {
    return this.gates.read(gate);
  }

  writeGate(gate: GateKey, value: GateRecord['value'], expected: number, expiresAt: number): Promise<boolean> {
    return this.gates.write(gate, value, expected, expiresAt);
  }

  putFunctionLimits(record: FunctionLimitsRecord): Promise<void> {
    return this.functionLimits.put(record);
  }

  getFunctionLimits(functionName: string): Promise<FunctionLimitsRecord | undefined> {
    return this.functionLimits.get(functionName);
  }

  listFunctionLimits(): Promise<FunctionLimitsRecord[]> {
    return this.functionLimits.list();
  }

  async createRun(run: RunRecord, execution: Operation): Promise<{ created: boolean; run: RunRecord }> {
    // The tag index's entries first (`tag-index.ts`): a run is never stored without them.
    if (run.tags && runFits(run.runId)) await writeTagEntries(this.ctx, run, run.tags);
    return createRun(this.ctx, run, execution);
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    if (!runFits(runId)) return undefined;
    const item = await this.ctx.access.getItem(runPk(runId), RUN_SK);
    return item && this.ctx.live(item) ? this.ctx.runOf(item) : undefined;
  }

  acquireLease(
    runId: string,
    now: number,
    leaseExpiresAt: number,
    leaseToken: string,
  ): Promise<LeaseGrant | undefined> {
    if (!runFits(runId)) return Promise.resolve(undefined);
    return acquireLease(this.ctx, runId, now, leaseExpiresAt, leaseToken);
  }

  /** Re-records a run leased by `leaseToken` as `to` while it is `from` (a version policy's pin, `run-pin.ts`). */
  pinRun(runId: string, from: string, to: string, leaseToken: string): Promise<boolean> {
    if (!runFits(runId)) return Promise.resolve(false);
    return pinRun(this.ctx.access, runId, from, to, leaseToken, async (id) => (await this.getRun(id))?.functionName);
  }

  findDueRuns(before: number, limit: number, after?: DueRun, partition?: number): Promise<DueRun[]> {
    return findDueRuns(this.ctx.access, before, limit, this.ctx.clock.now(), after, partition);
  }

  /** The due index's shards, each a partition (`due-index.ts`). */
  duePartitions(): number {
    return duePartitions();
  }

  loadOperations(runId: string): Promise<Operation[]> {
    if (!runFits(runId)) return Promise.resolve([]);
    return loadOperations(this.ctx, runId);
  }

  getOperation(runId: string, operationId: string): Promise<Operation | undefined> {
    if (!runFits(runId, operationId)) return Promise.resolve(undefined);
    return getOperation(this.ctx, runId, operationId);
  }

  /** What an invocation replays from, without the operations inside finished contexts (`replay-reads.ts`). */
  loadReplayOperations(runId: string): Promise<Operation[]> {
    if (!runFits(runId)) return Promise.resolve([]);
    return loadReplayOperations(this.ctx, runId);
  }

  loadOperationPage(runId: string, request: OperationPageRequest): Promise<OperationPage> {
    // An `after` no operation can have: nothing sorts after it that a page could start from.
    if (!runFits(runId, request.after)) return Promise.resolve({ operations: [] });
    return loadOperationPage(this.ctx, runId, request);
  }

  /** Runs by the listing index (`run-listing.ts`), by tags and error code through `tag-search.ts`. */
  async listRuns(query: RunQuery): Promise<RunPage> {
    const now = this.ctx.clock.now();
    const list = (plain: RunQuery) =>
      listRuns(this.ctx.access, plain, now, (items) => Promise.all(items.map((item) => this.ctx.runOf(item))), {
        legacyIndexes: this.legacyIndexes,
      });
    return searchRuns(
      {
        access: this.ctx.access,
        now,
        live: (item) => this.ctx.live(item),
        runOf: (item) => this.ctx.runOf(item),
        list,
      },
      query,
    );
  }

  reviseRun(
    runId: string,
    expectStatus: RunStatus,
    patch: RunPatch,
    operations: readonly Operation[],
    basedOn?: RevisionBase,
  ): Promise<RunRecord | undefined> {
    if (!runFits(runId)) return Promise.resolve(undefined);
    return reviseRun(this.ctx, runId, expectStatus, patch, operations, basedOn);
  }

  claimIdempotencyKey(
    record: IdempotencyRecord,
  ): Promise<{ claimed: true } | { claimed: false; existing: IdempotencyRecord }> {
    return this.idempotency.claim(record, this.ctx.clock.now());
  }

  completeIdempotencyKey(
    key: string,
    response: NonNullable<IdempotencyRecord['response']>,
    claim?: { claimToken: string; expiresAt: number },
  ): Promise<void> {
    return this.idempotency.complete(key, response, this.ctx.clock.now(), claim);
  }

  releaseIdempotencyKey(key: string, claimToken?: string): Promise<void> {
    return this.idempotency.release(key, claimToken);
  }

  appendSignal(runId: string, send: SignalSend): Promise<SignalAppend> {
    return appendSignal(this.ctx, runId, send);
  }

  listSignals(runId: string, createdAt?: number): Promise<SignalRecord[]> {
    return listSignals(this.ctx, runId, createdAt);
  }

  writeOutsideEvent(runId: string, next: Operation, expected: OutsideExpectation, event: boolean): Promise<boolean> {
    if (!runFits(runId, next.Id)) return Promise.resolve(false);
    return writeOutsideEvent(this.ctx, runId, next, expected, event);
  }

  /** With `transactWrites`, one TransactWriteItems carries them with the run's update (`user-writes.ts`). */
  async commit(runId: string, fence: number, write: CommitWrite): Promise<void> {
    const tags = write.run?.tags;
    if (tags === undefined) return commit(this.ctx, runId, fence, write);
    // Tags move in the tag index around the run write (`tag-index.ts`): new entries before it,
    // replaced ones after it. A writer that did not say what it replaces has the run read first.
    const tagged = write.tagged ?? (await this.taggedNow(runId));
    const next = tags ?? {};
    const run = { runId, createdAt: tagged.createdAt };
    await writeTagEntries(this.ctx, run, next, tagged.before);
    await commit(this.ctx, runId, fence, write);
    await deleteReplacedTagEntries(this.ctx, run, tagged.before, next);
  }

  /** A run's tags and creation time as stored, for a tag write that did not say them. */
  private async taggedNow(runId: string): Promise<NonNullable<CommitWrite['tagged']>> {
    const item = runFits(runId) ? await this.ctx.access.getItem(runPk(runId), RUN_SK) : undefined;
    if (!item) throw new FencedError(`run ${runId} does not exist`);
    return { before: (item.tags as Record<string, string> | undefined) ?? {}, createdAt: Number(item.createdAt) };
  }
}

/**
 * The transport of a store's `client` option: itself, or an AWS SDK document client behind its
 * adapter (checked for `removeUndefinedValues`, which the store's items rely on).
 */
function transportOf(client: DynamoDBDocumentClient | DynamoDbTransport): DynamoDbTransport {
  if (isDynamoDbTransport(client)) return client;
  if (client.config?.translateConfig?.marshallOptions?.removeUndefinedValues !== true) {
    throw new Error(
      'DynamoDbStore: create the document client with `marshallOptions: { removeUndefinedValues: true }` ' +
        '(DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } }))',
    );
  }
  return new DocumentClientTransport(client);
}

/**
 * Whether a run (and operation) id can name items of the table at all. Ids the engine makes
 * always do; one read from a request (a URL, a cursor, a callback id) may be longer than any key
 * DynamoDB accepts, and is then answered as a run or operation that does not exist instead of
 * refused by DynamoDB as an invalid request.
 */
function runFits(runId: string, operationId?: string): boolean {
  return keyFits(runPk(runId), operationId === undefined ? undefined : operationSk(operationId));
}
