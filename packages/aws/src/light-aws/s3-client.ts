/**
 * A light S3 client for the payload bucket: PutObject, GetObject and DeleteObject of one bucket,
 * signed with SigV4 from node:crypto (no AWS SDK on the hot path). Keys must be made of
 * characters that need no escaping in a path (`payload-objects.ts` makes them so).
 */
import {
  AwsServiceError,
  configuredEndpoint,
  type LightAwsOptions,
  LightAwsRequester,
  serviceEndpoint,
} from './signed-request';

/** Options of a {@link LightS3Client}. */
export interface LightS3ClientOptions extends LightAwsOptions {
  /** The bucket. */
  bucket: string;
}

/** Attempts at a PutObject S3 answers with `RequestTimeout`. */
const REQUEST_TIMEOUT_ATTEMPTS = 3;

/** S3's largest object key, bytes (UTF-8). */
export const MAX_S3_KEY_BYTES = 1024;

/** The code and message of an S3 XML error body. */
function s3Error(status: number, body: Uint8Array): AwsServiceError {
  const text = Buffer.from(body).toString('utf8');
  const code = /<Code>([^<]*)<\/Code>/.exec(text)?.[1] ?? `Http${status}`;
  const message = /<Message>([^<]*)<\/Message>/.exec(text)?.[1] ?? text.slice(0, 200);
  return new AwsServiceError(code, status, message);
}

/** The light S3 client of one bucket. */
export class LightS3Client {
  readonly bucket: string;
  private readonly requester: LightAwsRequester;
  /** Path-style (`/<bucket>/<key>`) when an endpoint is given (a local fake), else virtual-hosted. */
  private readonly pathStyle: boolean;

  constructor(options: LightS3ClientOptions) {
    const region = options.region?.trim();
    if (!region) throw new TypeError('LightS3Client: region is required (for example eu-west-1)');
    if (!options.bucket?.trim()) throw new TypeError('LightS3Client: bucket is required');
    this.bucket = options.bucket.trim();
    const configured = configuredEndpoint('s3', options);
    this.pathStyle = configured !== undefined;
    const endpoint = this.pathStyle
      ? serviceEndpoint('s3', region, configured)
      : new URL(`https://${this.bucket}.${serviceEndpoint('s3', region).host}`);
    this.requester = new LightAwsRequester('s3', region, endpoint, options);
  }

  private path(key: string): string {
    if (Buffer.byteLength(key, 'utf8') > MAX_S3_KEY_BYTES) {
      throw new TypeError(`key: at most ${MAX_S3_KEY_BYTES} bytes, got ${Buffer.byteLength(key, 'utf8')}`);
    }
    return this.pathStyle ? `/${this.bucket}/${key}` : `/${key}`;
  }

  /** PutObject: stores `body` under `key` (replacing what was there: a retried put is harmless). */
  async put(key: string, body: Uint8Array): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const answer = await this.requester.request({
        method: 'PUT',
        path: this.path(key),
        headers: { 'content-type': 'application/octet-stream', 'content-length': String(body.length) },
        body,
      });
      if (answer.status === 200) return;
      const error = s3Error(answer.status, answer.body);
      // S3 answers an upload it waited too long for with a 400 `RequestTimeout`: send it again.
      if (error.code !== 'RequestTimeout' || attempt >= REQUEST_TIMEOUT_ATTEMPTS) throw error;
    }
  }

  /** GetObject: the object's bytes, or undefined when S3 answers 404 `NoSuchKey`. */
  async get(key: string): Promise<Uint8Array | undefined> {
    const answer = await this.requester.request({ method: 'GET', path: this.path(key) });
    if (answer.status === 200) return answer.body;
    const error = s3Error(answer.status, answer.body);
    if (answer.status === 404 && error.code === 'NoSuchKey') return undefined;
    throw error;
  }

  /** DeleteObject: removes the object (S3 answers 204 whether or not it existed). */
  async delete(key: string): Promise<void> {
    const answer = await this.requester.request({ method: 'DELETE', path: this.path(key) });
    if (answer.status !== 204 && answer.status !== 200) throw s3Error(answer.status, answer.body);
  }
}
