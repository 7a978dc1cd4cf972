import { type Agent, request as httpRequest, validateHeaderName, validateHeaderValue } from 'node:http';
import { type LambdaHttpEvent, toLambdaHandler, toNodeListener } from '@durable-lambda/api';
import { encodeRunCursor } from '@durable-lambda/engine';
import type { BodySpec, FuzzRequest, Segment } from './fuzz-requests';
import { ApiFixture, durable, runWaitingOnCallback } from './support';

/** The body limit of the fuzzed API: small enough that bodies over it are cheap, large enough for JSON nested past any stack. */
export const MAX_BODY_BYTES = 64 * 1024;
/** The engine's payload limit: under the body limit, so the engine's own check is reached too. */
export const MAX_PAYLOAD_BYTES = 2 * 1024;

/** One answer as the fuzz sees it, whatever the transport. */
export interface FuzzAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

const failing = durable(async (_e, ctx) => {
  await ctx.step(
    'boom',
    async () => {
      throw new Error('gateway down');
    },
    { retry: { maxAttempts: 1 } },
  );
});

/**
 * A fresh API over a real engine and MemoryStore, with runs in every state the routes care
 * about (waiting on a callback, failed, succeeded, never invoked) and their ids, so generated
 * requests can name real runs and callbacks as well as unknown ones.
 */
export class FuzzWorld {
  readonly fixture = new ApiFixture({ maxBodyBytes: MAX_BODY_BYTES, maxPayloadBytes: MAX_PAYLOAD_BYTES });
  readonly runIds: string[] = [];
  readonly callbackIds: string[] = [];
  readonly listener = toNodeListener(this.fixture.api);
  private readonly lambda = toLambdaHandler(this.fixture.api);

  static async create(): Promise<FuzzWorld> {
    const world = new FuzzWorld();
    const f = world.fixture;
    const waiting = await runWaitingOnCallback(f);
    const beating = await runWaitingOnCallback(f, { heartbeatSeconds: 60 });
    const failed = await f.start('fn', { order: 2 }, { runKey: 'k1' });
    await f.drive(failed, failing);
    const succeeded = await f.start('other', 'plain');
    await f.drive(
      succeeded,
      durable(async () => ({ ok: true })),
    );
    const fresh = await f.start('fn');
    world.runIds.push(waiting.runId, beating.runId, failed, succeeded, fresh);
    world.callbackIds.push(waiting.callbackId, beating.callbackId);
    return world;
  }

  /**
   * Everything a request could change about runs, as the API shows it: records, operations as
   * of now, and the outside calls made. A request that finds a callback's deadline passed writes
   * the timeout down before it is refused (`409 callback_already_completed`): that records what
   * already was (the operation reads the same as of now) and only moves the run's `updatedAt`,
   * so `updatedAt` is left out.
   */
  async digest(): Promise<string> {
    const store = this.fixture.store;
    const runs = [];
    for (const id of store.runIds().sort()) {
      const { updatedAt: _bookkeeping, ...run } = store.peekRun(id) ?? { updatedAt: 0 };
      runs.push([run, await this.fixture.engine.getOperations(id)]);
    }
    return JSON.stringify([runs, this.fixture.wakeUps.length, this.fixture.invoked.length]);
  }

  /** The run ids currently stored (valid starts add some). */
  storedRunIds(): string[] {
    return this.fixture.store.runIds();
  }

  /** Renders a path segment as the client would send it (`raw` segments exactly as generated). */
  segment(segment: Segment): string {
    if ('lit' in segment) return encodeURIComponent(segment.lit);
    if ('raw' in segment) return segment.raw;
    if ('run' in segment) {
      const ids = this.storedRunIds();
      return encodeURIComponent(ids[segment.run % ids.length] ?? 'rnone');
    }
    const id = this.callbackIds[segment.callback % this.callbackIds.length] as string;
    return encodeURIComponent(mangleCallbackId(id, segment.mangle));
  }

  /** The request's path, as sent. */
  path(request: FuzzRequest): string {
    return `/${request.path.map((s) => this.segment(s)).join('/')}`;
  }

  /** The query pairs, with `{cursor}` references resolved to a real cursor. */
  query(request: FuzzRequest): Array<[string, string]> {
    return request.query.map(([name, value]) => {
      if (value !== '{cursor}') return [name, value];
      const run = this.fixture.store.peekRun(this.runIds[0] as string);
      return [name, run ? encodeRunCursor(run) : ''];
    });
  }

  /** The request body text. */
  body(spec: BodySpec | undefined): string | undefined {
    return renderBody(spec);
  }

