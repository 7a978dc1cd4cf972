/**
 * The DynamoDB benches' world: DynamoDB Local behind a metered client, the engine wired like
 * ProductionBackend (its on-time waker and wake-up queue receiver), fakes of Scheduler, SQS and
 * Lambda that count calls, a virtual clock, and workloads.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import { CreateScheduleCommand, DeleteScheduleCommand, type SchedulerClient } from '@aws-sdk/client-scheduler';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  DEFAULT_RETENTION_DAYS,
  DynamoDbStore,
  LambdaInvoker,
  type LeaseWakeUp,
  OnTimeWaker,
  SchedulerWaker,
  SqsDelayWaker,
} from '@durable-lambda/aws';
import { Engine, type RunRecord, runIdFor, type WakeRequest, type Waker } from '@durable-lambda/engine';
import type { DurableBackend } from '@durable-lambda/protocol';
import {
  type DurableContext,
  type DurableExecutionConfig,
  type DurableLambdaHandler,
  StepSemantics,
  withDurableExecution,
} from '@durable-lambda/sdk';
import { withRunMetrics } from '../../packages/cdk/src/runtime/run-metrics';
import { CDK_FUNCTION, PRICE as COST, logEventBytes, MS_PER_AWS_CALL } from './cost-model';
import {
  consumed,
  fmt,
  type Item,
  indexEntry,
  itemSize,
  Meter,
  readUnits,
  type Tally,
  type Totals,
  totalsOf,
  writeUnits,
} from './dynamodb-meter';
import { FakeSqs, queueReceivingBackend } from './wake-queue-fakes';

/** One day, in ms. */
export const DAY_MS = 86_400_000;
/** The retention the bench engine writes TTLs with (the production default). */
export const RETENTION_MS = DEFAULT_RETENTION_DAYS * DAY_MS;
/** The Lambda function name the driver plays. */
export const FUNCTION_NAME = 'bench-fn';
/** The wake-up queue the bench's function is fed by (a fake: nothing is sent anywhere). */
export const BENCH_QUEUE_URL = 'https://sqs.us-east-1.amazonaws.com/123456789012/durable-bench-wake-ups';
/** The bench's table, one per process. */
export const TABLE = `durable-bench-${process.pid}`;

/**
 * The prices and Lambda size the detailed report (dynamodb.bench.ts) prices with: the cost model's
 * (lib/cost-model.ts), at the CDK's default memory and architecture.
 */
export const PRICE = {
  writeUnit: COST.writeUnitPerM,
  readUnit: COST.readUnitPerM,
  schedulerInvocation: COST.schedulerInvocationPerM,
  sqsRequest: COST.sqsRequestPerM,
  lambdaRequest: COST.lambdaRequestPerM,
  lambdaGbSecond: COST.lambdaGbSecond[CDK_FUNCTION.architecture],
  storageGbMonth: COST.storageGbMonth,
};
/** The Lambda memory size the cost figures assume: the `DurableFunction` default. */
export const LAMBDA_MEMORY_MB = CDK_FUNCTION.memoryMb;
/** Real latency of one AWS API call from Lambda, ms (lib/cost-model.ts says why). */
export const ASSUMED_MS_PER_CALL = MS_PER_AWS_CALL;
/** Assumed time of the handler's own code per invocation (the detailed report; the figures measure it), ms. */
export const ASSUMED_CODE_MS = 5;
/** Concurrency of the map workloads. */
export const MAX_CONCURRENCY = 10;

// ---------------------------------------------------------------------------------------------
// Fakes of the other AWS services, and a waker that counts what the engine asks

/** A one-time schedule the fake Scheduler holds. */
export interface Schedule {
  name: string;
  at: number;
  input: string;
}

/** Whether `command` is a `type` command, from this copy of the AWS SDK or another one. */
function isCommand<C>(command: unknown, type: abstract new (...args: never[]) => C): command is C {
  return command instanceof type || (command as object | null)?.constructor?.name === type.name;
}

