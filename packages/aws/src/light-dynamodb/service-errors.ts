/**
 * DynamoDB's errors as the light client throws them, shaped like the AWS SDK's as far as anyone
 * reads them: `name` (the error type, `ConditionalCheckFailedException`, …), `message`, `$fault`,
 * `$metadata` (status, request id, attempts, total retry delay) and the error's own fields from
 * the answer (`Item` of a refused conditional write, `CancellationReasons` of a cancelled
 * transaction), attribute values left as DynamoDB sent them with binary as bytes, exactly what
 * lib-dynamodb leaves in its errors. And which of them the SDK's standard retry mode retries.
 */
import { wireItemWithBytes } from './attribute-values';

/** What the AWS SDK puts in `$metadata`. */
export interface ResponseMetadata {
  httpStatusCode?: number;
  requestId?: string;
  extendedRequestId?: string;
  cfId?: string;
  attempts?: number;
  totalRetryDelay?: number;
}

/** An error DynamoDB answered with (`name` is its type). */
export class DynamoDbServiceError extends Error {
  /** `client` (4xx) or `server` (5xx), as the SDK says it. */
  readonly $fault: 'client' | 'server';
  readonly $metadata: ResponseMetadata;
  /** Set for an error the service marks retryable (as the SDK's error classes do). */
  readonly $retryable?: { throttling?: boolean };
  /** The error's own fields from the answer (`Item`, `CancellationReasons`, …). */
  [field: string]: unknown;

  constructor(name: string, message: string, status: number, metadata: ResponseMetadata, fields: object = {}) {
    super(message);
    Object.assign(this, fields);
    this.name = name;
    this.$fault = status >= 500 ? 'server' : 'client';
    this.$metadata = metadata;
    if (RETRYABLE_BY_TRAIT.has(name)) this.$retryable = {};
  }
}

/** DynamoDB's errors modelled as retryable (`@aws-sdk/client-dynamodb` gives them `$retryable`). */
const RETRYABLE_BY_TRAIT = new Set(['ReplicatedWriteConflictException']);

/** The error of an HTTP answer that is not a success, from its status, headers and JSON body. */
export function serviceError(
  status: number,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  text: string,
): DynamoDbServiceError {
  let body: Record<string, unknown> = {};
  try {
    const parsed = text ? (JSON.parse(text) as unknown) : {};
    if (parsed !== null && typeof parsed === 'object') body = parsed as Record<string, unknown>;
  } catch {
    // Not JSON (a proxy's page, a truncated answer): the status says what it was.
  }
  const header = headers['x-amzn-errortype'];
  const rawType = (typeof header === 'string' ? header.split(':')[0] : undefined) || body.__type || body.code;
  const type = typeof rawType === 'string' ? (rawType.split('#').pop() ?? rawType) : undefined;
  const { __type: _type, message, Message, code: _code, ...fields } = body;
  if (fields.Item !== undefined) fields.Item = wireItemWithBytes(fields.Item);
  if (Array.isArray(fields.CancellationReasons)) {
    fields.CancellationReasons = fields.CancellationReasons.map((reason: Record<string, unknown>) =>
      reason?.Item === undefined ? reason : { ...reason, Item: wireItemWithBytes(reason.Item) },
    );
  }
  const said = typeof message === 'string' ? message : typeof Message === 'string' ? Message : undefined;
  const name = type || (status >= 500 ? 'InternalServerError' : 'UnknownError');
  return new DynamoDbServiceError(
    name,
    said ?? `DynamoDB answered ${status}`,
    status,
    metadataOf(status, headers),
    fields,
  );
}

/** The SDK's `$metadata` of an answer. */
export function metadataOf(
  status: number,
  headers: Readonly<Record<string, string | string[] | undefined>>,
): ResponseMetadata {
  const header = (name: string) => {
    const value = headers[name];
    return typeof value === 'string' ? value : undefined;
  };
  const metadata: ResponseMetadata = { httpStatusCode: status };
  const requestId = header('x-amzn-requestid') ?? header('x-amz-request-id');
  if (requestId !== undefined) metadata.requestId = requestId;
  const extended = header('x-amz-id-2');
  if (extended !== undefined) metadata.extendedRequestId = extended;
  const cfId = header('x-amz-cf-id');
  if (cfId !== undefined) metadata.cfId = cfId;
  return metadata;
}

/** Error types the SDK retries as throttling. */
const THROTTLING = new Set([
  'BandwidthLimitExceeded',
  'EC2ThrottledException',
  'LimitExceededException',
  'PriorRequestNotComplete',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestThrottledException',
  'SlowDown',
  'ThrottledException',
  'Throttling',
  'ThrottlingException',
  'TooManyRequestsException',
  'TransactionInProgressException',
]);
/** Error types, statuses and Node.js error codes the SDK retries as transient. */
const TRANSIENT = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException']);
const TRANSIENT_STATUS = new Set([500, 502, 503, 504]);
const TRANSIENT_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** How the SDK's standard retry mode classifies an error: only `throttling` and `transient` are retried. */
export type ErrorKind = 'throttling' | 'transient' | 'other';

interface ErrorLike {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  cause?: unknown;
  $metadata?: ResponseMetadata;
  $retryable?: { throttling?: boolean };
}

/** The kind of `error` (`@smithy/core`'s `isThrottlingError` and `isTransientError`, without clock skew). */
export function errorKind(error: unknown): ErrorKind {
  const e = (error ?? {}) as ErrorLike;
  if (e.$metadata?.httpStatusCode === 429 || THROTTLING.has(String(e.name)) || e.$retryable?.throttling === true) {
    return 'throttling';
  }
  return isTransient(e, 0) ? 'transient' : 'other';
}

function isTransient(e: ErrorLike, depth: number): boolean {
  if (e.name === 'AbortError') return false;
  return (
    e.$retryable !== undefined ||
    TRANSIENT.has(String(e.name)) ||
    (e.name === 'InvalidSignatureException' && String(e.message).includes('Signature expired')) ||
    TRANSIENT_CODES.has(String(e.code ?? '')) ||
    TRANSIENT_STATUS.has(e.$metadata?.httpStatusCode ?? 0) ||
    (e.cause !== null && typeof e.cause === 'object' && depth < 10 && isTransient(e.cause as ErrorLike, depth + 1))
  );
}
