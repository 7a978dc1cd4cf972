import { DEFAULT_API_URL, DurableClient, type DurableClientOptions, type SignalSentWire } from '@durable-lambda/api';
import type { Operation } from '@durable-lambda/protocol';
import { type CloudCallbacks, controlApiCallbacks, lambdaShapedCallbacks } from './cloud-callbacks';
import { CloudDurableOperation } from './cloud-operation';
import { CloudRunState } from './cloud-run-state';
import { CloudTestResult } from './cloud-test-result';
import type { CloudInvokeRequest } from './cloud-types';
import { operationFromWire, runEnded } from './from-wire';

/** Options of the cloud runner (AWS's `CloudDurableTestRunnerConfig`, plus ours). */
export interface CloudDurableTestRunnerConfig {
  /** How often the run and its history are read from the control API, ms. Default 1000 (AWS's). */
  pollInterval?: number;
  /**
   * Accepted for AWS compatibility and otherwise ignored: a run started through the control API
   * always starts asynchronously, so `waitForData` works whatever this says (AWS's needs `Event`).
   */
  invocationType?: 'RequestResponse' | 'Event' | 'DryRun';
  /** Ours: `run()` rejects when the run has not ended after this long, ms. Default: it waits. */
  timeout?: number;
}

/** Parameters of a {@link CloudDurableTestRunner} (AWS's `CloudDurableTestRunnerParameters`, plus ours). */
export interface CloudDurableTestRunnerParameters {
  /** The durable function to run, by the name the control API serves it under (`GET /v1/functions`). */
  functionName: string;
  /**
   * Ours: where the control API is. Default: the URL in the `DURABLE_API_URL` environment variable
   * (the CLI's), else `http://localhost:3000`. A deployed `DurableApi` sits behind an
   * IAM-authenticated Function URL: pass a `fetch` that signs each request with SigV4 (service
   * `lambda`, the URL's region) with credentials allowed `lambda:InvokeFunctionUrl`. Callbacks are
   * completed through its Lambda-shaped routes, so their results and errors arrive exactly as sent.
   */
  api?: DurableClientOptions;
  /**
   * Ours, instead of `api`: a typed client of the control API. Its URL is not known to the runner,
   * so callbacks go through `/v1/callbacks`, which store JSON: a result that is not JSON text
   * reaches the handler as a JSON string, and a failure keeps only its message.
   */
  client?: DurableClient;
  config?: CloudDurableTestRunnerConfig;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The client and the callback channel: the Lambda-shaped routes whenever the API's URL is known. */
function connect(params: CloudDurableTestRunnerParameters): { client: DurableClient; callbacks: CloudCallbacks } {
  if (params.client) return { client: params.client, callbacks: controlApiCallbacks(params.client) };
  const fromEnv = typeof process === 'undefined' ? undefined : process.env.DURABLE_API_URL;
  const api = params.api ?? { baseUrl: fromEnv || DEFAULT_API_URL };
  const client = new DurableClient(api);
  return { client, callbacks: lambdaShapedCallbacks(api, controlApiCallbacks(client)) };
}

function nonNegative(value: number | undefined, field: string, fallback: number | undefined): number | undefined {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new TypeError(`config.${field}: must be a non-negative number of milliseconds`);
  }
  return value;
}

/**
 * AWS's `CloudDurableTestRunner` for a deployed durable-lambda stack: `run()` starts a run of the
 * function through our control API (`POST /v1/runs`) and polls it (`GET /v1/runs/{runId}` and its
 * operations) until it ends, while a test may `waitForData()` on an operation and complete its
 * callback (`POST /v1/callbacks/...`). The result has AWS's methods and shapes.
 *
 * @example
 * ```ts
 * const runner = new CloudDurableTestRunner({ functionName: 'orders', api: { baseUrl: apiUrl } });
 * const execution = runner.run({ payload: { id: 1 } });
 * const approval = await runner.getOperation('approval').waitForData();
 * await approval.sendCallbackSuccess(JSON.stringify({ ok: true }));
 * expect((await execution).getResult()).toEqual({ approved: true });
 * ```
 */