/** EventBridge Scheduler: keeps one-time schedules; the driver fires them (then they delete themselves). */
export class FakeScheduler {
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
    if (isCommand(command, CreateScheduleCommand)) {
      this.creates++;
      const { Name, ScheduleExpression, Target } = command.input;
      if (this.schedules.has(Name!)) throw Object.assign(new Error(`${Name} exists`), { name: 'ConflictException' });
      // at(yyyy-mm-ddThh:mm:ss), UTC
      const at = Date.parse(`${ScheduleExpression!.slice(3, -1)}Z`);
      this.schedules.set(Name!, { name: Name!, at, input: Target!.Input! });
      return {};
    }
    if (isCommand(command, DeleteScheduleCommand)) {
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
export class FakeLambda {
  readonly queue: unknown[] = [];
  invokes = 0;

  send = async (command: unknown): Promise<unknown> => {
    // By name: bench/node_modules may hold another copy of @aws-sdk/client-lambda than packages/aws uses.
    if (!isCommand(command, InvokeCommand)) throw new Error(`FakeLambda: unexpected ${String(command)}`);
    this.invokes++;
    this.queue.push(JSON.parse(new TextDecoder().decode(command.input.Payload as Uint8Array)));
    return { StatusCode: 202 };
  };
}

/** Counts what the engine asks the waker, by reason, and passes it on. */
export class CountingWaker implements Waker {
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

/** A clock that moves only when the driver jumps it to the next schedule. */
export class VirtualClock {
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

/** What one invocation of a driven run cost. */
export interface Invocation {
  /** Real ms the handler took. */
  ms: number;
  /** DynamoDB requests it made. */
  dynamodb: number;
  /** Scheduler API calls, SQS sends and Lambda invokes it made. */
  otherCalls: number;
  /** Items its DynamoDB reads returned, and their read units (computed). */
  itemsRead: number;
  rru: number;
  /** Its DynamoDB write requests and write units (computed, table + index). */
  writeRequests: number;
  wru: number;
  /**
   * How Lambda invoked it: the start, an asynchronous invoke, a schedule firing, an SQS message; or
   * `api`: another function's invocation on the run's behalf (the control API completing a callback).
   */
  via: 'start' | 'invoke' | 'schedule' | 'sqs' | 'api';
  /** CPU ms this process spent in it (user + system): our code and the AWS SDK's, on this machine. */
  cpuMs: number;
  /** What it wrote to stdout and stderr (run metrics, log lines): log events, and the bytes ingested. */
  logLines: number;
  logBytes: number;
}

/** What one driven run cost, in all and per invocation. */
export interface Measured {
  byCommand: Map<string, Tally>;
  totals: Totals;
  wakeAts: Map<string, number>;
  cancels: Map<string, number>;
  scheduleCreates: number;
  scheduleDeletes: number;
  /** Schedules that fired, by reason (Scheduler invocations). */
  fired: Map<string, number>;
  asyncInvokes: number;
  /** SQS requests: sends by the function, receives and deletes by Lambda's event source. */
  sqsSends: number;
  sqsReceives: number;
  sqsDeletes: number;
  invocations: Invocation[];
  run: RunRecord;
  operations: number;
  /** Item-bytes × days this run keeps in the table (items + index entries, with their overhead), by kind. */
  storageByteDays: Map<string, number>;
  /** Bytes the run keeps in the table (items + index entries, with their 100 B overheads). */
  storedBytes: number;
  /** Bytes the run keeps in the table, by kind (as in `storageByteDays`). */
  storedBytesByKind: Map<string, number>;
  /** Bytes of items without a TTL attribute: kept until deleted, so not in `storageByteDays`. */
  unexpiringBytes: number;
}

/** Hooks into {@link World.drive}. */
export interface DriveHooks {
  /**
   * Called when nothing is queued or scheduled (the run waits on the outside, e.g. a callback): it
   * may deliver something (then the driver goes on) and returns whether it did.
   */
  onIdle?: () => Promise<boolean>;
  /** Called before invocation `index` (0: the start), e.g. to switch the meter's unit counting on. */
  beforeCall?: (index: number) => void;
  /** The function the run is started on (default {@link FUNCTION_NAME}). */
  functionName?: string;
}

/** DynamoDB Local behind a metered client, the engine wired like ProductionBackend, and the driver that plays Lambda. */
export class World {
  readonly clock = new VirtualClock();
  readonly scheduler = new FakeScheduler();
  readonly lambda = new FakeLambda();
  readonly sqs = new FakeSqs(() => this.clock.now());
  readonly waker: CountingWaker;
  /** What the deployed function runs: the engine behind the wake-up queue's receiver. */
  readonly backend: DurableBackend;
  readonly meter: Meter;
  readonly engine: Engine;
  /** Unmetered: checks and storage figures. */
  readonly raw: DynamoDBClient;
  private readonly plainStore: DynamoDbStore;
  private requestSeq = 0;
  /** Request ids of this world's runs (distinct per lease mode: two worlds share one table). */
  private readonly runPrefix: string;

  /** The functions this world plays (one queue and waker each would be the same wiring). */
  readonly functionNames: readonly string[];
  /** The table its runs are in (default {@link TABLE}). */
  readonly tableName: string;

  /**
   * `leaseWakeUp`: what stands behind each invocation's lease (default: the reconciler, no call).
   * `functionNames`: the functions whose runs it plays (default one, {@link FUNCTION_NAME}).
   * `tableName`: its table (default {@link TABLE}), which the caller creates.
   */
  constructor(
    endpoint: string,
    options: { leaseWakeUp?: LeaseWakeUp; functionNames?: string[]; tableName?: string } = {},
  ) {
    this.functionNames = options.functionNames ?? [FUNCTION_NAME];
    this.tableName = options.tableName ?? TABLE;
    const own = (name: string) => this.functionNames.includes(name.split(':')[0] ?? '');
    this.runPrefix = `bench-${process.pid}${options.leaseWakeUp === undefined ? '' : `-${options.leaseWakeUp}`}`;
    const client = (): DynamoDBClient =>
      new DynamoDBClient({
        endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      });
    this.raw = client();
    const metered = client();
    this.meter = new Meter(this.raw, this.tableName);
    this.meter.install(metered);
    const doc = (c: DynamoDBClient) =>
      DynamoDBDocumentClient.from(c, { marshallOptions: { removeUndefinedValues: true } });
    this.plainStore = new DynamoDbStore({ client: doc(client()), tableName: this.tableName, clock: this.clock });
    const targetArn = (name: string) => `arn:aws:lambda:us-east-1:123456789012:function:${name}`;
    const invoker = new LambdaInvoker({ client: this.lambda as unknown as LambdaClient, targetArn });
    // The production waker: SQS within 15 minutes, Scheduler + a final SQS hop beyond, no lease schedule.
    const onTime = new OnTimeWaker({
      scheduler: new SchedulerWaker({
        client: this.scheduler as unknown as SchedulerClient,
        groupName: 'durable-bench',
        roleArn: 'arn:aws:iam::123456789012:role/durable-bench-scheduler',
        targetArn,
        invoker,
        clock: this.clock,
        // The virtual clock does not move by itself: a wake-up due within 2 s is sent at once.
        sleep: async () => {},
      }),
      queue: new SqsDelayWaker({ queueUrl: BENCH_QUEUE_URL, client: this.sqs, clock: this.clock }),
      feeds: own,
      clock: this.clock,
      ...(options.leaseWakeUp === undefined ? {} : { lease: options.leaseWakeUp }),
    });
    this.waker = new CountingWaker(onTime);
    this.engine = new Engine({
      store: new DynamoDbStore({ client: doc(metered), tableName: this.tableName, clock: this.clock }),
      waker: this.waker,
      invoker,
      clock: this.clock,
      retentionMs: RETENTION_MS,
    });
    // What a DurableFunction bundles: the production backend wrapped with its run metrics (an EMF
    // line when a run ends), so the log lines measured are the deployed runtime's.
    this.backend = withRunMetrics(
      queueReceivingBackend({
        engine: this.engine,
        rearm: (request, hint) => onTime.wakeAt(request, hint),
        invoker,
        isOwn: own,
        functionName: FUNCTION_NAME,
        clock: this.clock,
      }),
      { now: () => this.clock.now() },
    );
  }

  /** A handler on this world's engine, logging as the deployed runtime does (the SDK's default sink). */
  handler<E, R>(
    fn: (event: E, ctx: DurableContext) => Promise<R>,
    config: Pick<
      DurableExecutionConfig,
      'lazyStartMs' | 'concurrency' | 'throttle' | 'rateLimit' | 'debounce' | 'singleton'
    > = {},
  ) {
    return withDurableExecution(fn, { backend: this.backend, ...config });
  }

  /**
   * One invocation as Lambda makes it, measured: DynamoDB requests and units, other AWS calls, CPU
   * time, and what it wrote to stdout and stderr (Lambda sends each line to CloudWatch Logs).
   */
  invoke(
    handler: DurableLambdaHandler,
    event: unknown,
    how: { via: Invocation['via']; requestId: string; functionName?: string | undefined },
  ): Promise<Invocation> {
    return this.measure(how.via, async () => {
      await handler(event, {
        functionName: how.functionName ?? FUNCTION_NAME,
        awsRequestId: how.requestId,
        getRemainingTimeInMillis: () => 15 * 60_000,
      });
    });
  }

  /**
   * Runs `work` (an invocation, or what another function does, such as the control API completing
   * a callback) and measures it as one invocation.
   */
  async measure(via: Invocation['via'], work: () => Promise<void>): Promise<Invocation> {
    const before = totalsOf(this.meter.byCommand);
    const others = this.otherCalls();
    const lines: string[] = [];
    const capture = (stream: NodeJS.WriteStream) => {
      const write = stream.write;
      stream.write = ((chunk: string | Uint8Array) => {
        const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
        lines.push(...text.split('\n').filter((line) => line.length > 0));
        return true;
      }) as typeof stream.write;
      return () => {
        stream.write = write;
      };
    };
    const restore = [capture(process.stdout), capture(process.stderr)];
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    try {
      await work();
    } finally {
      for (const undo of restore) undo();
    }
    const ms = performance.now() - t0;
    const used = process.cpuUsage(cpu);
    const after = totalsOf(this.meter.byCommand);
    return {
      ms,
      dynamodb: after.requests - before.requests,
      otherCalls: this.otherCalls() - others,
      itemsRead: after.itemsRead - before.itemsRead,
      rru: after.rru - before.rru,
      writeRequests: after.writeRequests - before.writeRequests,
      wru: after.wru - before.wru,
      via,
      cpuMs: (used.user + used.system) / 1000,
      logLines: lines.length,
      logBytes: lines.reduce((sum, line) => sum + logEventBytes(line), 0),
    };
  }

  private otherCalls(): number {
    return this.scheduler.creates + this.scheduler.deletes + this.lambda.invokes + this.sqs.sends;
  }

  /**
   * One run, as Lambda would see it: the start event, then each asynchronous invoke and each
   * schedule as it fires (the clock jumps to it), until nothing is left. Returns what it cost.
   */
  async drive(handler: DurableLambdaHandler, payload: unknown, hooks: DriveHooks = {}): Promise<Measured> {
    const onIdle = hooks.onIdle ?? (async () => false);
    this.meter.reset();
    this.waker.reset();
    this.scheduler.reset();
    this.sqs.reset();
    this.lambda.invokes = 0;
    const requestId = `${this.runPrefix}-${++this.requestSeq}`;
    const invocations: Invocation[] = [];
    const call = async (event: unknown, via: Invocation['via']) => {
      hooks.beforeCall?.(invocations.length);
      const id = invocations.length === 0 ? requestId : `${requestId}-${invocations.length}`;
      invocations.push(await this.invoke(handler, event, { via, requestId: id, functionName: hooks.functionName }));
    };
    await call(payload, 'start');
    for (;;) {
      if (invocations.length > 200) throw new Error('runaway: more than 200 invocations');
      const queued = this.lambda.queue.shift();
      if (queued !== undefined) {
        await call(queued, 'invoke');
        continue;
      }
      // Whichever comes first: a schedule firing or a delayed SQS message becoming visible.
      const scheduledAt = Math.min(...[...this.scheduler.schedules.values()].map((x) => x.at));
      const visibleAt = this.sqs.nextVisibleAt();
      if (visibleAt !== undefined && visibleAt <= scheduledAt) {
        this.clock.advanceTo(visibleAt);
        await call(this.sqs.receiveNext(), 'sqs');
        continue;
      }
      const schedule = this.scheduler.takeEarliest();
      if (!schedule) {
        if (await onIdle()) continue;
        break;
      }
      this.clock.advanceTo(schedule.at);
      await call(JSON.parse(schedule.input), 'schedule');
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
      sqsSends: this.sqs.sends,
      sqsReceives: this.sqs.receives,
      sqsDeletes: this.sqs.deletes,
      invocations,
      run,
      operations,
      ...(await this.storage(runId)),
    };
  }

  /**
   * Bytes × days the run's items (with their index entries) stay in the table, each until the TTL
   * it carries (what the store wrote, so the figure follows its retention), by kind.
   */
  private async storage(runId: string): Promise<{
    storageByteDays: Map<string, number>;
    storedBytes: number;
    storedBytesByKind: Map<string, number>;
    unexpiringBytes: number;
  }> {
    const { keys, indexes } = await this.meter.shape();
    const out = await this.raw.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: `RUN#${runId}` } },
        ConsistentRead: true,
      }),
    );
    const now = this.clock.now();
    const byKind = new Map<string, number>();
    const bytesByKind = new Map<string, number>();
    let storedBytes = 0;
    let unexpiringBytes = 0;
    for (const item of out.Items ?? []) {
      // Table items carry 100 bytes of overhead too.
      let bytes = itemSize(item) + 100;
      for (const index of indexes) bytes += indexEntry(item, keys, index)?.size ?? 0;
      storedBytes += bytes;
      if (item.ttl?.N === undefined) {
        unexpiringBytes += bytes;
        continue;
      }
      const days = Math.max(0, Number(item.ttl.N) * 1000 - now) / DAY_MS;
      const sk = item.sk?.S ?? '';
      const kind = sk === 'RUN' ? 'run item' : sk.startsWith('OP#') ? 'operations' : 'other items';
      byKind.set(kind, (byKind.get(kind) ?? 0) + bytes * days);
      bytesByKind.set(kind, (bytesByKind.get(kind) ?? 0) + bytes);
    }
    return { storageByteDays: byKind, storedBytes, storedBytesByKind: bytesByKind, unexpiringBytes };
  }
}

