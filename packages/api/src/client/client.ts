import type { RunCompensationsWire } from '../saga-wire';
import type { OperatorAnswerWire, RunActionsWire } from '../server/operator-routes';
import type { RunSignalsWire, SignalSentWire } from '../signal-wire';
import type {
  CallbackAckWire,
  FunctionListWire,
  OperationListWire,
  OperationPayloadField,
  OperationWire,
  PayloadSliceWire,
  RunListWire,
  RunPayloadField,
  RunStatusWire,
  RunWire,
  WakeAnswerWire,
} from '../wire';
import { ClientTransport, type DurableClientOptions } from './client-transport';
import { mergeHistoryPages } from './history-page-merge';

export { DurableApiError, DurableConnectionError } from './client-errors';
export type { DurableClientOptions } from './client-transport';

/** Per-call options of the POST methods. */
export interface PostOptions {
  /** The `Idempotency-Key` to send. Default: a fresh `crypto.randomUUID()` per call. */
  idempotencyKey?: string;
  /**
   * Who acts, sent as `x-durable-actor` and recorded with an operator action (retry, skip,
   * cancel). Behind an IAM-auth Function URL the signing principal is recorded instead.
   */
  actor?: string;
}

/** A filter and page of {@link DurableClient.listRuns}. */
export interface ListRunsQuery {
  function?: string;
  status?: RunStatusWire;
  limit?: number;
  cursor?: string;
  createdAfter?: Date | string;
  createdBefore?: Date | string;
  /** A run id or run key (or part of one, on a store that can search): one page, no cursor. */
  search?: string;
  /**
   * Text in a run's input, result or error (case-insensitive; not with `search`): the API reads
   * up to 1,000 of the newest runs within the other filters per page; follow `nextCursor` for more.
   */
  contains?: string;
  /** Also what each RUNNING run waits for (`waitingFor`). */
  includeWaitingFor?: boolean;
  /**
   * Runs of this concurrency key. With `function` and `status: 'QUEUED'`: the key's queue, in
   * queue order (position 1 first; one page, no cursor); otherwise found among the newest runs
   * within the other filters, up to 1,000 read per page (follow `nextCursor`).
   */
  concurrencyKey?: string;
  /** Runs carrying every one of these tags (`ctx.tag`, or given at start), each with exactly this value. */
  tags?: Record<string, string>;
  /** Runs whose error has exactly this code. */
  errorCode?: string;
}

/** What {@link DurableClient.startRun} returns. */
export interface StartRunResult {
  run: RunWire;
  /** True when this call created the run (`201`), false when a run key found it (`200`). */
  created: boolean;
  /** True when the answer was replayed for a repeated `Idempotency-Key`. */
  replayed: boolean;
}

/** The API the `durable` CLI and the cloud test runner talk to when no URL is given (the dev server's). */
export const DEFAULT_API_URL = 'http://localhost:3000';

/**
 * A typed client of the control API. Every POST carries an `Idempotency-Key`; a `429`, a
 * `503`, a `409 idempotency_in_progress` or a network error is retried with the same key and
 * exponential backoff; other errors throw {@link DurableApiError}, and an API that stays
 * unreachable throws {@link DurableConnectionError}.
 */
export class DurableClient {
  /** Sends each request, retrying what may be retried (`client-transport.ts`). */
  private readonly http: ClientTransport;

  constructor(options: DurableClientOptions) {
    this.http = new ClientTransport(options);
  }

  /**
   * `GET /v1/functions`: the durable functions the API serves, each with its recorded limits;
   * `includeCounts`: with its RUNNING and QUEUED runs counted too (a bounded read of its runs).
   */
  async listFunctions(options: { includeCounts?: boolean } = {}): Promise<FunctionListWire> {
    const path = options.includeCounts ? '/v1/functions?include=counts' : '/v1/functions';
    return (await this.http.request('GET', path)).value as FunctionListWire;
  }

