/**
 * The control API over a real engine on DynamoDB Local: a table of its own, a virtual clock that
 * starts at the real time (DynamoDB Local's TTL deletes items whose `ttl` is in the real past),
 * a recording waker and invoker, and every unexpected error the API reports kept for the test.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type ApiRequest, type ControlApi, createControlApi } from '@durable-lambda/api';
import { createDurableTable, DynamoDbStore } from '@durable-lambda/aws';
import { Engine, type WakeRequest } from '@durable-lambda/engine';
import { VirtualClock } from '@durable-lambda/local';
import { type DurableLambdaHandler, finishOpened, getDurableEntry } from '@durable-lambda/sdk';
import { uniqueTableName } from '../support/dynamodb-local';

/** An answer with its body parsed when it is JSON. */
export interface WorldAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  json: any;
}

export class DynamoDbApiWorld {
  readonly clock = new VirtualClock(Date.now());
  readonly wakeUps: WakeRequest[] = [];
  readonly invoked: Array<{ functionName: string; event: unknown }> = [];
  /** What the API reported as unexpected (each answered 500). */
  readonly errors: unknown[] = [];
  readonly store: DynamoDbStore;
  readonly engine: Engine;
  readonly api: ControlApi;

  private constructor(client: DynamoDBDocumentClient, tableName: string, options: { maxBodyBytes?: number } = {}) {
    this.store = new DynamoDbStore({ client, tableName, clock: this.clock });
    this.engine = new Engine({
      store: this.store,
      clock: this.clock,
      maxPayloadBytes: 2 * 1024,
      waker: { wakeAt: async (w) => void this.wakeUps.push(w) },
      invoker: {
        invoke: async (functionName, event) => void this.invoked.push({ functionName, event }),
        knows: () => true,
      },
    });
    this.api = createControlApi({
      engine: this.engine,
      functions: ['fn', 'other'],
      onError: (error) => void this.errors.push(error),
      ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
    });
  }

  /** A world on a fresh table. */
  static async create(client: DynamoDBDocumentClient, options: { maxBodyBytes?: number } = {}) {
    const tableName = uniqueTableName('api-world');
    await createDurableTable(client, tableName);
    return new DynamoDbApiWorld(client, tableName, options);
  }

  /** Sends one request; `body` objects are sent as JSON, strings as they are; POSTs say JSON. */
  async call(
    method: string,
    path: string,
    init: { body?: unknown; headers?: ApiRequest['headers']; query?: ApiRequest['query'] } = {},
  ): Promise<WorldAnswer> {
    const body = init.body === undefined || typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
    const response = await this.api.handle({
      method,
      path,
      query: init.query ?? {},
      headers: { ...(method === 'POST' ? { 'content-type': 'application/json' } : {}), ...(init.headers ?? {}) },
      body: body as string | undefined,
    });
    let json: unknown;
    try {
      json = JSON.parse(response.body);
    } catch {
      json = undefined;
    }
    return { ...response, json };
  }

  /** Starts a run through the API; returns its id. */
  async start(functionName = 'fn', input?: unknown, extra: Record<string, unknown> = {}): Promise<string> {
    const answer = await this.call('POST', '/v1/runs', {
      body: { function: functionName, ...(input === undefined ? {} : { input }), ...extra },
    });
    if (answer.status !== 201) throw new Error(`start answered ${answer.status}: ${answer.body}`);
    return answer.json.runId;
  }

  /** Runs one invocation of the run with `handler`, at its wake-up time. */
  async drive(runId: string, handler: DurableLambdaHandler): Promise<void> {
    const run = await this.engine.getRun(runId);
    if (run?.nextWakeAt !== undefined && run.nextWakeAt > this.clock.now()) this.clock.advanceTo(run.nextWakeAt);
    const session = await this.engine.openRun(runId);
    if (!session) throw new Error(`run ${runId}: nothing to invoke`);
    const result = await getDurableEntry(handler).execute(
      session,
      { functionName: run?.functionName ?? 'fn' },
      { inProcessWaitMs: 0, logSink: () => {} },
    );
    await finishOpened(session, result).catch(() => undefined);
  }
}
