/**
 * AWS Signature Version 4 of an HTTP request, in headers, with `node:crypto` alone: what
 * `@smithy/signature-v4` computes with its defaults (`x-amz-content-sha256` added, the path
 * normalized and escaped, the headers it never signs left out), so the light DynamoDB client
 * signs without loading any AWS SDK code. test/aws/sigv4.test.ts compares the two.
 */
import { createHash, createHmac } from 'node:crypto';

/** Credentials to sign with (an access key, its secret and, for temporary ones, a session token). */
export interface SigningCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

/** A request to sign. */
export interface SignableRequest {
  /** `GET`, `POST`, … */
  readonly method: string;
  /** The path, unescaped (`/`). */
  readonly path: string;
  /** The query parameters, unescaped. */
  readonly query?: Readonly<Record<string, string | readonly string[]>>;
  /** The headers, `host` among them; every one is signed but those SigV4 never signs. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body, as sent. */
  readonly body?: string | Uint8Array;
}

/** What a request is signed for and when. */
export interface SigningScope {
  readonly credentials: SigningCredentials;
  readonly region: string;
  /** The signing name of the service (`dynamodb`, `lambda`, …). */
  readonly service: string;
  /** The signing time. Default: now. */
  readonly date?: Date;
}

/** Headers SigV4 never signs (as `@smithy/signature-v4`'s `ALWAYS_UNSIGNABLE_HEADERS`), and the ones it writes. */
const UNSIGNABLE = new Set([
  'authorization',
  'cache-control',
  'connection',
  'expect',
  'from',
  'keep-alive',
  'max-forwards',
  'pragma',
  'referer',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'user-agent',
  'x-amzn-trace-id',
]);
const GENERATED = new Set(['authorization', 'x-amz-date', 'date']);

const sha256Hex = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string): Buffer => createHmac('sha256', key).update(data, 'utf8').digest();

/** RFC 3986 escaping, as SigV4 wants it. */
const uriEscape = (text: string): string =>
  encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Signing keys by secret, date, region and service: one derivation per day, not per request. */
const keys = new Map<string, Buffer>();

function signingKey(secret: string, day: string, region: string, service: string): Buffer {
  const id = `${day}/${region}/${service}/${sha256Hex(secret)}`;
  let key = keys.get(id);
  if (key === undefined) {
    key = hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), service), 'aws4_request');
    if (keys.size >= 50) keys.delete(keys.keys().next().value as string);
    keys.set(id, key);
  }
  return key;
}

/**
 * The headers to send: the request's own (lower-cased, `authorization`, `x-amz-date` and `date`
 * replaced) plus `x-amz-date`, `x-amz-security-token` for temporary credentials,
 * `x-amz-content-sha256` and `authorization`.
 */
export function signRequest(request: SignableRequest, scope: SigningScope): Record<string, string> {
  const { credentials, region, service } = scope;
  const longDate = (scope.date ?? new Date())
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
  const day = longDate.slice(0, 8);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    const lower = name.toLowerCase();
    if (!GENERATED.has(lower) && value !== undefined) headers[lower] = value;
  }
  headers['x-amz-date'] = longDate;
  if (credentials.sessionToken) headers['x-amz-security-token'] = credentials.sessionToken;
  const payloadHash = headers['x-amz-content-sha256'] ?? sha256Hex(request.body ?? '');
  headers['x-amz-content-sha256'] = payloadHash;

  const signed = Object.keys(headers)
    .filter((name) => !UNSIGNABLE.has(name) && !name.startsWith('proxy-') && !name.startsWith('sec-'))
    .sort();
  const canonicalHeaders = signed
    .map(
      (name) =>
        `${name}:${(headers[name] as string)
          .replace(/[\r\n]/g, ' ')
          .replace(/[ \t]+/g, ' ')
          .replace(/^ | $/g, '')}\n`,
    )
    .join('');
  const signedHeaders = signed.join(';');
  const canonicalRequest = [
    request.method.toUpperCase(),
    canonicalPath(request.path),
    canonicalQuery(request.query),
    canonicalHeaders,
    signedHeaders,
    payloadHash,
  ].join('\n');
  const credentialScope = `${day}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', longDate, credentialScope, sha256Hex(canonicalRequest)].join('\n');
  const signature = createHmac('sha256', signingKey(credentials.secretAccessKey, day, region, service))
    .update(stringToSign, 'utf8')
    .digest('hex');
  headers.authorization =
    `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${credentialScope}, ` +
    `SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return headers;
}

/** The path with `.` and `..` resolved and empty segments dropped, escaped (slashes kept). */
function canonicalPath(path: string): string {
  const segments: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  const joined = `${path.startsWith('/') ? '/' : ''}${segments.join('/')}${segments.length > 0 && path.endsWith('/') ? '/' : ''}`;
  return uriEscape(joined).replace(/%2F/g, '/');
}

/** The query, keys and values escaped, sorted by key (and a repeated key's values among themselves). */
function canonicalQuery(query: SignableRequest['query']): string {
  if (query === undefined) return '';
  const parts: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(query)) {
    if (name.toLowerCase() === 'x-amz-signature') continue;
    const key = uriEscape(name);
    const values = typeof value === 'string' ? [value] : [...value];
    parts.push([
      key,
      values
        .map((v) => `${key}=${uriEscape(v)}`)
        .sort()
        .join('&'),
    ]);
  }
  return parts
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([, text]) => text)
    .filter((text) => text !== '')
    .join('&');
}
