import type { IncomingMessage } from 'node:http';

/**
 * The request headers the console passes on to the API (no cookies, no browser noise); they are
 * all signed.
 */
const FORWARDED = ['accept', 'content-type', 'idempotency-key', 'x-durable-actor'] as const;
/** The answer headers the dashboard may read (the rest describe the API's front, not the answer). */
const PASSED_BACK = ['idempotent-replayed', 'retry-after', 'location'] as const;

/** The headers of a proxied request. */
export function forwardedHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of FORWARDED) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  return headers;
}

/** The headers of a proxied answer. */
export function passedBackHeaders(headers: Headers): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of PASSED_BACK) {
    const value = headers.get(name);
    if (value !== null) kept[name] = value;
  }
  return kept;
}

/** Host names the console answers to: only its own loopback address. */
function ownHost(host: string | undefined, port: number): boolean {
  return host === `127.0.0.1:${port}` || host === `localhost:${port}`;
}

/**
 * Why a request must be refused, or undefined. The console signs with the user's credentials,
 * so it answers only its own page: a request for another host name (DNS rebinding), from
 * another origin, or that a browser marks cross-site is refused, and no web page the user visits
 * can act on their runs through it. The page itself (`api` false) may be opened from a link.
 */
export function consoleGuard(
  req: IncomingMessage,
  port: number,
  api: boolean,
): { code: string; message: string } | undefined {
  const host = req.headers.host;
  if (!ownHost(host, port)) {
    return { code: 'forbidden_host', message: `the console answers only http://127.0.0.1:${port}, not host ${host}` };
  }
  if (!api) return undefined;
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== `http://${host}`) {
    return { code: 'cross_origin', message: `the console refuses requests from ${origin}` };
  }
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    return { code: 'cross_origin', message: `the console refuses ${site} requests` };
  }
  return undefined;
}

/** The request body, or null when it is over `limit` bytes (the rest is not read). */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > limit) {
        over = true;
        resolve(null);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!over) resolve(Buffer.concat(chunks));
    });
    req.on('error', reject);
  });
}
