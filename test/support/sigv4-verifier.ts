/**
 * A stand-in for a Lambda Function URL with `AuthType: AWS_IAM`: an HTTP server that checks each
 * request's SigV4 signature (recomputed with @smithy/signature-v4 from known credentials) and
 * hands the signed ones to a Lambda HTTP handler (payload v2) as the Function URL would; the
 * others get the Function URL's `403 {"Message":"Forbidden"}`.
 */
import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LambdaHttpEvent, LambdaHttpResult } from '@durable-lambda/api';
import { SignatureV4 } from '@smithy/signature-v4';

/** The credentials the verifier accepts (and the clients under test are given). */
export const TEST_CREDENTIALS = {
  accessKeyId: 'AKIDCONSOLETEST0001',
  secretAccessKey: 'console-test-secret-key/0123456789abcdefgh',
} as const;

type SourceData = string | ArrayBuffer | ArrayBufferView;
const bytes = (data: SourceData): string | Uint8Array =>
  typeof data === 'string'
    ? data
    : data instanceof ArrayBuffer
      ? new Uint8Array(data)
      : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);

class Sha256 {
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
  reset(): void {}
}

/** One request the verifier saw. */
export interface Seen {
  method: string;
  path: string;
  /** Why it was refused, or undefined when it was signed right. */
  refused?: string;
  /** The headers its signature covers. */
  signedHeaders: string[];
}

/** Headers a client must sign when it sends them (a changed Idempotency-Key must not pass). */
const MUST_SIGN = [
  'host',
  'x-amz-date',
  'x-amz-content-sha256',
  'idempotency-key',
  'content-type',
  'x-amz-security-token',
];
const SKEW_MS = 5 * 60_000;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function amzDate(text: string | undefined): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text ?? '');
  return m ? new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!)) : undefined;
}

/** Why the request's signature is wrong, or undefined when it is right. */
async function verify(req: IncomingMessage, url: URL, body: string, region: string): Promise<string | undefined> {
  const auth = req.headers.authorization;
  if (!auth) return 'no Authorization header';
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
      auth,
    );
  if (!m) return 'malformed Authorization header';
  const [, keyId, , signedRegion, service, signedList] = m as unknown as string[];
  if (keyId !== TEST_CREDENTIALS.accessKeyId) return `unknown access key ${keyId}`;
  if (signedRegion !== region || service !== 'lambda') return `signed for ${signedRegion}/${service}`;
  const date = amzDate(req.headers['x-amz-date'] as string | undefined);
  if (!date) return 'no X-Amz-Date';
  if (Math.abs(date.getTime() - Date.now()) > SKEW_MS) return 'X-Amz-Date too far from now';
  const signed = (signedList as string).split(';');
  for (const name of MUST_SIGN) {
    if (req.headers[name] !== undefined && !signed.includes(name)) return `header ${name} is not signed`;
  }
  const bodyHash = createHash('sha256').update(body).digest('hex');
  if (req.headers['x-amz-content-sha256'] !== bodyHash) return 'X-Amz-Content-Sha256 is not the body hash';
  const headers: Record<string, string> = {};
  for (const name of signed) {
    const value = req.headers[name];
    if (value === undefined) return `signed header ${name} is missing`;
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of url.searchParams) {
    const seen = query[name];
    query[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  const signer = new SignatureV4({ credentials: TEST_CREDENTIALS, region, service: 'lambda', sha256: Sha256 });
  const expected = await signer.sign(
    {
      method: req.method ?? 'GET',
      protocol: 'http:',
      hostname: url.hostname,
      port: Number(url.port),
      path: url.pathname,
      query,
      headers,
      body,
    },
    { signingDate: date },
  );
  return expected.headers.authorization === auth ? undefined : 'signature does not match';
}

/** The running verifier. */
export interface Sigv4Front {
  url: string;
  /** Every request, in order. */
  seen: Seen[];
  close(): Promise<void>;
}

/** Starts the verifying front of `handler` on 127.0.0.1 (a random port). */
export async function startSigv4Front(
  handler: (event: LambdaHttpEvent) => Promise<LambdaHttpResult>,
  region: string,
): Promise<Sigv4Front> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
      const body = await readBody(req);
      const refused = await verify(req, url, body, region);
      const signedHeaders = /SignedHeaders=([^,]+)/.exec(req.headers.authorization ?? '')?.[1]?.split(';') ?? [];
      seen.push({ method: req.method ?? 'GET', path: url.pathname, signedHeaders, ...(refused ? { refused } : {}) });
      if (refused) {
        res.writeHead(403, { 'content-type': 'application/json', 'x-amzn-errortype': 'AccessDeniedException' });
        res.end(JSON.stringify({ Message: 'Forbidden' }));
        return;
      }
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string') headers[name] = value;
      }
      const result = await handler({
        version: '2.0',
        rawPath: url.pathname,
        rawQueryString: url.search.slice(1),
        headers,
        ...(body ? { body } : {}),
        isBase64Encoded: false,
        requestContext: { http: { method: req.method ?? 'GET', path: url.pathname }, stage: '$default' },
      });
      res.writeHead(result.statusCode, result.headers);
      res.end(result.body);
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
