import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ApiRequest, answerClientErrors, type ControlApiOptions, createControlApi } from '@durable-lambda/api';
import { Engine, type Invoker, MemoryStore, type WakeRequest } from '@durable-lambda/engine';
import { VirtualClock } from '@durable-lambda/local';
import {
  type DurableHandler,
  type DurableLambdaHandler,
  finishOpened,
  getDurableEntry,
  withDurableExecution,
} from '@durable-lambda/sdk';

/** A wrapped handler that logs nothing. */
export const durable = <E, R>(handler: DurableHandler<E, R>, backend?: Engine): DurableLambdaHandler =>
  withDurableExecution(handler, { logSink: () => {}, ...(backend ? { backend } : {}) });

/** An answer with its JSON body parsed. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  json: any;
  body: string;
}

/**
 * A control API over a real engine on a MemoryStore with a virtual clock, a recording waker
 * and a recording invoker (replaceable). Runs are driven by hand with {@link ApiFixture.drive}.
 */
export class ApiFixture {
  readonly clock = new VirtualClock(Date.UTC(2026, 0, 1));
  readonly store = new MemoryStore(this.clock);
  readonly wakeUps: WakeRequest[] = [];
  readonly invoked: Array<{ functionName: string; event: unknown }> = [];
  readonly errors: unknown[] = [];
  functions = ['fn', 'other'];
  invokerImpl: (functionName: string, event: unknown) => Promise<void> = async () => {};
  readonly engine: Engine;
  readonly api: ReturnType<typeof createControlApi>;

  constructor(options: Partial<ControlApiOptions> & { maxPayloadBytes?: number } = {}) {
    const invoker: Invoker = {
      invoke: async (functionName, event) => {
        this.invoked.push({ functionName, event });
        await this.invokerImpl(functionName, event);
      },
    };
    this.engine = new Engine({
      store: this.store,
      clock: this.clock,
      waker: { wakeAt: async (w) => void this.wakeUps.push(w) },
      invoker,
      ...(options.maxPayloadBytes ? { maxPayloadBytes: options.maxPayloadBytes } : {}),
    });
    const { maxPayloadBytes: _limit, ...apiOptions } = options;
    this.api = createControlApi({
      engine: this.engine,
      functions: () => this.functions,
      onError: (error) => void this.errors.push(error),
      ...apiOptions,
    });
  }

  /**
   * Sends one request; `body` objects are sent as JSON, strings as they are. A POST says
   * `content-type: application/json`, as every client of the API does, unless `headers` name a
   * content type of their own (`content-type: undefined` sends none).
   */
  async call(
    method: string,
    path: string,
    init: { body?: unknown; headers?: ApiRequest['headers']; query?: ApiRequest['query'] } = {},
  ): Promise<Answer> {
    const body = init.body === undefined || typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
    const given = init.headers ?? {};
    const typed = Object.keys(given).some((name) => name.toLowerCase() === 'content-type');
    const jsonType = method.toUpperCase() === 'POST' && !typed ? { 'content-type': 'application/json' } : {};
    const response = await this.api.handle({
      method,
      path,
      query: init.query ?? {},
      headers: { ...jsonType, ...given },
      body: body as string | undefined,
    });
    let json: unknown;
    try {
      json = JSON.parse(response.body);
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, json, body: response.body };
  }

  /** Starts a run through the API and returns its id. */
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
    if (run?.nextWakeAt !== undefined) this.clock.advanceTo(run.nextWakeAt);
    const session = await this.engine.openRun(runId);
    if (!session) throw new Error('nothing to invoke');
    const result = await getDurableEntry(handler).execute(
      session,
      { functionName: run?.functionName ?? 'fn' },
      { inProcessWaitMs: 0, logSink: () => {} },
    );
    await finishOpened(session, result).catch(() => undefined);
  }
}

/** A run waiting on a callback named `approval`; answers its callback id. */
export async function runWaitingOnCallback(
  fixture: ApiFixture,
  options: { heartbeatSeconds?: number } = {},
): Promise<{ runId: string; callbackId: string; handler: DurableLambdaHandler }> {
  const handler = durable(async (_event, ctx) => {
    const [promise] = await ctx.createCallback('approval', {
      ...(options.heartbeatSeconds ? { heartbeatTimeout: { seconds: options.heartbeatSeconds } } : {}),
    });
    try {
      return { received: await promise };
    } catch (error) {
      return { failed: (error as Error).message, code: (error as { code?: string }).code };
    }
  });
  const runId = await fixture.start('fn', { order: 1 });
  await fixture.drive(runId, handler);
  const ops = await fixture.engine.getOperations(runId);
  const callbackId = ops.find((op) => op.Type === 'CALLBACK')?.CallbackDetails?.CallbackId;
  if (!callbackId) throw new Error('no callback');
  return { runId, callbackId, handler };
}

/** Listens on 127.0.0.1 on a random port. */
export async function listen(listener: RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(listener);
  answerClientErrors(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A URL on 127.0.0.1 where nothing listens (a port just freed). */
export async function deadUrl(): Promise<string> {
  const server = await listen((_req, res) => res.end());
  await server.close();
  return server.url;
}

/**
 * A live backend on the system clock for end-to-end tests: the invoker and the waker run the
 * registered handlers in-process, soon after they are asked (like an asynchronous Lambda invoke).
 */
export class LiveBackend {
  readonly store = new MemoryStore();
  readonly engine: Engine;
  readonly handlers = new Map<string, DurableLambdaHandler>();
  private readonly running = new Set<Promise<unknown>>();

  constructor() {
    this.engine = new Engine({
      store: this.store,
      waker: {
        wakeAt: async (w) => {
          if (w.reason === 'lease') return;
          const timer = setTimeout(
            () => this.run(w.functionName, { durableLambda: { action: 'wake', runId: w.runId } }),
            Math.max(0, w.at - Date.now()),
          );
          timer.unref();
        },
      },
      invoker: {
        invoke: async (functionName, event) => {
          setImmediate(() => this.run(functionName, event));
        },
        knows: (name) => this.handlers.has(name),
      },
    });
  }

  /** Registers a handler (written against this backend). */
  register(name: string, handler: DurableHandler<any, any>): void {
    this.handlers.set(name, durable(handler, this.engine));
  }

  private run(functionName: string, event: unknown): void {
    const handler = this.handlers.get(functionName);
    if (!handler) return;
    const done = handler(event, { functionName }).catch(() => undefined);
    this.running.add(done);
    void done.finally(() => this.running.delete(done));
  }

  /** Waits until the run has the status (real time, bounded). */
  async waitForStatus(runId: string, status: string, timeoutMs = 5000): Promise<void> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const run = await this.engine.getRun(runId);
      if (run?.status === status) return;
      if (Date.now() > end) throw new Error(`run ${runId} is ${run?.status}, not ${status}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  /** Waits until a callback op exists; returns its id. */
  async waitForCallback(runId: string, timeoutMs = 5000): Promise<string> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const op = (await this.engine.getOperations(runId)).find((o) => o.Type === 'CALLBACK');
      if (op?.CallbackDetails?.CallbackId && op.Status === 'STARTED') return op.CallbackDetails.CallbackId;
      if (Date.now() > end) throw new Error(`run ${runId} has no callback`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }
}
