/**
 * Envelope encryption of payloads with a customer's KMS key: the engine's `PayloadCodec` (see
 * `sealedStore`). A run's payloads are encrypted in the process that writes them with AES-256-GCM
 * (node:crypto) under a data key from KMS GenerateDataKey, bound by its encryption context to the
 * run (`{"durable-lambda:run": <runId>}`); the data key's KMS blob rides with each value. Reading
 * needs kms:Decrypt on the key: a table, chunk or object read without it is ciphertext.
 *
 * KMS requests: a data key is generated once per run and process and reused (bounded: at most
 * `maxKeys` runs' keys held, each for at most `maxKeyAgeMs`); a blob is decrypted once per process
 * and reused the same way, and a run's key opened on replay is the key its next values are sealed
 * with, so a warm container resuming a run calls KMS not at all, a cold one once (a Decrypt).
 *
 * Sealing is deterministic for one data key (the GCM nonce is an HMAC of the run and the text,
 * under a key derived from the data key: a synthetic IV), so a write sent again after a lost
 * response writes the same value. Equal payloads of one run under one data key give equal
 * ciphertexts; nothing else is revealed.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync } from 'node:crypto';
import type { PayloadCodec } from '@durable-lambda/engine';
import { AwsError } from './aws-error';
import type { KmsDataKeys } from './light-aws/kms-client';

/** Marks a sealed payload: `dlkms1.<blob>.<iv>.<ciphertext and tag>`, base64url each. */
export const SEALED_PREFIX = 'dlkms1.';
/** The encryption-context key naming the run. */
export const RUN_CONTEXT_KEY = 'durable-lambda:run';

/** Options of a {@link KmsEnvelopeCodec}. */
export interface KmsEnvelopeCodecOptions {
  /** KMS, through the light client (`LightKmsClient`) or a fake. */
  kms: KmsDataKeys;
  /** The key's ARN (or id, or alias ARN) data keys are generated under. */
  keyId: string;
  /** Data keys held at once (runs sealing, blobs opened). Default 1,000. */
  maxKeys?: number;
  /** How long a data key is used and kept, ms. Default one hour. */
  maxKeyAgeMs?: number;
  /** The clock of the bound. Default `Date.now`. */
  now?: () => number;
}

/** A payload that cannot be opened: not this codec's format, the wrong run, or a key refused. */
export class PayloadSealError extends AwsError<'payload_unreadable'> {
  /** Stable code. */
  readonly code = 'payload_unreadable';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PayloadSealError';
  }
}

interface HeldKey {
  enc: Buffer;
  mac: Buffer;
  blob: string;
  at: number;
}

const b64 = (data: Uint8Array) => Buffer.from(data).toString('base64url');

function derive(plaintext: Uint8Array, blob: string, at: number): HeldKey {
  const key = Buffer.from(plaintext);
  const enc = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'durable-lambda payload enc', 32));
  const mac = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'durable-lambda payload iv', 32));
  return { enc, mac, blob, at };
}

/** A map that forgets its oldest entry past `max`, and entries older than `maxAge`. */
class Bounded<V extends { at: number }> {
  private readonly map = new Map<string, V>();
  constructor(
    private readonly max: number,
    private readonly maxAge: number,
    private readonly now: () => number,
  ) {}
  get(key: string): V | undefined {
    const value = this.map.get(key);
    if (value && this.now() - value.at >= this.maxAge) {
      this.map.delete(key);
      return undefined;
    }
    return value;
  }
  set(key: string, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    while (this.map.size > this.max) this.map.delete(this.map.keys().next().value as string);
  }
}

/** The KMS envelope codec (see the file's comment). */
export class KmsEnvelopeCodec implements PayloadCodec {
  private readonly kms: KmsDataKeys;
  private readonly keyId: string;
  private readonly now: () => number;
  /** The key each run's new values are sealed with. */
  private readonly sealing: Bounded<HeldKey>;
  /** Opened keys by blob. */
  private readonly opened: Bounded<HeldKey>;
  /** Requests in flight, so concurrent seals of one run generate one key. */
  private readonly pending = new Map<string, Promise<HeldKey>>();

