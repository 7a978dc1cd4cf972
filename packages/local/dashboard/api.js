/** The control API client of the dashboard (same origin, paths relative to the page). */

/** An error answer of the API (or `network_error` when it could not be reached). */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }
}

/** A random UUID; `crypto.randomUUID` only exists on secure origins (https, localhost). */
function uuid() {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The name the operator panel keeps for "Acting as" (see operator-actions.js). */
function storedActor() {
  try {
    return localStorage.getItem('durable-lambda.actor') ?? '';
  } catch {
    return '';
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const RETRIABLE = new Set(['network_error', 'idempotency_in_progress', 'http_429', 'http_503']);

async function send(method, path, { query, body, key } = {}) {
  const url = new URL(path, document.baseURI);
  for (const [name, value] of Object.entries(query ?? {})) {
    // A list is a repeated parameter (`tag`).
    if (Array.isArray(value)) for (const item of value) url.searchParams.append(name, String(item));
    else if (value !== undefined && value !== '') url.searchParams.set(name, String(value));
  }
  const headers = { accept: 'application/json' };
  if (method === 'POST') {
    headers['content-type'] = 'application/json';
    headers['idempotency-key'] = key;
    // Who acts, as the operator panel records it (cancel and retry are audited operator actions).
    const actor = storedActor();
    if (actor) headers['x-durable-actor'] = actor;
  }
  let response;
  try {
    response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (error) {
    throw new ApiError(0, 'network_error', `cannot reach the API (${error.message})`);
  }
  const text = await response.text();
  let data;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    data = undefined;
  }
  if (!response.ok) {
    const err = data?.error;
    const code =
      err?.code ?? (response.status === 429 || response.status === 503 ? `http_${response.status}` : 'error');
    throw new ApiError(response.status, code, err?.message ?? `HTTP ${response.status} ${response.statusText}`.trim());
  }
  return data;
}

/** GETs once; POSTs with an Idempotency-Key, retried with the same key on transient failures. */
async function request(method, path, options = {}) {
  if (method !== 'POST') return send(method, path, options);
  const key = uuid();
  for (let attempt = 1; ; attempt++) {
    try {
      return await send(method, path, { ...options, key });
    } catch (error) {
      if (attempt >= 3 || !(error instanceof ApiError) || !RETRIABLE.has(error.code)) throw error;
      await sleep(300 * attempt);
    }
  }
}

const seg = encodeURIComponent;

const BATCHES = new Set(['Map', 'Parallel']);

/**
 * A run's history, every page of it (the API pages it by cursor): the journal of the first page,
 * the operations of all, and each batch's items counted across pages when a page left them out.
 */
async function wholeHistory(runId) {
  const pages = [];
  let cursor;
  do {
    const page = await request('GET', `v1/runs/${seg(runId)}/operations`, {
      // The largest pages the API gives: a refresh of a long run takes few requests.
      query: cursor === undefined ? { limit: '1000' } : { limit: '1000', cursor },
    });
    pages.push(page);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  const { nextCursor: _last, ...history } = pages[0];
  history.operations = pages.flatMap((page) => page.operations);
  const counts = new Map();
  const batchIds = new Set(history.operations.filter((op) => BATCHES.has(op.subType)).map((op) => op.id));
  for (const op of history.operations) {
    if (!batchIds.has(op.parentId)) continue;
    const count = counts.get(op.parentId) ?? { total: 0, byStatus: {} };
    const status = op.abandoned ? 'ABANDONED' : op.status;
    count.total += 1;
    count.byStatus[status] = (count.byStatus[status] ?? 0) + 1;
    counts.set(op.parentId, count);
  }
  for (const op of history.operations) {
    if (BATCHES.has(op.subType) && !op.items) op.items = counts.get(op.id) ?? { total: 0, byStatus: {} };
  }
  return history;
}

export const api = {
  /** The functions served; `{ counts: true }`: with their RUNNING and QUEUED runs counted. */
  functions: (options = {}) => request('GET', 'v1/functions', { query: { include: options.counts ? 'counts' : '' } }),
  listRuns: (query) => request('GET', 'v1/runs', { query }),
  getRun: (runId) => request('GET', `v1/runs/${seg(runId)}`),
  /** The exported-run file `durable export` prints. */
  exportRun: (runId) => request('GET', `v1/runs/${seg(runId)}/export`),
  /** The first page of the run's history (the raw view pages on with `cursor`). */
  historyPage: (runId, cursor) =>
    request('GET', `v1/runs/${seg(runId)}/operations`, { query: { limit: '1000', cursor } }),
  operations: (runId) => wholeHistory(runId),
  /** The run's saga rounds and compensations, derived from its operations. */
  compensations: (runId) => request('GET', `v1/runs/${seg(runId)}/compensations`),
  startRun: (body) => request('POST', 'v1/runs', { body }),
  cancelRun: (runId) => request('POST', `v1/runs/${seg(runId)}/cancel`),
  retryRun: (runId) => request('POST', `v1/runs/${seg(runId)}/retry`),
  wakeRun: (runId, operationId) =>
    request('POST', `v1/runs/${seg(runId)}/wake`, { body: operationId === undefined ? {} : { operationId } }),
  succeedCallback: (callbackId, result) =>
    request('POST', `v1/callbacks/${seg(callbackId)}/succeed`, { body: result === undefined ? {} : { result } }),
  failCallback: (callbackId, error) => request('POST', `v1/callbacks/${seg(callbackId)}/fail`, { body: { error } }),
  heartbeatCallback: (callbackId) => request('POST', `v1/callbacks/${seg(callbackId)}/heartbeat`),
  /** Sends signal `name` to a run; `payload` (any JSON value) is the body, none when undefined. */
  sendSignal: (runId, name, payload) =>
    request('POST', `v1/runs/${seg(runId)}/signals/${seg(name)}`, payload === undefined ? {} : { body: payload }),
  getSignals: (runId) => request('GET', `v1/runs/${seg(runId)}/signals`),
};

/** `code: message` of any error. */
export function describeError(error) {
  if (error instanceof ApiError) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
