import { createHash } from 'node:crypto';
import { MAX_PAYLOAD_BYTES, PayloadTooLargeError } from '@durable-lambda/engine';
import { AwsError } from '../aws-error';
import { SEALED_PREFIX } from '../kms-envelope-codec';
import { CHUNK_PREFIX, chunkSk, PK, SK, TTL } from './layout';
import { OBJECT_PREFIX } from './payload-objects';

export { MAX_PAYLOAD_BYTES };

/** Where a field moved out of its item went: `n` chunk items of the set `h`, `b` bytes in all. */
export interface ChunkRef {
  h: string;
  n: number;
  b: number;
  /** The field was an object (an error) stored as JSON. */
  j?: boolean;
  /**
   * The value is one object in the payload bucket (`payload-objects.ts`, keyed by the run and
   * `h`), not chunk items; `n` is then 1.
   */
  o?: 1;
}

/** A chunk item as written. */
export interface ChunkItem {
  [PK]: string;
  [SK]: string;
  data: Uint8Array;
  [TTL]: number;
}

/** A field's value moved out into chunks. */
export interface SplitField {
  ref: ChunkRef;
  chunks: Uint8Array[];
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: false });

/** UTF-8 size of a string. */
export function utf8Bytes(value: string): number {
  return Buffer.byteLength(value, 'utf8');
}

/** Rough stored size of a value (its JSON), an upper bound good enough to budget items. */
export function approximateSize(value: unknown): number {
  return utf8Bytes(JSON.stringify(value) ?? '');
}

/**
 * Largest stored form of a payload sealed by the KMS envelope codec: base64 of at most
 * {@link MAX_PAYLOAD_BYTES} plus its header. The sealing store checks the payload as written
 * against the limit before sealing; this check only keeps a runaway value out.
 */
const MAX_SEALED_BYTES = Math.ceil((MAX_PAYLOAD_BYTES * 4) / 3) + 64 * 1024;

/** Throws `payload_too_large` when a field is over {@link MAX_PAYLOAD_BYTES} (sealed: its sealed form's). */
export function checkPayload(field: string, value: unknown): void {
  if (value === undefined || value === null) return;
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  const bytes = utf8Bytes(text);
  if (bytes <= MAX_PAYLOAD_BYTES) return;
  if (text.includes(SEALED_PREFIX) && bytes <= MAX_SEALED_BYTES) return;
  throw new PayloadTooLargeError(field, bytes, MAX_PAYLOAD_BYTES);
}

/**
 * Splits a string (or an object, as JSON) into chunks of at most `chunkBytes`, or, when it is
 * `objectBytes` or more (a payload bucket is configured), into one part bound for the bucket. The
 * set's id is a hash of the content: the same value always makes the same chunk items (and the
 * same object key), so writing them again is harmless and a value shared by two items (a run's
 * input and its EXECUTION operation's) is stored once.
 */
export function splitField(value: unknown, chunkBytes: number, objectBytes?: number): SplitField {
  const json = typeof value !== 'string';
  const bytes = encoder.encode(json ? JSON.stringify(value) : (value as string));
  const h = createHash('sha256')
    .update(json ? 'j' : 's')
    .update(bytes)
    .digest('base64url')
    .slice(0, 32);
  if (objectBytes !== undefined && bytes.length >= objectBytes) {
    return { ref: { h, n: 1, b: bytes.length, ...(json ? { j: true } : {}), o: 1 }, chunks: [bytes] };
  }
  const chunks: Uint8Array[] = [];
  for (let offset = 0; offset < bytes.length || chunks.length === 0; offset += chunkBytes) {
    chunks.push(bytes.subarray(offset, offset + chunkBytes));
  }
  return { ref: { h, n: chunks.length, b: bytes.length, ...(json ? { j: true } : {}) }, chunks };
}

/**
 * The chunk items of a split field, in partition `pk`. A value bound for the payload bucket is one
 * pending item under `OBJECT#<h>` that `TableAccess.writeChunks` puts in the bucket, never in the
 * table: every caller already writes chunks before the item that references them, so the object
 * gets the same order for free.
 */
export function chunkItems(pk: string, split: SplitField, ttl: number): ChunkItem[] {
  if (split.ref.o === 1) {
    return [{ [PK]: pk, [SK]: `${OBJECT_PREFIX}${split.ref.h}`, data: split.chunks[0] as Uint8Array, [TTL]: ttl }];
  }
  return split.chunks.map((data, index) => ({ [PK]: pk, [SK]: chunkSk(split.ref.h, index), data, [TTL]: ttl }));
}

/** A chunk set that is missing pieces: the item referencing it can't be read whole. */
export class ChunkMissingError extends AwsError<'chunk_missing'> {
  /** Stable code. */
  readonly code = 'chunk_missing';
  constructor(pk: string, ref: ChunkRef) {
    super(`${pk}: chunk set ${ref.h} is incomplete (expected ${ref.n} chunks, ${ref.b} bytes)`);
    this.name = 'ChunkMissingError';
  }
}

/** Chunk data read from the table, by chunk-set id then index. */
export class ChunkPool {
  private readonly sets = new Map<string, Map<number, Uint8Array>>();

  /** Keeps a chunk item read from the table. */
  add(item: Record<string, unknown>): void {
    const sk = item[SK] as string;
    const rest = sk.slice(CHUNK_PREFIX.length);
    const at = rest.lastIndexOf('#');
    const h = rest.slice(0, at);
    const index = Number(rest.slice(at + 1));
    const set = this.sets.get(h) ?? new Map<number, Uint8Array>();
    this.sets.set(h, set);
    set.set(index, item.data as Uint8Array);
  }

  /** Keeps a payload-bucket object read for the set `h` (its one part). */
  addObject(h: string, data: Uint8Array): void {
    this.sets.set(h, new Map([[0, data]]));
  }

  /** The value a reference names, joined; throws {@link ChunkMissingError} when incomplete. */
  join(pk: string, ref: ChunkRef): unknown {
    const set = this.sets.get(ref.h);
    const parts: Uint8Array[] = [];
    let total = 0;
    for (let i = 0; i < ref.n; i++) {
      const part = set?.get(i);
      if (!part) throw new ChunkMissingError(pk, ref);
      parts.push(part);
      total += part.length;
    }
    if (total !== ref.b) throw new ChunkMissingError(pk, ref);
    const text = decoder.decode(Buffer.concat(parts, total));
    return ref.j ? JSON.parse(text) : text;
  }
}