  /** Sends the request through its transport and returns the answer. */
  async send(request: FuzzRequest, server: { port: number; agent: Agent }): Promise<FuzzAnswer> {
    const path = this.path(request);
    const pairs = this.query(request);
    const body = this.body(request.body);
    if (request.transport === 'handle') {
      const query: Record<string, string | string[]> = {};
      for (const [name, value] of pairs) {
        const seen = Object.hasOwn(query, name) ? query[name] : undefined;
        const next = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
        Object.defineProperty(query, name, { value: next, enumerable: true, writable: true, configurable: true });
      }
      const headers: Record<string, string | string[]> = {};
      for (const [name, value] of request.headers) {
        Object.defineProperty(headers, name, { value, enumerable: true, writable: true, configurable: true });
      }
      const answer = await this.fixture.api.handle({ method: request.method, path, query, headers, body });
      return { status: answer.status, headers: answer.headers, body: answer.body };
    }
    const rawQuery = new URLSearchParams(pairs).toString() + (request.rawQuery ?? '');
    if (request.transport === 'lambda') {
      const headers: Record<string, string> = {};
      for (const [name, value] of request.headers) headers[name] = Array.isArray(value) ? value.join(',') : value;
      const base64 = request.base64 === true && body !== undefined;
      const event: LambdaHttpEvent = {
        version: '2.0',
        rawPath: path,
        rawQueryString: rawQuery,
        headers,
        ...(body === undefined ? {} : { body: base64 ? Buffer.from(body, 'utf8').toString('base64') : body }),
        isBase64Encoded: base64,
        requestContext: { http: { method: request.method, path } },
      };
      const answer = await this.lambda(event);
      return { status: answer.statusCode, headers: answer.headers, body: answer.body };
    }
    return sendOverHttp(server, request, `${wireSafe(path)}${rawQuery === '' ? '' : `?${wireSafe(rawQuery)}`}`, body);
  }
}

/** Percent-encodes the characters an HTTP/1.1 request target may not carry raw. */
function wireSafe(text: string): string {
  return text.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c));
}

/** A callback id made wrong in one way (or kept). */
export function mangleCallbackId(id: string, how: string): string {
  const [where = '', secret = ''] = id.split('.');
  switch (how) {
    case 'truncate':
      return id.slice(0, -1);
    case 'secret':
      return `${where}.${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    case 'otherOp': {
      const [runId] = Buffer.from(where, 'base64url').toString('utf8').split(':');
      return `${Buffer.from(`${runId}:9`, 'utf8').toString('base64url')}.${secret}`;
    }
    case 'unknownRun':
      return `${Buffer.from('rnope:1', 'utf8').toString('base64url')}.${secret}`;
    case 'upper':
      return id.toUpperCase();
    default:
      return id;
  }
}

/** The body text of a spec. */
export function renderBody(spec: BodySpec | undefined): string | undefined {
  if (spec === undefined) return undefined;
  if ('json' in spec) return JSON.stringify(spec.json);
  if ('text' in spec) return spec.text;
  if ('huge' in spec) {
    const unit = Buffer.byteLength(spec.char, 'utf8');
    return `{"${spec.field}":"${spec.char.repeat(Math.ceil((MAX_BODY_BYTES + spec.huge) / unit))}"}`;
  }
  if ('deep' in spec) {
    const nested = `${'['.repeat(spec.deep)}${']'.repeat(spec.deep)}`;
    return spec.field === 'input' ? `{"function":"fn","input":${nested}}` : `{"${spec.field}":${nested}}`;
  }
  const padding = 'p'.repeat(MAX_PAYLOAD_BYTES + spec.payload);
  return spec.field === 'error'
    ? JSON.stringify({ error: { message: padding } })
    : JSON.stringify({ function: 'fn', [spec.field]: padding });
}

/** Header names an HTTP client sets itself (or that would break the connection if faked). */
const TRANSPORT_HEADERS = new Set(['content-length', 'transfer-encoding', 'host', 'connection', 'expect', 'upgrade']);

function sendable(name: string, value: string | string[]): boolean {
  if (TRANSPORT_HEADERS.has(name.toLowerCase())) return false;
  try {
    validateHeaderName(name);
    for (const v of Array.isArray(value) ? value : [value]) validateHeaderValue(name, v);
    return true;
  } catch {
    return false;
  }
}

function sendOverHttp(
  server: { port: number; agent: Agent },
  request: FuzzRequest,
  target: string,
  body: string | undefined,
): Promise<FuzzAnswer> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of request.headers) if (sendable(name, value)) headers[name] = value;
  // Node's client sends chunked bodies only for POST, PUT and PATCH; other methods must declare a length.
  const chunked = !request.declareLength && ['POST', 'PUT', 'PATCH'].includes(request.method);
  if (body !== undefined && !chunked) headers['content-length'] = String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: server.port, method: request.method, path: target, headers, agent: server.agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    // The server may answer 413 and close before it has read the whole body: that is its right.
    req.on('error', reject);
    req.end(body);
  });
}
