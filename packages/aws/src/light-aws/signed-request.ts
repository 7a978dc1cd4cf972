/**
 * One signed request to an AWS service over the global `fetch`, with a few retries: what the light
 * S3 and KMS clients share. Signed with `sigv4.ts` (node:crypto), so neither client loads AWS SDK
 * code on a function's hot path (the same reason as the light DynamoDB client).
 */
import { type AwsCredentials, type AwsCredentialsProvider, environmentCredentials } from '../aws-credentials';
import { signRequest } from '../sigv4';

/** What a light client needs to sign and send. */
export interface LightAwsOptions {
  /** The service's region (Lambda's `AWS_REGION`). */
  region: string;
  /** The endpoint URL; default: the service's regional endpoint. Set for a local fake. */
  endpoint?: string;
  /** Credentials or a provider of them. Default: the environment's (as Lambda sets them). */
  credentials?: AwsCredentials | AwsCredentialsProvider;
  /** Attempts per request, the first included. Default 4. */
  maxAttempts?: number;
  /** The fetch that sends. Default: the global one. */
  fetch?: typeof fetch;
  /**
   * Where credentials and a configured endpoint (`AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL_KMS`)
   * are read. Default `process.env`.
   */
  env?: Readonly<Record<string, string | undefined>>;
}

/** The endpoint the environment configures for a service (`AWS_ENDPOINT_URL_<SERVICE>`), if any. */
export function configuredEndpoint(service: string, options: LightAwsOptions): string | undefined {
  if (options.endpoint !== undefined) return options.endpoint;
  const env = options.env ?? process.env;
  return env[`AWS_ENDPOINT_URL_${service.toUpperCase()}`]?.trim() || undefined;
}

/** A service's answer that was not a success, with its code (`NoSuchKey`, `InvalidCiphertextException`…). */
export class AwsServiceError extends Error {
  constructor(
    /** The service's error code. */
    readonly code: string,
    /** The HTTP status. */
    readonly status: number,
    message: string,
  ) {
    super(`${code}: ${message}`);
    this.name = code;
  }
}

/** A request to sign and send. */
export interface LightRequest {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE' | 'HEAD';
  /** The path, unescaped, made of characters that need no escaping (the callers' keys are). */
  path: string;
  headers?: Record<string, string>;
  body?: Uint8Array;
}

/** An answer: its status, headers and body bytes. */
export interface LightAnswer {
  status: number;
  headers: Headers;
  body: Uint8Array;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Signs and sends requests for one service; retries throttles, 5xx and network failures. */
export class LightAwsRequester {
  private readonly credentials: AwsCredentialsProvider;
  private readonly send: typeof fetch;
  private readonly maxAttempts: number;

  constructor(
    private readonly service: string,
    readonly region: string,
    readonly endpoint: URL,
    options: LightAwsOptions,
  ) {
    const given = options.credentials;
    this.credentials =
      given === undefined
        ? async () => environmentCredentials(options.env ?? process.env)
        : typeof given === 'function'
          ? given
          : async () => given;
    this.send = options.fetch ?? ((input, init) => fetch(input, init));
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 4);
  }

  /**
   * Sends `request`, signed anew per attempt. Resolves with any answer the caller must judge (a
   * 4xx other than a throttle is not retried: it would fail again); rejects after the last
   * attempt at a throttle, a 5xx or a network failure.
   */
  async request(request: LightRequest): Promise<LightAnswer> {
    const base = this.endpoint.pathname.replace(/\/$/, '');
    const path = `${base}${request.path}`;
    for (let attempt = 1; ; attempt++) {
      let failure: unknown;
      try {
        const credentials = await this.credentials();
        const headers = signRequest(
          {
            method: request.method,
            path,
            headers: { host: this.endpoint.host, ...request.headers },
            ...(request.body ? { body: request.body } : {}),
          },
          { credentials, region: this.region, service: this.service },
        );
        const { host: _host, ...sent } = headers;
        const response = await this.send(new URL(path, this.endpoint), {
          method: request.method,
          headers: sent,
          ...(request.body ? { body: request.body } : {}),
        });
        const body = new Uint8Array(await response.arrayBuffer());
        if (response.status < 500 && response.status !== 429 && response.status !== 503) {
          return { status: response.status, headers: response.headers, body };
        }
        failure = new AwsServiceError(`Http${response.status}`, response.status, Buffer.from(body).toString('utf8'));
      } catch (error) {
        failure = error;
      }
      if (attempt >= this.maxAttempts) throw failure;
      await sleep(Math.random() * 50 * 2 ** attempt);
    }
  }
}

/** The regional endpoint of `service` (`https://s3.eu-west-1.amazonaws.com`), or `given`. */
export function serviceEndpoint(service: string, region: string, given?: string): URL {
  if (given !== undefined) {
    const url = new URL(given);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new TypeError(`endpoint: an http(s) URL, got ${JSON.stringify(given)}`);
    }
    return url;
  }
  const suffix = region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com';
  return new URL(`https://${service}.${region}.${suffix}`);
}
