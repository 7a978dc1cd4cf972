/**
 * A world for the DynamoDB fuzz: the control API over an engine on a fresh DynamoDB Local table,
 * with runs in every state the routes care about (waiting on a callback, heartbeating, failed,
 * succeeded, never invoked, with history and payloads, held by a Lambda-shaped invocation whose
 * checkpoint token the fuzz may use), and the ids, ARNs and tokens the requests refer to.
 */
import { type Agent, request as httpRequest, validateHeaderName, validateHeaderValue } from 'node:http';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  decodeCheckpointToken,
  encodeCheckpointToken,
  executionArn,
  type LambdaHttpEvent,
  openAwsInvocation,
  toLambdaHandler,
  toNodeListener,
} from '@durable-lambda/api';
import { type DurableContext, withDurableExecution } from '@durable-lambda/sdk';
import { DynamoDbApiWorld } from './dynamodb-api-world';
import type {
  ArnMangle,
  CallbackMangle,
  DynamoFuzzRequest,
  Segment,
  TokenMangle,
  TokenRef,
} from './fuzz-dynamodb-requests';

/** One answer, whatever the transport. */
export interface DynamoFuzzAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

const quiet = { logSink: () => {} };

export class DynamoFuzzWorld {
  readonly runIds: string[] = [];
  readonly callbackIds: string[] = [];
  readonly tokens: string[] = [];
  private readonly functions = new Map<string, string>();
  readonly listener: ReturnType<typeof toNodeListener>;
  private readonly lambda: ReturnType<typeof toLambdaHandler>;

  private constructor(readonly world: DynamoDbApiWorld) {
    this.listener = toNodeListener(world.api);
    this.lambda = toLambdaHandler(world.api);
  }

  static async create(client: DynamoDBDocumentClient): Promise<DynamoFuzzWorld> {
    const w = await DynamoDbApiWorld.create(client, { maxBodyBytes: 64 * 1024 });
    const self = new DynamoFuzzWorld(w);
    const waitOn = (heartbeatSeconds?: number) =>
      withDurableExecution(async (_e, ctx: DurableContext) => {
        const [approved] = await ctx.createCallback('approval', {
          ...(heartbeatSeconds === undefined ? {} : { heartbeatTimeout: { seconds: heartbeatSeconds } }),
        });
        return { approved: await approved };
      }, quiet);
    const waiting = await w.start('fn', { order: 1 });
    await w.drive(waiting, waitOn());
    const beating = await w.start('fn', { order: 2 });
    await w.drive(beating, waitOn(60));
    const failed = await w.start('fn', { order: 3 }, { runKey: 'k1' });
    await w.drive(
      failed,
      withDurableExecution(async (_e, ctx: DurableContext) => {
        await ctx.step('one', async () => 1);
        await ctx.step(
          'boom',
          async () => {
            throw new Error('gateway down');
          },
          { retry: { maxAttempts: 1 } },
        );
      }, quiet),
    );
    const succeeded = await w.start('other', 'plain');
    await w.drive(
      succeeded,
      withDurableExecution(async () => ({ ok: true, pad: 'p'.repeat(1_500) }), quiet),
    );
    const fresh = await w.start('fn');
    const nested = await w.start('fn', { order: 4, pad: 'q'.repeat(1_500) });
    await w.drive(
      nested,
      withDurableExecution(async (_e, ctx: DurableContext) => {
        await ctx.step('first', async () => 'é😀'.repeat(300));
        await ctx.runInChildContext('block', (child) => child.step('inner', async () => 2));
        await ctx.wait('later', { hours: 1 });
      }, quiet),
    );
    const held = await w.start('fn', { order: 5 });
    const input = await openAwsInvocation(w.engine, held);
    if (!input) throw new Error('the held run could not be opened');
    self.tokens.push(input.CheckpointToken);
    for (const id of [waiting, beating, failed, succeeded, fresh, nested, held])
      self.remember(id, id === succeeded ? 'other' : 'fn');
    for (const id of [waiting, beating]) {
      const op = (await w.engine.getOperations(id)).find((o) => o.Type === 'CALLBACK');
      if (op?.CallbackDetails?.CallbackId) self.callbackIds.push(op.CallbackDetails.CallbackId);
    }
    return self;
  }

