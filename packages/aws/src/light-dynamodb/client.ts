/**
 * A small DynamoDB client: the store's requests in DynamoDB's JSON protocol (`X-Amz-Target:
 * DynamoDB_20120810.<Op>`, `application/x-amz-json-1.0`) over `node:https` with a keep-alive
 * agent, signed with SigV4 from `node:crypto`, with the AWS SDK's standard retries. Importing it
 * loads no AWS SDK code, and neither does its first request: a deployed function's cold start
 * skips the ~100 ms the SDK's DynamoDB document client takes to load (bench `bundle` section).
 *
 * It speaks what the store sends (`dynamodb/commands.ts`), document-shaped as lib-dynamodb takes
 * and returns it (`attribute-values.ts`), and fails as the SDK does where the store looks
 * (`service-errors.ts`). A `TransactWriteItems` gets a `ClientRequestToken` as the SDK gives it,
 * so a transaction sent again after a lost answer is idempotent.
 */
import { randomUUID } from 'node:crypto';
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { type AwsCredentials, type AwsCredentialsProvider, environmentCredentials } from '../aws-credentials';
import type { DynamoDbCommand, DynamoDbInterceptor, DynamoDbOperation, DynamoDbTransport } from '../dynamodb/commands';
import { signRequest } from '../sigv4';
import { inputToWire, outputFromWire } from './attribute-values';
import { dynamoDbEndpoint } from './endpoint';
import { maxAttemptsFrom, RetryPolicy } from './retry-policy';
import { metadataOf, type ResponseMetadata, serviceError } from './service-errors';

