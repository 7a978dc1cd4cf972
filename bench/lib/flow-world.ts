/**
 * The flow section's world (bench/figures/flow-figures.ts): the DynamoDB bench world (DynamoDB
 * Local behind the meter, the engine wired like ProductionBackend, Scheduler, SQS and Lambda
 * faked and counted) driving several runs of one function at once, as Lambda would: runs started
 * as the control API and the trigger and schedule receivers start them (`Engine.startRun`, then
 * one asynchronous invoke with the run's wake event), held on callbacks while others arrive, and
 * every invocation measured.
 */
import { DeleteItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoDbStore } from '@durable-lambda/aws';
import { Engine, kickNewRun, type RunRecord } from '@durable-lambda/engine';
import type { DurableContext, DurableExecutionConfig, DurableLambdaHandler } from '@durable-lambda/sdk';
import { PRICE } from './cost-model';
import { totalsOf } from './dynamodb-meter';
import { type Invocation, RETENTION_MS, World } from './dynamodb-world';

/** The input of a flow run: its key (a tenant), its id, and whether it holds its slot on a callback. */
export interface FlowEvent {
  tenant: string;
  id: string;
  hold?: boolean;
}

/** What a stretch of work cost: DynamoDB requests, units (index writes apart, by index), other calls. */
export interface Cost {
  requests: number;
  wru: number;
  rru: number;
  /** WRU of table items. */
  tableWru: number;
  /** WRU of index entries, by index name. */
  indexWru: Map<string, number>;
  /** Scheduler, SQS and Lambda calls. */
  otherCalls: number;
  invocations: number;
}

/** No cost. */
export const noCost = (): Cost => ({
  requests: 0,
  wru: 0,
  rru: 0,
  tableWru: 0,
  indexWru: new Map(),
  otherCalls: 0,
  invocations: 0,
});

/** a + b (or a − b with `sign` −1), field by field. */
export function addCost(a: Cost, b: Cost, sign = 1): Cost {
  const indexWru = new Map(a.indexWru);
  for (const [k, v] of b.indexWru) indexWru.set(k, (indexWru.get(k) ?? 0) + sign * v);
  return {
    requests: a.requests + sign * b.requests,
    wru: a.wru + sign * b.wru,
    rru: a.rru + sign * b.rru,
    tableWru: a.tableWru + sign * b.tableWru,
    indexWru,
    otherCalls: a.otherCalls + sign * b.otherCalls,
    invocations: a.invocations + sign * b.invocations,
  };
}

/** The sum of costs. */
export const sumCosts = (...costs: Cost[]): Cost => costs.reduce((a, b) => addCost(a, b), noCost());

/** `cost` times `f`, field by field (a mean, a share). */
export function scaleCost(cost: Cost, f: number): Cost {
  return {
    requests: cost.requests * f,
    wru: cost.wru * f,
    rru: cost.rru * f,
    tableWru: cost.tableWru * f,
    indexWru: new Map([...cost.indexWru].map(([n, v]) => [n, v * f])),
    otherCalls: cost.otherCalls * f,
    invocations: cost.invocations * f,
  };
}

/** $ of DynamoDB writes and reads, per million of `cost`, at on-demand prices. */
export const dollarsPerMillion = (cost: Cost): number => cost.wru * PRICE.writeUnitPerM + cost.rru * PRICE.readUnitPerM;

/** The cost as a note prints it. */
export function costText(cost: Cost): string {
  const index = [...cost.indexWru]
    .filter(([, v]) => Math.abs(v) > 1e-9)
    .map(([k, v]) => `${k} ${round(v)}`)
    .join(', ');
  return (
    `${round(cost.wru)} WRU (table ${round(cost.tableWru)}${index ? `, index ${index}` : ''}), ${round(cost.rru)} RRU, ` +
    `${round(cost.requests)} DynamoDB requests, ${round(cost.otherCalls)} SQS/Scheduler/Lambda calls, ` +
    `$${dollarsPerMillion(cost).toFixed(2)} per 1M in DynamoDB units`
  );
}