  /** What the API reported as unexpected since the world began. */
  get errors(): unknown[] {
    return this.world.errors;
  }

  private remember(runId: string, functionName: string): void {
    if (this.functions.has(runId)) return;
    this.functions.set(runId, functionName);
    this.runIds.push(runId);
  }

  /** Learns run ids, ARNs and checkpoint tokens an answer hands out, so later requests may use them. */
  learn(answer: DynamoFuzzAnswer): void {
    const arn = answer.headers['x-amz-durable-execution-arn'];
    if (typeof arn === 'string') this.remember(runIdOfArn(arn), 'fn');
    if (answer.status >= 300) return;
    try {
      const json = JSON.parse(answer.body) as { runId?: unknown; function?: unknown; CheckpointToken?: unknown };
      if (typeof json.runId === 'string')
        this.remember(json.runId, typeof json.function === 'string' ? json.function : 'fn');
      if (typeof json.CheckpointToken === 'string' && this.tokens.length < 20) this.tokens.push(json.CheckpointToken);
    } catch {
      // not JSON (a 204): nothing to learn
    }
  }

  private runId(n: number): string {
    return this.runIds[n % this.runIds.length] as string;
  }

  /** A path segment as sent (percent-encoded unless raw). */
  segment(segment: Segment): string {
    if ('lit' in segment) return encodeText(segment.lit);
    if ('raw' in segment) return segment.raw;
    if ('run' in segment) return encodeURIComponent(this.runId(segment.run));
    if ('arn' in segment) return encodeURIComponent(this.arn(segment.arn, segment.mangle));
    if ('tokenArn' in segment) {
      const { runId } = decodeCheckpointToken(this.tokens[segment.tokenArn % this.tokens.length]);
      return encodeURIComponent(this.arn(this.runIds.indexOf(runId), segment.mangle));
    }
    const id = this.callbackIds[segment.callback % this.callbackIds.length] as string;
    return encodeURIComponent(mangleCallback(id, segment.mangle));
  }

  private arn(n: number, how: ArnMangle): string {
    const runId = this.runId(n);
    const arn = executionArn(this.functions.get(runId) ?? 'fn', runId);
    switch (how) {
      case 'bare':
        return runId;
      case 'longRun':
        return executionArn('fn', 'r'.repeat(1_200));
      case 'unicodeRun':
        return executionArn('fn', '😀'.repeat(300));
      case 'twoSegments':
        return `${arn}/20dae574-53da-37a1-bfd5-b0e2e6ec715d`;
      case 'empty':
        return arn.slice(0, arn.lastIndexOf('/') + 1);
      default:
        return arn;
    }
  }

  /** A checkpoint token of the world, made wrong as asked. */
  token(ref: TokenRef): string {
    const token = this.tokens[ref.token % this.tokens.length] as string;
    const claims = decodeCheckpointToken(token);
    const how: TokenMangle = ref.mangle;
    switch (how) {
      case 'nextSeq':
        return encodeCheckpointToken({ ...claims, seq: claims.seq + 1 });
      case 'otherRun':
        return encodeCheckpointToken({ ...claims, runId: this.runId(ref.token + 1) });
      case 'hugeFence':
        return `dlc1.${Buffer.from(JSON.stringify([claims.runId, 1e300, claims.leaseToken, 0])).toString('base64url')}`;
      case 'longRun':
        return encodeCheckpointToken({ ...claims, runId: 'é'.repeat(1_500) });
      case 'longLease':
        return encodeCheckpointToken({ ...claims, leaseToken: '😀'.repeat(2_000) });
      case 'garbage':
        return `dlc1.${Buffer.from('{"a":').toString('base64url')}`;
      default:
        return token;
    }
  }