// ---------------------------------------------------------------------------------------------
// Calibration: DynamoDB Local's ConsumedCapacity against the documented rules

/** DynamoDB Local's ConsumedCapacity against the documented rules, on a few known requests. */
export async function calibrate(raw: DynamoDBClient): Promise<string[][]> {
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

/** A handler of `n` sequential steps on the world's engine. */
export const stepsHandler = (
  world: World,
  n: number,
  opts: { lazyStartMs?: number; stepMs?: number; eager?: boolean } = {},
) =>
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
export const mapHandler = (world: World, m: number, itemMs: (i: number) => number) =>
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

/** `k` one-hour waits one after the other. */
export const waitsHandler = (world: World, k: number) =>
  world.handler(async (_e: unknown, ctx: DurableContext) => {
    for (let i = 0; i < k; i++) await ctx.wait(`w${i}`, { hours: 1 });
    return k;
  });

/** `k` callbacks one after the other; each callback id goes to `pending`, for {@link answerCallbacks}. */
export const callbacksHandler = (world: World, k: number, pending: string[]) =>
  world.handler(async (_e: unknown, ctx: DurableContext) => {
    for (let i = 0; i < k; i++) {
      await ctx.waitForCallback(`c${i}`, async (id) => {
        pending.push(id);
      });
    }
    return k;
  });

/**
 * A drive's `onIdle` that completes the oldest pending callback as the control API does (the
 * engine's `sendCallbackSuccess`), measured as one invocation of it into `answers`.
 */
export const answerCallbacks =
  (world: World, pending: string[], answers: Invocation[] = []) =>
  async (): Promise<boolean> => {
    const id = pending.shift();
    if (id === undefined) return false;
    answers.push(await world.measure('api', () => world.engine.sendCallbackSuccess(id, '"ok"')));
    return true;
  };

/** The workflow's input. */
export interface Order {
  orderId: string;
  email: string;
  amountCents: number;
  items: Array<{ sku: string; quantity: number }>;
}

/** The order the workflow runs on (payloads ~100 B). */
export const ORDER: Order = {
  orderId: 'ord-20260101-0001',
  email: 'customer@example.com',
  amountCents: 12_990,
  items: [
    { sku: 'SKU-RED-M', quantity: 1 },
    { sku: 'SKU-BLUE-L', quantity: 2 },
  ],
};

/** The 4-step, 1-wait workflow: two steps, a one-hour wait, two steps (two invocations). */
export const workflowHandler = (world: World) =>
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

/** Throws unless the run succeeded with `result` (and `operations` operations) without a failed request. */
export function expectRun(m: Measured, what: string, result: unknown, operations?: number): void {
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

/** Dollars to the cent. */
export const usd = (x: number): string => `$${x.toFixed(2)}`;

/** An aligned text table. */
export function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  const sep = `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`;
  return [line(head), sep, ...rows.map(line)].join('\n');
}

/** A progress line, on stderr. */
export const progress = (s: string) => process.stderr.write(`  ${s}\n`);
/** Median of a non-empty list. */
export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
/** A count map as `key n, key n`. */
export const mapText = (m: Map<string, number>): string => [...m].map(([k, v]) => `${k} ${v}`).join(', ') || 'none';
/** The sum of a count map. */
export const sumMap = (m: Map<string, number>): number => [...m.values()].reduce((a, b) => a + b, 0);

/** Per-unit figures: (run - baseline) / units. */
export interface PerUnit {
  requests: number;
  writeRequests: number;
  readRequests: number;
  wru: number;
  indexWru: number;
  rru: number;
  localWru: number;
  localRru: number;
}

/** Per-unit figures: (run - baseline) / units. */
export function perUnit(run: Totals, base: Totals, units: number): PerUnit {
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

/** A report row of per-unit figures. */
export const perUnitRow = (label: string, p: PerUnit, extra = ''): string[] => [
  label,
  fmt(p.requests),
  fmt(p.writeRequests),
  fmt(p.readRequests),
  fmt(p.wru),
  fmt(p.rru),
  `${fmt(p.localWru)} / ${fmt(p.localRru)}`,
  extra,
];

/** A report row of a run's totals. */
export const totalsRow = (label: string, t: Totals, extra = ''): string[] => [
  label,
  fmt(t.requests),
  fmt(t.writeRequests),
  fmt(t.readRequests),
  `${fmt(t.wru)} (${fmt(t.tableWru)} + ${fmt(t.indexWru)})`,
  fmt(t.rru),
  `${fmt(t.localWru)} / ${fmt(t.localRru)}`,
  extra,
];
