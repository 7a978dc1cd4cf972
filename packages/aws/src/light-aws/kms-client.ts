/**
 * A light KMS client: GenerateDataKey and Decrypt in KMS's JSON protocol (`X-Amz-Target:
 * TrentService.<Op>`, `application/x-amz-json-1.1`), signed with SigV4 from node:crypto, so the
 * envelope codec costs a function no AWS SDK load.
 */
import {
  AwsServiceError,
  configuredEndpoint,
  type LightAwsOptions,
  LightAwsRequester,
  serviceEndpoint,
} from './signed-request';

/** A data key as GenerateDataKey returns it. */
export interface DataKey {
  /** The key itself (32 bytes for AES-256): keep in memory only. */
  plaintext: Uint8Array;
  /** The key encrypted under the KMS key, bound to the encryption context: safe to store. */
  ciphertextBlob: Uint8Array;
}

/** What the envelope codec asks of KMS (the light client, or a fake keeping KMS's semantics). */
export interface KmsDataKeys {
  /** GenerateDataKey (AES_256) under `keyId`, bound to `context`. */
  generateDataKey(keyId: string, context: Record<string, string>): Promise<DataKey>;
  /** Decrypt of a data key's blob; fails unless `context` is the one it was generated with. */
  decrypt(ciphertextBlob: Uint8Array, context: Record<string, string>, keyId?: string): Promise<Uint8Array>;
}

const TARGET = 'TrentService';
/** Attempts at a request KMS throttles. */
const THROTTLE_ATTEMPTS = 5;

/** The light KMS client. */
export class LightKmsClient implements KmsDataKeys {
  private readonly requester: LightAwsRequester;

  constructor(options: LightAwsOptions) {
    const region = options.region?.trim();
    if (!region) throw new TypeError('LightKmsClient: region is required (for example eu-west-1)');
    this.requester = new LightAwsRequester(
      'kms',
      region,
      serviceEndpoint('kms', region, configuredEndpoint('kms', options)),
      options,
    );
  }

  /**
   * One request; KMS answers a throttle as a 400 `ThrottlingException` (5xx answers are retried
   * by the requester), so it is sent again here, a few times with backoff.
   */
  private async call(operation: string, input: Record<string, unknown>): Promise<Record<string, unknown>> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.callOnce(operation, input);
      } catch (error) {
        const throttled = error instanceof AwsServiceError && error.code === 'ThrottlingException';
        if (!throttled || attempt >= THROTTLE_ATTEMPTS) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 100 * 2 ** attempt));
      }
    }
  }

  private async callOnce(operation: string, input: Record<string, unknown>): Promise<Record<string, unknown>> {
    const body = Buffer.from(JSON.stringify(input), 'utf8');
    const answer = await this.requester.request({
      method: 'POST',
      path: '/',
      headers: {
        'content-type': 'application/x-amz-json-1.1',
        'content-length': String(body.length),
        'x-amz-target': `${TARGET}.${operation}`,
      },
      body,
    });
    const text = Buffer.from(answer.body).toString('utf8');
    const parsed = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
    if (answer.status === 200) return parsed;
    const type = String(parsed.__type ?? `Http${answer.status}`);
    const message = String(parsed.message ?? parsed.Message ?? text.slice(0, 200));
    throw new AwsServiceError(type.slice(type.lastIndexOf('#') + 1), answer.status, message);
  }

  async generateDataKey(keyId: string, context: Record<string, string>): Promise<DataKey> {
    const out = await this.call('GenerateDataKey', { KeyId: keyId, KeySpec: 'AES_256', EncryptionContext: context });
    return {
      plaintext: Buffer.from(String(out.Plaintext), 'base64'),
      ciphertextBlob: Buffer.from(String(out.CiphertextBlob), 'base64'),
    };
  }

  async decrypt(ciphertextBlob: Uint8Array, context: Record<string, string>, keyId?: string): Promise<Uint8Array> {
    const out = await this.call('Decrypt', {
      CiphertextBlob: Buffer.from(ciphertextBlob).toString('base64'),
      EncryptionContext: context,
      ...(keyId ? { KeyId: keyId } : {}),
    });
    return Buffer.from(String(out.Plaintext), 'base64');
  }
}
