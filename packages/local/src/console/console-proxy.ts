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
