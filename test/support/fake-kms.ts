/**
 * An in-process KMS for tests, over HTTP so the light client's signing and errors run for real.
 * It keeps the semantics the envelope codec relies on (KMS API reference): JSON 1.1,
 * `X-Amz-Target: TrentService.GenerateDataKey | Decrypt`; GenerateDataKey with `KeySpec` AES_256
 * answers a fresh 32-byte `Plaintext` and an opaque `CiphertextBlob` bound to the
 * `EncryptionContext`; Decrypt answers the plaintext only with the same context
 * (`InvalidCiphertextException` otherwise, as for a blob it did not make), `IncorrectKeyException`
 * when `KeyId` names another key, `NotFoundException` for an unknown key, `DisabledException` for a
 * disabled one, `AccessDeniedException` for a caller (access key id) not allowed the operation,
 * `ThrottlingException` (400) when told to throttle. Counts requests per operation.
 */
import { createCipheriv, createDecipheriv, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

interface FakeKey {
  arn: string;
  material: Buffer;
  enabled: boolean;
}

type Operation = 'GenerateDataKey' | 'Decrypt';

export class FakeKms {
  readonly calls: Record<Operation, number> = { GenerateDataKey: 0, Decrypt: 0 };
  private readonly keys = new Map<string, FakeKey>();
  /** Access key ids refused an operation. */
  private readonly denied = new Map<string, Set<Operation>>();
  private server: Server | undefined;
  private throttles = 0;

  /** The next `n` requests answer 400 `ThrottlingException` without acting, as KMS over its quota does. */
  throttleNext(n: number): void {
    this.throttles = n;
  }

  /** Makes an enabled symmetric key; its ARN. */
  createKey(): string {
    const id = randomUUID();
    const arn = `arn:aws:kms:us-east-1:111122223333:key/${id}`;
    const key = { arn, material: randomBytes(32), enabled: true };
    this.keys.set(arn, key);
    this.keys.set(id, key);
    return arn;
  }

  /** Disables (or enables) a key. */
  setEnabled(arn: string, enabled: boolean): void {
    const key = this.keys.get(arn);
    if (key) key.enabled = enabled;
  }

  /** Refuses `operation` to callers signing with `accessKeyId` (their policy lacks it). */
  deny(accessKeyId: string, operation: Operation): void {
    const set = this.denied.get(accessKeyId) ?? new Set<Operation>();
    set.add(operation);
    this.denied.set(accessKeyId, set);
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (part: Buffer) => parts.push(part));
      req.on('end', () => this.answer(req, res, Buffer.concat(parts).toString('utf8')));
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  private answer(req: IncomingMessage, res: ServerResponse, body: string): boolean {
    const send = (status: number, payload: Record<string, unknown>): boolean => {
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify(payload));
      return true;
    };
    const fail = (type: string, message: string) => send(400, { __type: type, message });
    const operation = String(req.headers['x-amz-target'] ?? '').replace('TrentService.', '') as Operation;
    const accessKeyId = /Credential=([^/]+)\//.exec(String(req.headers.authorization ?? ''))?.[1];
    if (!accessKeyId)
      return fail('UnrecognizedClientException', 'The security token included in the request is invalid.');
    if (operation !== 'GenerateDataKey' && operation !== 'Decrypt') return fail('UnknownOperationException', operation);
    this.calls[operation] += 1;
    if (this.throttles > 0) {
      this.throttles -= 1;
      return fail('ThrottlingException', 'Rate exceeded');
    }
    if (this.denied.get(accessKeyId)?.has(operation)) {
      return fail('AccessDeniedException', `User is not authorized to perform: kms:${operation}`);
    }
    const input = JSON.parse(body || '{}') as Record<string, unknown>;
    const context = canonical(input.EncryptionContext);
    if (operation === 'GenerateDataKey') {
      const key = this.keys.get(String(input.KeyId ?? ''));
      if (!key) return fail('NotFoundException', `Key '${String(input.KeyId)}' does not exist`);
      if (!key.enabled) return fail('DisabledException', `${key.arn} is disabled.`);
      if (input.KeySpec !== 'AES_256' && input.KeySpec !== 'AES_128' && input.NumberOfBytes === undefined) {
        return fail('ValidationException', 'KeySpec or NumberOfBytes is required');
      }
      const plaintext = randomBytes(input.KeySpec === 'AES_128' ? 16 : Number(input.NumberOfBytes ?? 32));
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key.material, iv);
      cipher.setAAD(Buffer.from(context));
      const sealed = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
      const blob = Buffer.from(JSON.stringify({ k: key.arn, iv: iv.toString('base64'), c: sealed.toString('base64') }));
      return send(200, {
        KeyId: key.arn,
        Plaintext: plaintext.toString('base64'),
        CiphertextBlob: blob.toString('base64'),
      });
    }
    let parsed: { k: string; iv: string; c: string };
    try {
      parsed = JSON.parse(Buffer.from(String(input.CiphertextBlob ?? ''), 'base64').toString('utf8'));
    } catch {
      return fail('InvalidCiphertextException', '');
    }
    const key = this.keys.get(parsed.k);
    if (!key) return fail('InvalidCiphertextException', '');
    if (input.KeyId !== undefined && this.keys.get(String(input.KeyId))?.arn !== key.arn) {
      return fail(
        'IncorrectKeyException',
        'The key ID in the request does not identify a CMK that can perform this operation.',
      );
    }
    if (!key.enabled) return fail('DisabledException', `${key.arn} is disabled.`);
    try {
      const sealed = Buffer.from(parsed.c, 'base64');
      const decipher = createDecipheriv('aes-256-gcm', key.material, Buffer.from(parsed.iv, 'base64'));
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(sealed.subarray(sealed.length - 16));
      const plaintext = Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - 16)), decipher.final()]);
      return send(200, { KeyId: key.arn, Plaintext: plaintext.toString('base64') });
    } catch {
      return fail('InvalidCiphertextException', '');
    }
  }
}

/** An encryption context in one canonical form (KMS binds the exact key-value pairs, in any order). */
function canonical(context: unknown): string {
  const entries = Object.entries((context ?? {}) as Record<string, string>).sort(([a], [b]) => (a < b ? -1 : 1));
  return JSON.stringify(entries);
}