const round = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(2));

/** The gates a flow handler may declare besides `concurrency` (keyed by tenant: {@link tenantOf}). */
export type FlowGates = Pick<DurableExecutionConfig, 'throttle' | 'rateLimit' | 'debounce' | 'singleton'>;

/** A flow run's key under any gate: its tenant. */
export const tenantOf = (e: unknown): string => (e as FlowEvent).tenant;

/** The flow functions this world plays (one per scenario, so their listings and keys do not mix). */
export const FLOW_FUNCTIONS = [
  'flow-plain',
  'flow-keyed',
  'flow-trigger',
  'flow-throttle',
  'flow-rate',
  'flow-debounce',
  'flow-singleton-skip',
  'flow-singleton-cancel',
  'flow-buffer',
  'flow-buffer-busy',
  ...Array.from({ length: 8 }, (_, i) => `flow-sched-${i}`),
];

/** The bench world, driving many runs of one function at once. */
export class FlowWorld {
  readonly world: World;
  /** An engine on an unmetered client, for seeding runs whose cost is not the figure. */
  readonly seeder: Engine;
  /** Callback ids of held runs, by the run's event id. */
  readonly held = new Map<string, string>();
  private seq = 0;
  /** Invocations delivered so far (a snapshot's `invocations`). */
  private delivered = 0;

  constructor(endpoint: string, tableName?: string) {
    this.world = new World(endpoint, { functionNames: FLOW_FUNCTIONS, ...(tableName ? { tableName } : {}) });
    const doc = DynamoDBDocumentClient.from(this.world.raw, { marshallOptions: { removeUndefinedValues: true } });
    this.seeder = new Engine({
      store: new DynamoDbStore({ client: doc, tableName: this.world.tableName, clock: this.world.clock }),
      waker: { wakeAt: async () => {} },
      clock: this.world.clock,
      retentionMs: RETENTION_MS,
    });
  }

  /**
   * The flow handler: a run with `hold` waits on a callback first (holding its slot, when keyed),
   * then every run takes one step and ends. With a number, under `concurrency` of that limit keyed
   * by tenant; with gates, under those.
   */
  handler(limit?: number | FlowGates): DurableLambdaHandler {
    return this.world.handler(
      async (e: FlowEvent, ctx: DurableContext) => {
        if (e.hold) {
          await ctx.waitForCallback('hold', async (callbackId) => {
            this.held.set(e.id, callbackId);
          });
        }
        return ctx.step('work', async () => e.id);
      },
      typeof limit === 'number' ? { concurrency: { key: tenantOf, limit } } : (limit ?? {}),
    );
  }

  /** What the meter and the fakes counted so far (a snapshot to diff). */
  snapshot(): Cost {
    const t = totalsOf(this.world.meter.byCommand);
    const indexWru = new Map<string, number>();
    for (const [target, byKey] of this.world.meter.partitions) {
      if (target === 'table') continue;
      indexWru.set(
        target,
        [...byKey.values()].reduce((s, x) => s + x.wru, 0),
      );
    }
    const w = this.world;
    return {
      requests: t.requests,
      wru: t.wru,
      rru: t.rru,
      tableWru: t.tableWru,
      indexWru,
      otherCalls: w.scheduler.creates + w.scheduler.deletes + w.lambda.invokes + w.sqs.sends,
      invocations: this.delivered,
    };
  }

  /** What `work` cost: DynamoDB, the other calls, the invocations it delivered. */
  async cost(work: () => Promise<unknown>): Promise<Cost> {
    const before = this.snapshot();
    await work();
    return addCost(this.snapshot(), before, -1);
  }

