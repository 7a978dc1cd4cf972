/**
 * SigV4 signing of HTTP requests to the deployed control API (a Lambda Function URL with
 * `AuthType: AWS_IAM`, service `lambda`), as a `fetch` wrapper the typed client, the CLI and the
 * console take. The AWS modules it needs (`@smithy/signature-v4`, and the default credential
 * chain of `@aws-sdk/credential-provider-node`) load at the first signed request, so importing
 * this package (a Lambda's cold start) pays nothing for them.
 */
import { createHash, createHmac } from 'node:crypto';
import { type AwsCredentials, type AwsCredentialsProvider, NoAwsCredentialsError } from './aws-credentials';

export { type AwsCredentials, type AwsCredentialsProvider, NoAwsCredentialsError } from './aws-credentials';

/** Options of {@link createSignedFetch}. */
export interface SignedFetchOptions {
  /** The region the API is in (a Function URL's host names it: {@link functionUrlRegion}). */
  region: string;
  /** The service signed for. Default `lambda` (Function URLs). */
  service?: string;
  /** Credentials, or a provider of them. Default: the AWS SDK's default chain ({@link defaultCredentials}). */
  credentials?: AwsCredentials | AwsCredentialsProvider;
  /** The fetch that sends the signed requests. Default: the global one. */
  fetch?: typeof fetch;
}

/** The region of a Lambda Function URL (`https://<id>.lambda-url.<region>.on.aws/`), else undefined. */
export function functionUrlRegion(url: string | URL): string | undefined {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
  return /^[a-z0-9]+\.lambda-url\.([a-z0-9-]+)\.on\.aws$/.exec(host)?.[1];
}

/**
 * The AWS SDK's default credential chain (environment, SSO, web identity, shared files,
 * `credential_process`, container and instance metadata), memoized and refreshed before expiry.
 * Rejects with {@link NoAwsCredentialsError} when it finds none.
 */
export function defaultCredentials(): AwsCredentialsProvider {
  let chain: Promise<AwsCredentialsProvider> | undefined;
  return async () => {
    chain ??= import('@aws-sdk/credential-provider-node').then(
      (mod) => mod.defaultProvider() as AwsCredentialsProvider,
    );
    try {
      return await (await chain)();
    } catch (error) {
      throw new NoAwsCredentialsError(error instanceof Error ? error.message : String(error), { cause: error });
    }
  };
}

/** What the signer hashes: text or bytes in any view. */
type SourceData = string | ArrayBuffer | ArrayBufferView;

function bytes(data: SourceData): string | Uint8Array {
  if (typeof data === 'string') return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/** SHA-256 and HMAC-SHA256 in the shape `@smithy/signature-v4` takes, from node:crypto (no extra package). */
class NodeSha256 {
  private readonly hash;
  constructor(secret?: SourceData) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: SourceData): void {
    this.hash.update(bytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
  reset(): void {
    throw new Error('NodeSha256: reset is not supported (a new instance is made per hash)');
  }
}

type HeaderInit = ConstructorParameters<typeof Headers>[0];

/** The body as the string or bytes that are sent (and hashed). */
async function bodyOf(body: unknown): Promise<string | Uint8Array | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (body instanceof URLSearchParams) return body.toString();
  if (body instanceof Blob) return new Uint8Array(await body.arrayBuffer());
  throw new TypeError('signed fetch: the body must be a string, bytes, a Blob or URLSearchParams (not a stream)');
}

/**
 * A `fetch` that signs each request with SigV4 (`Authorization`, `X-Amz-Date`,
 * `X-Amz-Content-Sha256` of the body, `X-Amz-Security-Token` for temporary credentials) before
 * sending it. Every header given is signed, `Idempotency-Key` included, so a replayed or altered
 * key is refused by the API's front. Each call (each retry) is signed anew with the current time.
 *
 * @example
 * new DurableClient({ baseUrl, fetch: createSignedFetch({ region: functionUrlRegion(baseUrl) ?? 'eu-west-1' }) })
 */
export function createSignedFetch(options: SignedFetchOptions): typeof fetch {
  const region = options.region?.trim();
  if (!region) throw new TypeError('region: required to sign requests (for example eu-west-1)');
  const service = options.service ?? 'lambda';
  const given = options.credentials;
  const credentials: AwsCredentialsProvider =
    given === undefined ? defaultCredentials() : typeof given === 'function' ? given : async () => given;
  const send = options.fetch ?? ((input, init) => fetch(input, init));
  let signer: Promise<{ sign(request: unknown): Promise<{ headers: Record<string, string> }> }> | undefined;

  return async (input, init) => {
    if (input instanceof Request) {
      throw new TypeError('signed fetch: pass a URL and an init object, not a Request');
    }
    const url = new URL(String(input));
    signer ??= import('@smithy/signature-v4').then(
      ({ SignatureV4 }) =>
        new SignatureV4({ credentials, region, service, sha256: NodeSha256 }) as unknown as {
          sign(request: unknown): Promise<{ headers: Record<string, string> }>;
        },
    );
    const method = (init?.method ?? 'GET').toUpperCase();
    const body = await bodyOf(init?.body);
    const headers: Record<string, string> = {};
    new Headers(init?.headers as HeaderInit).forEach((value, name) => {
      headers[name] = value;
    });
    headers.host = url.host;
    const query: Record<string, string | string[]> = {};
    for (const [name, value] of url.searchParams) {
      const seen = query[name];
      query[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
    }
    const signed = await (await signer).sign({
      method,
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query,
      headers,
      ...(body === undefined ? {} : { body }),
    });
    // fetch sets Host itself (the same value, signed above).
    const { host: _host, ...sent } = signed.headers;
    return send(url, { ...init, method, headers: sent, ...(body === undefined ? {} : { body }) });
  };
}