  constructor(options: KmsEnvelopeCodecOptions) {
    if (!options.keyId?.trim()) throw new TypeError('keyId: the KMS key ARN, id or alias is required');
    this.kms = options.kms;
    this.keyId = options.keyId.trim();
    this.now = options.now ?? Date.now;
    const max = options.maxKeys ?? 1_000;
    const age = options.maxKeyAgeMs ?? 60 * 60 * 1000;
    if (!Number.isInteger(max) || max < 1) throw new TypeError(`maxKeys: a whole number, at least 1; got ${max}`);
    this.sealing = new Bounded(max, age, this.now);
    this.opened = new Bounded(max, age, this.now);
  }

  private context(runId: string): Record<string, string> {
    return { [RUN_CONTEXT_KEY]: runId };
  }

  private async sealingKey(runId: string): Promise<HeldKey> {
    const held = this.sealing.get(runId);
    if (held) return held;
    const inFlight = this.pending.get(`s ${runId}`);
    if (inFlight) return inFlight;
    const made = this.kms.generateDataKey(this.keyId, this.context(runId)).then((key) => {
      const derived = derive(key.plaintext, b64(key.ciphertextBlob), this.now());
      this.sealing.set(runId, derived);
      this.opened.set(`${runId} ${derived.blob}`, derived);
      return derived;
    });
    this.pending.set(`s ${runId}`, made);
    try {
      return await made;
    } finally {
      this.pending.delete(`s ${runId}`);
    }
  }

  private async openingKey(runId: string, blob: string): Promise<HeldKey> {
    const id = `${runId} ${blob}`;
    const held = this.opened.get(id);
    if (held) return held;
    const inFlight = this.pending.get(`o ${id}`);
    if (inFlight) return inFlight;
    const made = this.kms
      .decrypt(Buffer.from(blob, 'base64url'), this.context(runId), this.keyId)
      .then((plaintext) => {
        const derived = derive(plaintext, blob, this.now());
        this.opened.set(id, derived);
        // The run's next values are sealed under the key it already has: no GenerateDataKey.
        if (!this.sealing.get(runId)) this.sealing.set(runId, derived);
        return derived;
      })
      .catch((error: unknown) => {
        throw new PayloadSealError(`run ${runId}: KMS refused the payload's data key (${(error as Error).message})`, {
          cause: error,
        });
      });
    this.pending.set(`o ${id}`, made);
    try {
      return await made;
    } finally {
      this.pending.delete(`o ${id}`);
    }
  }

  async seal(runId: string, text: string): Promise<string> {
    const key = await this.sealingKey(runId);
    const aad = Buffer.from(`${RUN_CONTEXT_KEY}=${runId}`, 'utf8');
    const plain = Buffer.from(text, 'utf8');
    const iv = createHmac('sha256', key.mac).update(aad).update('\0').update(plain).digest().subarray(0, 12);
    const cipher = createCipheriv('aes-256-gcm', key.enc, iv);
    cipher.setAAD(aad);
    const body = Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return `${SEALED_PREFIX}${key.blob}.${b64(iv)}.${b64(body)}`;
  }

  async open(runId: string, stored: string): Promise<string> {
    if (!stored.startsWith(SEALED_PREFIX)) return stored;
    const [blob, iv, body] = stored.slice(SEALED_PREFIX.length).split('.');
    if (!blob || !iv || !body) throw new PayloadSealError(`run ${runId}: a sealed payload is malformed`);
    const key = await this.openingKey(runId, blob);
    const bytes = Buffer.from(body, 'base64url');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key.enc, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(`${RUN_CONTEXT_KEY}=${runId}`, 'utf8'));
      decipher.setAuthTag(bytes.subarray(bytes.length - 16));
      return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString('utf8');
    } catch (error) {
      throw new PayloadSealError(`run ${runId}: a sealed payload failed its integrity check`, { cause: error });
    }
  }
}