  /** A generated value with its token references replaced by tokens. */
  private resolve(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((v) => this.resolve(v));
    if (value === null || typeof value !== 'object') return value;
    const keys = Object.keys(value);
    if (keys.length === 2 && 'token' in value && 'mangle' in value) return this.token(value as TokenRef);
    const out: Record<string, unknown> = {};
    for (const key of keys) {
      Object.defineProperty(out, key, {
        value: this.resolve((value as Record<string, unknown>)[key]),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }

  path(request: DynamoFuzzRequest): string {
    return `/${request.path.map((s) => this.segment(s)).join('/')}`;
  }

  query(request: DynamoFuzzRequest): Array<[string, string]> {
    return request.query.map(([name, value]) => [name, typeof value === 'string' ? value : this.token(value)]);
  }

  body(request: DynamoFuzzRequest): string | undefined {
    if (!request.body) return undefined;
    if ('text' in request.body) return request.body.text;
    // `JSON.stringify` of a value with a lone surrogate or a deep array is still text: sent as it is.
    return JSON.stringify(this.resolve(request.body.json)) ?? 'null';
  }

  /** Sends the request through its transport. */
  async send(request: DynamoFuzzRequest, server: { port: number; agent: Agent }): Promise<DynamoFuzzAnswer> {
    const path = this.path(request);
    const pairs = this.query(request);
    const body = this.body(request);
    if (request.transport === 'handle') {
      const query: Record<string, string | string[]> = {};
      for (const [name, value] of pairs) {
        const seen = Object.hasOwn(query, name) ? query[name] : undefined;
        const next = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
        Object.defineProperty(query, name, { value: next, enumerable: true, writable: true, configurable: true });
      }
      const headers: Record<string, string> = {};
      for (const [name, value] of request.headers) {
        Object.defineProperty(headers, name, { value, enumerable: true, writable: true, configurable: true });
      }
      const answer = await this.world.api.handle({ method: request.method, path, query, headers, body });
      return answer;
    }
    const rawQuery = new URLSearchParams(pairs).toString();
    if (request.transport === 'lambda') {
      const headers: Record<string, string> = {};
      for (const [name, value] of request.headers) headers[name] = value;
      const event: LambdaHttpEvent = {
        version: '2.0',
        rawPath: path,
        rawQueryString: rawQuery,
        headers,
        ...(body === undefined ? {} : { body }),
        isBase64Encoded: false,
        requestContext: { http: { method: request.method, path } },
      };
      const answer = await this.lambda(event);
      return { status: answer.statusCode, headers: answer.headers, body: answer.body };
    }
    return overHttp(server, request, `${wireSafe(path)}${rawQuery === '' ? '' : `?${wireSafe(rawQuery)}`}`, body);
  }
}

/** The run id of an execution ARN (`…/durable-execution/<runId>[/<incarnation>]`). */
function runIdOfArn(arn: string): string {
  return (arn.split('/durable-execution/')[1] ?? arn).split('/')[0] as string;
}

/** A callback id made wrong in one way (or kept). */
function mangleCallback(id: string, how: CallbackMangle): string {
  const [where = '', secret = ''] = id.split('.');
  const at = (runId: string, op: string) => `${Buffer.from(`${runId}:${op}`, 'utf8').toString('base64url')}.${secret}`;
  switch (how) {
    case 'truncate':
      return id.slice(0, -1);
    case 'secret':
      return `${where}.${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    case 'otherOp':
      return at(Buffer.from(where, 'base64url').toString('utf8').split(':')[0] as string, '9');
    case 'longRun':
      return at('r'.repeat(140), '1');
    case 'unicodeRun':
      return at('😀'.repeat(36), '😀'.repeat(10));
    default:
      return id;
  }
}

/**
 * Percent-encodes a segment; a lone surrogate (which has no UTF-8) goes as the bytes a careless
 * client would send for it, `%ED%A0%80`: not UTF-8, so the API must refuse it as malformed.
 */
function encodeText(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return text
      .split(/([\ud800-\udfff])/u)
      .map((part) => (/^[\ud800-\udfff]$/u.test(part) ? '%ED%A0%80' : encodeURIComponent(part)))
      .join('');
  }
}

/** Percent-encodes what an HTTP/1.1 request target may not carry raw. */
function wireSafe(text: string): string {
  return text.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c));
}

function overHttp(
  server: { port: number; agent: Agent },
  request: DynamoFuzzRequest,
  target: string,
  body: string | undefined,
): Promise<DynamoFuzzAnswer> {
  const headers: Record<string, string> = {};
  for (const [name, value] of request.headers) {
    try {
      validateHeaderName(name);
      validateHeaderValue(name, value);
      headers[name] = value;
    } catch {
      // a value HTTP cannot carry: the other transports send it
    }
  }
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
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
    req.on('error', reject);
    req.end(body);
  });
}
