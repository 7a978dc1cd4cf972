/**
 * Large payloads in a bucket (S3) instead of chunk items: the port the store writes them through,
 * where they are keyed, and the default size from which they go there.
 *
 * Order and faults: a value bound for the bucket is put (PutObject) before the item that
 * references it is written, exactly as chunk items are (`chunkItems`, `TableAccess.writeChunks`).
 * Its key is the run and a hash of its content, so a put sent again after a lost response writes
 * the same bytes under the same key; a crash between the put and the item leaves an object no
 * item references, which the bucket's lifecycle rule deletes with the run's other objects. No
 * item ever names an object that was not written.
 */
import { createHash } from 'node:crypto';

/** Where the store keeps large payloads: a bucket, or a fake keeping its semantics. */
export interface PayloadObjectStore {
  /** Stores `body` under `key`, replacing what was there. */
  put(key: string, body: Uint8Array): Promise<void>;
  /** The object's bytes, or undefined when there is none (S3's `NoSuchKey`). */
  get(key: string): Promise<Uint8Array | undefined>;
}

/**
 * Values of this many bytes or more go to the bucket when one is configured. Measured by the
 * bench (`bench/payload-cost.bench.ts`): at on-demand prices a PutObject ($5 per million) costs
 * what 8 KB written to DynamoDB does and a GetObject ($0.40 per million) what 13 KB read strongly
 * consistent does; above 16 KB the bucket is cheaper both ways, and its storage is a tenth of
 * DynamoDB's. Smaller values stay in their items, where they cost no extra request to read.
 */
export const DEFAULT_OBJECT_THRESHOLD_BYTES = 16 * 1024;

/** Sort-key prefix of a pending write bound for the bucket: never an item of the table. */
export const OBJECT_PREFIX = 'OBJECT#';

/** The run ids used as they are in keys: those that need no escaping in a URL path. */
const PLAIN_ID = /^[A-Za-z0-9._-]{1,200}$/;

/**
 * The object key of the value `h` of partition `pk`: `runs/<runId>/<h>` for a run's values, so a
 * run's objects are listed by its prefix (a run id with other characters is named by its SHA-256,
 * `runs/#<hex>/`… would need escaping, so `runs/~<hex>/`); `other/<sha256 of pk>/<h>` for the
 * rest (idempotency records' bodies).
 */
export function objectKey(pk: string, h: string, prefix = ''): string {
  const runId = pk.startsWith('RUN#') ? pk.slice(4) : undefined;
  if (runId !== undefined) return `${prefix}runs/${runFolder(runId)}/${h}`;
  return `${prefix}other/${sha256Hex(pk)}/${h}`;
}

/** The folder of a run's objects (the prefix `runs/<folder>/` lists them). */
export function runFolder(runId: string): string {
  return PLAIN_ID.test(runId) ? runId : `~${sha256Hex(runId)}`;
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