  /**
   * `POST /v1/runs`: starts a run (or, with a known `runKey`, finds it). `latest: true` opts the
   * run out of version pinning: it runs on `$LATEST` throughout (recorded as `name:$LATEST`).
   * `tags`: search tags the run starts with (as `ctx.tag` sets them).
   */
  async startRun(
    request: { function: string; input?: unknown; runKey?: string; latest?: boolean; tags?: Record<string, string> },
    options: PostOptions = {},
  ): Promise<StartRunResult> {
    const answer = await this.http.request('POST', '/v1/runs', { body: request, ...options });
    return {
      run: answer.value as RunWire,
      created: answer.status === 201,
      replayed: answer.headers.get('idempotent-replayed') === 'true',
    };
  }

  /** `GET /v1/runs/{runId}`. */
  async getRun(runId: string): Promise<RunWire> {
    return (await this.http.request('GET', `/v1/runs/${encodeURIComponent(runId)}`)).value as RunWire;
  }

  /** `GET /v1/runs`: runs newest first; pass `nextCursor` back as `cursor` for the next page. */
  async listRuns(query: ListRunsQuery = {}): Promise<RunListWire> {
    const params = new URLSearchParams();
    const time = (value: Date | string) => (value instanceof Date ? value.toISOString() : value);
    if (query.function !== undefined) params.set('function', query.function);
    if (query.status !== undefined) params.set('status', query.status);
    if (query.limit !== undefined) params.set('limit', String(query.limit));
    if (query.cursor !== undefined) params.set('cursor', query.cursor);
    if (query.createdAfter !== undefined) params.set('createdAfter', time(query.createdAfter));
    if (query.createdBefore !== undefined) params.set('createdBefore', time(query.createdBefore));
    if (query.search !== undefined) params.set('search', query.search);
    if (query.contains !== undefined) params.set('contains', query.contains);
    if (query.concurrencyKey !== undefined) params.set('concurrencyKey', query.concurrencyKey);
    if (query.includeWaitingFor) params.set('include', 'waitingFor');
    for (const [key, value] of Object.entries(query.tags ?? {})) params.append('tag', `${key}:${value}`);
    if (query.errorCode !== undefined) params.set('errorCode', query.errorCode);
    const search = params.toString();
    return (await this.http.request('GET', `/v1/runs${search ? `?${search}` : ''}`)).value as RunListWire;
  }

  /**
   * `GET /v1/runs/{runId}/operations`: one page of the run's history (pass `nextCursor` back as
   * `cursor`); {@link DurableClient.history} reads every page, {@link DurableClient.operations}
   * iterates them.
   */
  async getOperations(runId: string, page: { cursor?: string; limit?: number } = {}): Promise<OperationListWire> {
    const params = new URLSearchParams();
    if (page.limit !== undefined) params.set('limit', String(page.limit));
    if (page.cursor !== undefined) params.set('cursor', page.cursor);
    const search = params.toString();
    const path = `/v1/runs/${encodeURIComponent(runId)}/operations${search ? `?${search}` : ''}`;
    return (await this.http.request('GET', path)).value as OperationListWire;
  }

  /** Every page of the run's history, first to last (`limit`: operations per page). */
  async *historyPages(runId: string, options: { limit?: number } = {}): AsyncGenerator<OperationListWire> {
    let cursor: string | undefined;
    do {
      const page = await this.getOperations(runId, { ...options, ...(cursor === undefined ? {} : { cursor }) });
      yield page;
      cursor = page.nextCursor;
    } while (cursor !== undefined);
  }

  /** Every operation of the run, in history order, page after page (payloads as the pages give them). */
  async *operations(runId: string, options: { limit?: number } = {}): AsyncGenerator<OperationWire> {
    for await (const page of this.historyPages(runId, options)) yield* page.operations;
  }

