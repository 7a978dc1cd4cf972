/**
 * The production backend's own errors (configuration, credentials, AWS SDK loading, the DynamoDB
 * store's chunked items) share one base and one list of codes. DynamoDB's answers keep the AWS
 * SDK's shape (`DynamoDbServiceError`, named by their exception type, no code of ours), and the
 * invoker's `FunctionNotFoundError` is the engine's.
 */

/** Every stable code an {@link AwsError} carries. A code never changes its meaning. */
export const AWS_ERROR_CODES = [
  'missing_configuration',
  'invalid_configuration',
  'no_aws_credentials',
  'aws_sdk_unavailable',
  'chunk_missing',
  // A sealed payload (KMS envelope codec) whose key KMS refused, or whose ciphertext fails its check.
  'payload_unreadable',
  // The DynamoDB store's own signals, caught where they are thrown (never leave the store): a commit
  // the run item refused while the run is still ours (`Refused`), a revision already written by
  // an earlier sending of it (`AlreadyRevised`).
  'commit_refused',
  'already_revised',
] as const;

/** One of {@link AWS_ERROR_CODES}. */
export type AwsErrorCode = (typeof AWS_ERROR_CODES)[number];

/** Base of the production backend's errors: each carries one stable {@link AwsErrorCode}. */
export abstract class AwsError<C extends AwsErrorCode = AwsErrorCode> extends Error {
  /** Stable code. */
  abstract readonly code: C;
}
