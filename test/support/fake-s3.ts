/**
 * An in-process S3 for tests, over HTTP so the light client's signing and error handling run for
 * real. It keeps the semantics the payload bucket relies on (S3 API reference): path-style
 * `PUT`/`GET`/`DELETE /<bucket>/<key>`; PutObject answers 200 and replaces; GetObject answers the
 * bytes, or 404 with an XML `<Code>NoSuchKey</Code>`; DeleteObject answers 204 whether or not the
 * key existed; an unknown bucket is 404 `NoSuchBucket`; a key over 1,024 bytes is 400
 * `KeyTooLongError`; a body whose SHA-256 differs from `x-amz-content-sha256` is 400
 * `XAmzContentSHA256Mismatch`; an unsigned request is 403 `AccessDenied`, and so is a GetObject of
 * a missing key by a caller without s3:ListBucket (`withoutListBucket`). Strong read-after-write.
 *
 * Faults: `loseNextPutResponses(n)` stores the next n puts then drops the connection (a lost
 * response); `failNext(n)` answers the next n requests 503 `SlowDown` without acting;
 * `timeOutNextPuts(n)` answers the next n puts 400 `RequestTimeout`.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export class FakeS3 {
  /** Objects by bucket, then key. */
  readonly buckets = new Map<string, Map<string, Buffer>>();
  /** Requests answered, by method. */
  readonly requests = { PUT: 0, GET: 0, DELETE: 0 };
  private server: Server | undefined;
  private losePuts = 0;
  private failures = 0;
  private timeouts = 0;
  /** Access key ids whose policy lacks s3:ListBucket: a missing key is 403 to them, as S3 answers. */
  readonly withoutListBucket = new Set<string>();

  /** The next `n` puts answer 400 `RequestTimeout` without storing (S3 gave up waiting for the body). */
  timeOutNextPuts(n: number): void {
    this.timeouts = n;
  }

  constructor(bucket: string) {
    this.buckets.set(bucket, new Map());
  }

  /** Starts on 127.0.0.1 at a free port; resolves to the endpoint URL. */
  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (part: Buffer) => parts.push(part));
      req.on('end', () => this.answer(req, res, Buffer.concat(parts)));
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /** The next `n` puts are stored, then their connection is cut before an answer. */
  loseNextPutResponses(n: number): void {
    this.losePuts = n;
  }

  /** The next `n` requests answer 503 SlowDown without acting. */
  failNext(n: number): void {
    this.failures = n;
  }

  /** The keys of a bucket. */
  keys(bucket: string): string[] {
    return [...(this.buckets.get(bucket)?.keys() ?? [])].sort();
  }

  private answer(req: IncomingMessage, res: ServerResponse, body: Buffer): boolean {
    const error = (status: number, code: string, message: string): true => {
      res.writeHead(status, { 'content-type': 'application/xml' });
      res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`);
      return true;
    };
    const method = req.method as 'PUT' | 'GET' | 'DELETE';
    if (!String(req.headers.authorization ?? '').startsWith('AWS4-HMAC-SHA256 ')) {
      return error(403, 'AccessDenied', 'Access Denied');
    }
    if (this.failures > 0) {
      this.failures -= 1;
      return error(503, 'SlowDown', 'Please reduce your request rate.');
    }
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const slash = path.indexOf('/', 1);
    const bucketName = decodeURIComponent(path.slice(1, slash < 0 ? undefined : slash));
    const key = slash < 0 ? '' : decodeURIComponent(path.slice(slash + 1));
    const bucket = this.buckets.get(bucketName);
    if (!bucket) return error(404, 'NoSuchBucket', 'The specified bucket does not exist');
    if (Buffer.byteLength(key, 'utf8') > 1024) return error(400, 'KeyTooLongError', 'Your key is too long');
    if (method in this.requests) this.requests[method] += 1;
    if (method === 'PUT') {
      if (this.timeouts > 0) {
        this.timeouts -= 1;
        return error(
          400,
          'RequestTimeout',
          'Your socket connection to the server was not read from or written to within the timeout period.',
        );
      }
      const sha = createHash('sha256').update(body).digest('hex');
      if (req.headers['x-amz-content-sha256'] !== sha) {
        return error(400, 'XAmzContentSHA256Mismatch', 'The provided x-amz-content-sha256 header does not match');
      }
      bucket.set(key, body);
      if (this.losePuts > 0) {
        this.losePuts -= 1;
        req.socket.destroy();
        return true;
      }
      res.writeHead(200, { etag: `"${createHash('md5').update(body).digest('hex')}"` });
      res.end();
      return true;
    }
    if (method === 'GET') {
      const object = bucket.get(key);
      const caller = /Credential=([^/]+)\//.exec(String(req.headers.authorization))?.[1] ?? '';
      if (!object && this.withoutListBucket.has(caller)) return error(403, 'AccessDenied', 'Access Denied');
      if (!object) return error(404, 'NoSuchKey', 'The specified key does not exist.');
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(object.length) });
      res.end(object);
      return true;
    }
    if (method === 'DELETE') {
      bucket.delete(key);
      res.writeHead(204);
      res.end();
      return true;
    }
    return error(405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.');
  }
}
