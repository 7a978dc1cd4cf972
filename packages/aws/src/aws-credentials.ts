/**
 * AWS credentials as the signed control-API fetch and the light DynamoDB client take them, and the
 * ones Lambda gives every function in its environment. No AWS SDK code.
 */

import { AwsError } from './aws-error';

/** AWS credentials: an access key, its secret and, for temporary ones, a session token. */
export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  /** When temporary credentials expire (the default chain refreshes them before). */
  readonly expiration?: Date;
}

/** Resolves credentials (each call may refresh them). */
export type AwsCredentialsProvider = () => Promise<AwsCredentials>;

/** No AWS credentials could be found to sign with (code `no_aws_credentials`). */
export class NoAwsCredentialsError extends AwsError<'no_aws_credentials'> {
  /** Stable code. */
  readonly code = 'no_aws_credentials';
  constructor(reason: string, options?: { cause?: unknown }) {
    super(
      `no AWS credentials found to sign requests with (${reason}): set AWS_PROFILE (and run "aws sso login" for an SSO profile) or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY`,
      options,
    );
    this.name = 'NoAwsCredentialsError';
  }
}

/**
 * The credentials in `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`, read at
 * each call (Lambda sets them for the function's role); a {@link NoAwsCredentialsError} when the
 * key or its secret is missing.
 */
export function environmentCredentials(
  env: Readonly<Record<string, string | undefined>> = process.env,
): AwsCredentials {
  const accessKeyId = env.AWS_ACCESS_KEY_ID?.trim();
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY?.trim();
  if (!accessKeyId || !secretAccessKey) {
    throw new NoAwsCredentialsError('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not both set');
  }
  const sessionToken = env.AWS_SESSION_TOKEN?.trim();
  return sessionToken ? { accessKeyId, secretAccessKey, sessionToken } : { accessKeyId, secretAccessKey };
}