  /**
   * The run's whole history as one answer: every page joined, batches' `items` counted across
   * them; with `payloads`, each payload a page left out (see `omitted`) read on its own too.
   */
  async history(runId: string, options: { limit?: number; payloads?: boolean } = {}): Promise<OperationListWire> {
    const pages: OperationListWire[] = [];
    for await (const page of this.historyPages(runId, { ...(options.limit ? { limit: options.limit } : {}) })) {
      pages.push(page);
    }
    const history = mergeHistoryPages(pages);
    if (!options.payloads) return history;
    const operations: OperationWire[] = [];
    for (const op of history.operations) {
      if (!op.omitted) {
        operations.push(op);
        continue;
      }
      const full: OperationWire = { ...op };
      for (const field of Object.keys(op.omitted) as OperationPayloadField[]) {
        (full as unknown as Record<string, unknown>)[field] = await this.getPayload(runId, field, op.id);
      }
      delete full.omitted;
      operations.push(full);
    }
    return { ...history, operations };
  }

  /** `GET /v1/runs/{runId}/operations/{operationId}`: one operation, its payloads in (up to 4 MB). */
  async getOperation(runId: string, operationId: string): Promise<OperationWire> {
    const path = `/v1/runs/${encodeURIComponent(runId)}/operations/${encodeURIComponent(operationId)}`;
    return (await this.http.request('GET', path)).value as OperationWire;
  }

  /**
   * A payload an answer left out (`omitted`), read whole from its slices: a run's (`input`,
   * `result`, `error`), or with `operationId` an operation's (`result`, `error`,
   * `failedAttempts`, `logs`).
   */
  async getPayload(
    runId: string,
    field: RunPayloadField | OperationPayloadField,
    operationId?: string,
  ): Promise<unknown> {
    const base =
      operationId === undefined
        ? `/v1/runs/${encodeURIComponent(runId)}`
        : `/v1/runs/${encodeURIComponent(runId)}/operations/${encodeURIComponent(operationId)}`;
    let text = '';
    let offset: number | undefined = 0;
    while (offset !== undefined) {
      const path = `${base}/payloads/${encodeURIComponent(field)}${offset > 0 ? `?offset=${offset}` : ''}`;
      const slice = (await this.http.request('GET', path)).value as PayloadSliceWire;
      text += slice.text;
      offset = slice.nextOffset;
    }
    return JSON.parse(text) as unknown;
  }

  /** `POST /v1/runs/{runId}/cancel`; with `tree`, its child runs (and theirs) too. */
  async cancelRun(runId: string, options: PostOptions & { tree?: boolean } = {}): Promise<OperatorAnswerWire> {
    const { tree, ...post } = options;
    const body = tree === undefined ? undefined : { tree };
    return (
      await this.http.request('POST', `/v1/runs/${encodeURIComponent(runId)}/cancel`, {
        ...(body === undefined ? {} : { body }),
        ...post,
      })
    ).value as OperatorAnswerWire;
  }

  /** `POST /v1/runs/{runId}/retry`; with `fromOperation`, from that operation on. */
  async retryRun(runId: string, options: PostOptions & { fromOperation?: string } = {}): Promise<OperatorAnswerWire> {
    const { fromOperation, ...post } = options;
    const body = fromOperation === undefined ? undefined : { fromOperation };
    return (
      await this.http.request('POST', `/v1/runs/${encodeURIComponent(runId)}/retry`, {
        ...(body === undefined ? {} : { body }),
        ...post,
      })
    ).value as OperatorAnswerWire;
  }

  /** `POST /v1/runs/{runId}/operations/{operationId}/skip`: `result` is any JSON value (or left out). */
  async skipStep(
    runId: string,
    operationId: string,
    result?: unknown,
    options: PostOptions = {},
  ): Promise<OperatorAnswerWire> {
    const path = `/v1/runs/${encodeURIComponent(runId)}/operations/${encodeURIComponent(operationId)}/skip`;
    return (await this.http.request('POST', path, { body: result === undefined ? {} : { result }, ...options }))
      .value as OperatorAnswerWire;
  }