  /** Starts a run of `functionName` as the control API does (created, then invoked once); not invoked yet. */
  async start(functionName: string, event: FlowEvent, engine: Engine = this.world.engine): Promise<RunRecord> {
    const { run } = await engine.startRun({ functionName, input: JSON.stringify(event), runKey: `flow:${event.id}` });
    if (engine === this.world.engine) {
      await kickNewRun({ invoker: this.invoker(), waker: this.world.waker, clock: this.world.clock }, run);
    }
    return run;
  }

  /** The invoker the receivers start runs through: queues the invoke for {@link drain}, counted as one. */
  invoker() {
    const lambda = this.world.lambda;
    return {
      invoke: async (_functionName: string, payload: unknown) => {
        lambda.invokes++;
        lambda.queue.push(payload);
      },
    };
  }

  /** Delivers the next pending event (see {@link drain}); throws when there is none. */
  async deliverOne(handler: DurableLambdaHandler, functionName: string): Promise<Invocation> {
    const [one] = await this.drain(handler, functionName, 1);
    if (!one) throw new Error('flow: nothing to deliver');
    return one;
  }

  /**
   * Delivers everything pending (asynchronous invokes, SQS messages, the clock moved to each
   * one's visibility) to `handler` of `functionName`, one invocation each, until nothing is left
   * or `most` were delivered. Returns the invocations.
   */
  async drain(handler: DurableLambdaHandler, functionName: string, most = 2_000): Promise<Invocation[]> {
    const w = this.world;
    const out: Invocation[] = [];
    for (;;) {
      if (out.length >= most) return out;
      const queued = w.lambda.queue.shift();
      const event = queued ?? (w.sqs.nextVisibleAt() === undefined ? undefined : this.nextSqs());
      if (event === undefined) return out;
      this.delivered++;
      out.push(
        await w.invoke(handler, event, {
          via: queued === undefined ? 'sqs' : 'invoke',
          requestId: `flow-${process.pid}-${++this.seq}`,
          functionName,
        }),
      );
    }
  }

  private nextSqs(): unknown {
    const w = this.world;
    w.clock.advanceTo(w.sqs.nextVisibleAt()!);
    return w.sqs.receiveNext();
  }

  /** Completes a held run's callback (as the control API does); its wake-up is left pending. */
  async release(eventId: string): Promise<void> {
    const id = this.held.get(eventId);
    if (!id) throw new Error(`flow: run ${eventId} holds no callback`);
    this.held.delete(eventId);
    await this.world.engine.sendCallbackSuccess(id, '"go"');
  }

  /**
   * Puts `runIds` back among the key's holders, as if each had died between its end and its
   * slot's release (the leak the next admission at a full key heals).
   */
  async leakSlots(functionName: string, key: string, runIds: string[]): Promise<void> {
    await this.world.raw.send(
      new UpdateItemCommand({
        TableName: this.world.tableName,
        Key: { pk: { S: `SLOT#${functionName}#${key}` }, sk: { S: 'HOLDERS' } },
        UpdateExpression: 'ADD holders :ids',
        ExpressionAttributeValues: { ':ids': { SS: runIds } },
      }),
    );
  }

  /**
   * Registers `functionName` in the metered store's `FUNCTIONS` registry, unmetered and leaving no
   * run: the store puts a function there once per store instance, before its first run, so the
   * first figure of a function would otherwise carry that one-off write (a cold start's, not a run's).
   */
  async warmFunction(functionName: string): Promise<void> {
    const meter = this.world.meter;
    meter.computeUnits = false;
    try {
      const { run } = await this.world.engine.startRun({ functionName, runKey: `warm:${functionName}` });
      await this.world.raw.send(
        new DeleteItemCommand({
          TableName: this.world.tableName,
          Key: { pk: { S: `RUN#${run.runId}` }, sk: { S: 'RUN' } },
        }),
      );
    } finally {
      meter.computeUnits = true;
    }
  }

  /** A run's record, unmetered. */
  getRun(runId: string): Promise<RunRecord | undefined> {
    return this.seeder.getRun(runId);
  }
}