export class CloudDurableTestRunner<TResult = unknown> {
  private readonly functionName: string;
  private readonly client: DurableClient;
  private readonly callbacks: CloudCallbacks;
  private readonly pollInterval: number;
  private readonly timeout: number | undefined;
  private state: CloudRunState;
  /** The run `run()` started last (set once its start answered). */
  private runId: string | undefined;

  constructor(params: CloudDurableTestRunnerParameters) {
    if (typeof params?.functionName !== 'string' || params.functionName === '') {
      throw new TypeError('functionName: must be a non-empty string');
    }
    this.functionName = params.functionName;
    const connection = connect(params);
    this.client = connection.client;
    this.callbacks = connection.callbacks;
    this.pollInterval = nonNegative(params.config?.pollInterval, 'pollInterval', 1000) as number;
    this.timeout = nonNegative(params.config?.timeout, 'timeout', undefined);
    this.state = new CloudRunState(this.callbacks);
  }

  /**
   * Starts a run with `payload` (`{}` when left out, as Lambda hands an empty invoke) and polls it
   * until it ends; resolves with its result, whatever its status. Rejects when the control API
   * refuses the start or stays unreachable, or after `config.timeout`.
   */
  async run(params?: CloudInvokeRequest): Promise<CloudTestResult<TResult>> {
    const state = this.state;
    // A fresh run: handles must not find the previous run's operations.
    state.clear();
    const startedAt = Date.now();
    try {
      this.runId = undefined;
      const { run } = await this.client.startRun({ function: this.functionName, input: params?.payload ?? {} });
      this.runId = run.runId;
      for (;;) {
        await sleep(this.pollInterval);
        // The run first: once it has ended, the history read after it is complete.
        const current = await this.client.getRun(run.runId);
        // Every page, with the payloads a page leaves out: a run of any size is seen whole.
        const history = await this.client.history(run.runId, { payloads: true });
        const operations: Operation[] = history.operations.map((op) => operationFromWire(op, current.input));
        state.update(current, operations, history.invocations);
        if (runEnded(current.status)) {
          return new CloudTestResult<TResult>(state, current, operations, history.invocations ?? []);
        }
        if (this.timeout !== undefined && Date.now() - startedAt > this.timeout) {
          throw new Error(
            `run ${run.runId} of ${this.functionName} has not ended after ${this.timeout} ms (status ${current.status})`,
          );
        }
      }
    } finally {
      state.end();
    }
  }

  /**
   * Ours: sends signal `name` (with `payload`, any JSON value) to the run `run()` started, through
   * `POST /v1/runs/{id}/signals/{name}`, as the local runner's `sendSignal` does; with
   * `idempotencyKey`, a repeated send is stored once. Call it once the run started (e.g. after an
   * operation's `waitForData()`).
   */
  async sendSignal(
    name: string,
    payload?: unknown,
    options: { idempotencyKey?: string } = {},
  ): Promise<SignalSentWire> {
    if (this.runId === undefined) throw new Error('sendSignal: no run started yet: call run() first');
    const key = options.idempotencyKey;
    return this.client.sendSignal(this.runId, name, payload, key === undefined ? {} : { idempotencyKey: key });
  }

  /** The first operation named `name` (of the current or next run). */
  getOperation<T = unknown>(name: string): CloudDurableOperation<T> {
    return this.getOperationByNameAndIndex<T>(name, 0);
  }

  /** The operation at `index` in creation order (the execution itself not counted). */
  getOperationByIndex<T = unknown>(index: number): CloudDurableOperation<T> {
    return new CloudDurableOperation<T>(this.state, (state) => state.visible().at(index), `index ${index}`);
  }

  /** The `index`-th operation named `name`, in creation order. */
  getOperationByNameAndIndex<T = unknown>(name: string, index: number): CloudDurableOperation<T> {
    return new CloudDurableOperation<T>(
      this.state,
      (state) =>
        state
          .visible()
          .filter((view) => view.operation.Name === name)
          .at(index),
      `${JSON.stringify(name)} #${index}`,
    );
  }

  /** The operation with id `id`. */
  getOperationById<T = unknown>(id: string): CloudDurableOperation<T> {
    return new CloudDurableOperation<T>(this.state, (state) => state.byId(id), `id ${id}`);
  }

  /** Forgets the operations seen so far; handles taken before keep the old run's view. */
  reset(): void {
    this.state = new CloudRunState(this.callbacks);
  }
}