  /** `GET /v1/runs/{runId}/actions`: the operator actions recorded in the run's history. */
  async getActions(runId: string): Promise<RunActionsWire> {
    return (await this.http.request('GET', `/v1/runs/${encodeURIComponent(runId)}/actions`)).value as RunActionsWire;
  }

  /**
   * `GET /v1/runs/{runId}/compensations`: the run's saga rounds, each compensation's status and
   * attempts, and what its error says was undone (derived from its operations).
   */
  async getCompensations(runId: string): Promise<RunCompensationsWire> {
    return (await this.http.request('GET', `/v1/runs/${encodeURIComponent(runId)}/compensations`))
      .value as RunCompensationsWire;
  }

  /**
   * `POST /v1/runs/{runId}/wake`: "wake now", ending the run's pending waits and retry backoffs
   * (or only `operationId`'s) and waking it. `409 nothing_to_wake` when nothing waits on time.
   */
  async wakeRun(runId: string, options: PostOptions & { operationId?: string } = {}): Promise<WakeAnswerWire> {
    const { operationId, ...post } = options;
    const body = operationId === undefined ? {} : { operationId };
    return (await this.http.request('POST', `/v1/runs/${encodeURIComponent(runId)}/wake`, { body, ...post }))
      .value as WakeAnswerWire;
  }

  /** `POST /v1/callbacks/{callbackId}/succeed`: `result` is any JSON value (or left out). */
  async succeedCallback(callbackId: string, result?: unknown, options: PostOptions = {}): Promise<CallbackAckWire> {
    const body = result === undefined ? {} : { result };
    return (
      await this.http.request('POST', `/v1/callbacks/${encodeURIComponent(callbackId)}/succeed`, { body, ...options })
    ).value as CallbackAckWire;
  }

  /** `POST /v1/callbacks/{callbackId}/fail`: the waiter sees `type` and `data` as its error's ErrorType and ErrorData. */
  async failCallback(
    callbackId: string,
    error: { message: string; code?: string; type?: string; data?: string },
    options: PostOptions = {},
  ): Promise<CallbackAckWire> {
    const body = {
      error: {
        message: error.message,
        ...(error.code === undefined ? {} : { code: error.code }),
        ...(error.type === undefined ? {} : { type: error.type }),
        ...(error.data === undefined ? {} : { data: error.data }),
      },
    };
    return (
      await this.http.request('POST', `/v1/callbacks/${encodeURIComponent(callbackId)}/fail`, { body, ...options })
    ).value as CallbackAckWire;
  }

  /** `POST /v1/callbacks/{callbackId}/heartbeat`. */
  async heartbeatCallback(callbackId: string, options: PostOptions = {}): Promise<CallbackAckWire> {
    return (await this.http.request('POST', `/v1/callbacks/${encodeURIComponent(callbackId)}/heartbeat`, options))
      .value as CallbackAckWire;
  }

  /**
   * `POST /v1/runs/{runId}/signals/{name}`: sends signal `name` with `payload` (any JSON value;
   * none when undefined) to a run; a `ctx.waitForSignal(name)` takes it, now or when it comes to
   * wait. Retried with the same `Idempotency-Key`, it is stored once (`created` false on a repeat).
   */
  async sendSignal(runId: string, name: string, payload?: unknown, options: PostOptions = {}): Promise<SignalSentWire> {
    const path = `/v1/runs/${encodeURIComponent(runId)}/signals/${encodeURIComponent(name)}`;
    return (await this.http.request('POST', path, { ...(payload === undefined ? {} : { body: payload }), ...options }))
      .value as SignalSentWire;
  }

  /** `GET /v1/runs/{runId}/signals`: the run's signals (delivered or pending), oldest first, and its open waits. */
  async getSignals(runId: string): Promise<RunSignalsWire> {
    return (await this.http.request('GET', `/v1/runs/${encodeURIComponent(runId)}/signals`)).value as RunSignalsWire;
  }
}