/** Options of a {@link LightDynamoDbClient}. */
export interface LightDynamoDbClientOptions {
  /** The table's region (Lambda's `AWS_REGION`). */
  region: string;
  /**
   * The endpoint URL (`http://127.0.0.1:8000` for DynamoDB Local). Default: `AWS_ENDPOINT_URL_DYNAMODB`,
   * then `AWS_ENDPOINT_URL`, else DynamoDB's regional endpoint (see `endpoint.ts`).
   */
  endpoint?: string;
  /**
   * Credentials, or a provider of them (called before each attempt; it should cache). Default: the
   * environment's `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`, as Lambda sets them.
   */
  credentials?: AwsCredentials | AwsCredentialsProvider;
  /** Attempts per request, the first included. Default: `AWS_MAX_ATTEMPTS`, else 4 (the SDK's for DynamoDB). */
  maxAttempts?: number;
  /** A connection not established within this is a retried `TimeoutError`. Default 3,000 ms. */
  connectTimeoutMs?: number;
  /** A request whose socket stays silent this long is a retried `TimeoutError`. Default 30,000 ms. */
  requestTimeoutMs?: number;
  /** Sockets kept per endpoint. Default 50 (the SDK's). */
  maxSockets?: number;
  /** Where the defaults are read. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

const JSON_CONTENT_TYPE = 'application/x-amz-json-1.0';
const USER_AGENT = 'durable-lambda light-dynamodb';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A connection or an answer that took too long (retried as the SDK retries its own `TimeoutError`). */
function timeoutError(message: string): Error {
  return Object.assign(new Error(message), { name: 'TimeoutError', code: 'ETIMEDOUT' });
}

/** The delay an answer asks for (`x-amz-retry-after`, ms), if any. */
function retryAfterMs(headers: IncomingHttpHeaders): number | undefined {
  const hint = headers['x-amz-retry-after'];
  const ms = typeof hint === 'string' ? Number(hint) : Number.NaN;
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * The light DynamoDB client (see the file's comment). One per container: its keep-alive agent and
 * retry quota are shared by every request. `destroy()` closes its sockets.
 */
export class LightDynamoDbClient implements DynamoDbTransport {
  /** The region requests are signed for. */
  readonly region: string;
  /** Where requests go. */
  readonly endpoint: URL;
  private readonly agent: HttpAgent;
  private readonly secure: boolean;
  private readonly credentials: AwsCredentialsProvider;
  private readonly retries: RetryPolicy;
  private readonly connectTimeoutMs: number;
  private readonly requestTimeoutMs: number;
  private readonly interceptors: DynamoDbInterceptor[] = [];

  constructor(options: LightDynamoDbClientOptions) {
    const region = options.region?.trim();
    if (!region) throw new TypeError('LightDynamoDbClient: region is required (for example eu-west-1)');
    const env = options.env ?? process.env;
    this.region = region;
    this.endpoint = dynamoDbEndpoint(region, env, options.endpoint);
    this.secure = this.endpoint.protocol === 'https:';
    const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 50 };
    this.agent = this.secure ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions);
    const given = options.credentials;
    this.credentials =
      given === undefined
        ? async () => environmentCredentials(env)
        : typeof given === 'function'
          ? given
          : async () => given;
    this.retries = new RetryPolicy(options.maxAttempts ?? maxAttemptsFrom(env));
    this.connectTimeoutMs = options.connectTimeoutMs ?? 3_000;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  }

  /** Sends `command` (through the interceptors, outermost first); resolves with its document-shaped output. */
  async send<Input extends object, Output extends object>(command: DynamoDbCommand<Input, Output>): Promise<Output> {
    const commandName = `${command.operation}Command`;
    const through = (index: number, input: Record<string, unknown>): Promise<Record<string, unknown>> => {
      const interceptor = this.interceptors[index];
      if (interceptor === undefined) return this.execute(command.operation, input);
      return interceptor({ commandName, input }, (next) => through(index + 1, next));
    };
    return (await through(0, command.input as Record<string, unknown>)) as Output;
  }

  intercept(interceptor: DynamoDbInterceptor): void {
    this.interceptors.push(interceptor);
  }

  /** Closes the kept sockets (a later request opens new ones). */
  destroy(): void {
    this.agent.destroy();
  }

  /** One request with its retries: the output, or the last attempt's error with `$metadata.attempts`. */
  private async execute(
    operation: DynamoDbOperation,
    input: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const wire = inputToWire(operation, input);
    // The SDK fills this idempotency token once per request: its retries repeat it.
    if (operation === 'TransactWriteItems' && wire.ClientRequestToken === undefined) {
      wire.ClientRequestToken = randomUUID();
    }
    const body = Buffer.from(JSON.stringify(wire), 'utf8');
    let totalRetryDelay = 0;
    let retryCost: number | undefined;
    for (let attempt = 1; ; attempt++) {
      let error: unknown;
      let hint: number | undefined;
      try {
        const answer = await this.post(operation, body);
        if (answer.status >= 200 && answer.status < 300) {
          const output = outputFromWire(operation, answer.text ? (JSON.parse(answer.text) as object) : {});
          this.retries.succeeded(retryCost);
          const $metadata: ResponseMetadata = {
            ...metadataOf(answer.status, answer.headers),
            attempts: attempt,
            totalRetryDelay,
          };
          return { ...output, $metadata };
        }
        error = serviceError(answer.status, answer.headers, answer.text);
        hint = retryAfterMs(answer.headers);
      } catch (thrown) {
        error = thrown;
      }
      const retry = this.retries.retryDelay(error, attempt, hint);
      if (retry === undefined) {
        if (error !== null && typeof error === 'object') {
          const failed = error as { $metadata?: ResponseMetadata };
          failed.$metadata = { ...failed.$metadata, attempts: attempt, totalRetryDelay };
        }
        throw error;
      }
      retryCost = retry.cost;
      totalRetryDelay += retry.delayMs;
      await sleep(retry.delayMs);
    }
  }

  /** One signed POST of `body` (signed anew per attempt: a retry carries its own time). */
  private async post(operation: DynamoDbOperation, body: Buffer): Promise<HttpAnswer> {
    const credentials = await this.credentials();
    const headers = signRequest(
      {
        method: 'POST',
        path: this.endpoint.pathname || '/',
        headers: {
          host: this.endpoint.host,
          'content-type': JSON_CONTENT_TYPE,
          'content-length': String(body.length),
          'x-amz-target': `DynamoDB_20120810.${operation}`,
        },
        body,
      },
      { credentials, region: this.region, service: 'dynamodb' },
    );
    headers['user-agent'] = USER_AGENT;
    return this.http(headers, body);
  }

  private http(headers: Record<string, string>, body: Buffer): Promise<HttpAnswer> {
    const url = this.endpoint;
    return new Promise<HttpAnswer>((resolve, reject) => {
      let connecting: NodeJS.Timeout | undefined;
      const request = (this.secure ? httpsRequest : httpRequest)({
        protocol: url.protocol,
        hostname: url.hostname,
        port: url.port || undefined,
        path: `${url.pathname || '/'}${url.search}`,
        method: 'POST',
        headers,
        agent: this.agent,
      });
      request.once('socket', (socket) => {
        if (!socket.connecting) return;
        connecting = setTimeout(
          () => request.destroy(timeoutError(`no connection to ${url.host} within ${this.connectTimeoutMs} ms`)),
          this.connectTimeoutMs,
        );
        socket.once('connect', () => clearTimeout(connecting));
      });
      request.setTimeout(this.requestTimeoutMs, () =>
        request.destroy(timeoutError(`no answer from ${url.host} within ${this.requestTimeoutMs} ms`)),
      );
      request.once('error', (error) => {
        clearTimeout(connecting);
        reject(error);
      });
      request.once('response', (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.once('error', reject);
        response.once('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      });
      request.end(body);
    });
  }
}
