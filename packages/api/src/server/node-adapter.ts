import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ControlApi } from './control-api';
import { type ApiResponse, errorResponse, type MultiValue } from './http';

/** Splits a request target into its path and decoded query parameters. */
export function splitTarget(target: string): { path: string; query: Record<string, MultiValue> } {
  const mark = target.indexOf('?');
  const path = mark === -1 ? target : target.slice(0, mark);
  // No prototype: a parameter named `__proto__` is a parameter like any other.
  const query: Record<string, MultiValue> = Object.create(null);
  if (mark !== -1) {
    const params = new URLSearchParams(target.slice(mark + 1));
    for (const name of new Set(params.keys())) {
      const values = params.getAll(name);
      query[name] = values.length === 1 ? values[0] : values;
    }
  }
  return { path: path === '' ? '/' : path, query };
}

type BodyRead = { body: string | undefined } | { tooLarge: true };

/** Reads the body up to `limit` bytes; past it, stops keeping data (the rest is drained). */
function readBody(req: IncomingMessage, limit: number): Promise<BodyRead> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.resolve({ tooLarge: true });
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) {
        done = true;
        chunks.length = 0;
        resolve({ tooLarge: true });
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (done) return;
      done = true;
      resolve({ body: size === 0 ? undefined : Buffer.concat(chunks).toString('utf8') });
    });
    req.on('error', (error) => {
      if (done) return;
      done = true;
      reject(error);
    });
  });
}

function send(res: ServerResponse, response: ApiResponse, extra: Record<string, string> = {}): void {
  res.writeHead(response.status, { ...response.headers, ...extra });
  res.end(response.body);
}

/**
 * A `node:http` request listener for the control API. It reads the body whole, up to the API's
 * `maxBodyBytes` (past it: `413 payload_too_large` and the connection is closed), and writes
 * the answer in one piece.
 */
export function toNodeListener(api: ControlApi): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    void (async () => {
      try {
        const read = await readBody(req, api.maxBodyBytes);
        if ('tooLarge' in read) {
          send(res, errorResponse(413, 'payload_too_large', `body: over the limit of ${api.maxBodyBytes} bytes`), {
            connection: 'close',
          });
          return;
        }
        const { path, query } = splitTarget(req.url ?? '/');
        const response = await api.handle({
          method: req.method ?? 'GET',
          path,
          query,
          headers: req.headers,
          body: read.body,
        });
        send(res, response);
      } catch {
        if (!res.headersSent) send(res, errorResponse(500, 'internal_error', 'internal error'));
        else res.destroy();
      }
    })();
  };
}

/**
 * Answers the requests Node's own HTTP parser refuses before any listener sees them (headers or
 * a URL over its size limit: `431 request_headers_too_large`; a malformed request:
 * `400 bad_request`) in the API's JSON error shape, instead of Node's empty answer. Call it on
 * the `node:http` server that serves {@link toNodeListener}.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const response = tooLarge
      ? errorResponse(431, 'request_headers_too_large', 'the request line and headers are over the size limit')
      : errorResponse(400, 'bad_request', `malformed HTTP request (${error.code ?? 'parse error'})`);
    const head = [
      `HTTP/1.1 ${response.status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}`,
      'content-type: application/json',
      `content-length: ${Buffer.byteLength(response.body)}`,
      'connection: close',
    ];
    socket.end(`${head.join('\r\n')}\r\n\r\n${response.body}`);
  });
}
