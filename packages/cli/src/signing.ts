import * as awsPackage from '@durable-lambda/aws';
import { type CommandLine, stringOption } from './args';
import { CliError } from './cli-error';
import type { CliIo } from './io';
import { UsageError } from './usage';

/**
 * Signing cannot be set up (no credentials, `@durable-lambda/aws` missing): one line, exit 2.
 * The message names what to do. Code `signing_unavailable`.
 */
export class SigningSetupError extends CliError<'signing_unavailable'> {
  /** Stable code. */
  readonly code = 'signing_unavailable';
  constructor(message: string) {
    super(message);
    this.name = 'SigningSetupError';
  }
}

/** The region of a Lambda Function URL host (`<id>.lambda-url.<region>.on.aws`), else undefined. */
export function functionUrlRegion(url: string): string | undefined {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
  return /^[a-z0-9]+\.lambda-url\.([a-z0-9-]+)\.on\.aws$/.exec(host)?.[1];
}

/** Whether requests to `url` are signed: a Function URL always, any URL with `--sign` or `DURABLE_SIGN=1`. */
export function signingWanted(url: string, line: CommandLine, env: CliIo['env']): boolean {
  return functionUrlRegion(url) !== undefined || line.options.sign === true || env.DURABLE_SIGN === '1';
}

/** `--region`, else the Function URL's, else `AWS_REGION` / `AWS_DEFAULT_REGION`. */
export function signingRegion(url: string, line: CommandLine, env: CliIo['env']): string {
  const region =
    stringOption(line, 'region') ?? functionUrlRegion(url) ?? (env.AWS_REGION || env.AWS_DEFAULT_REGION || undefined);
  if (region === undefined) {
    throw new UsageError(
      `--region: needed to sign requests to ${new URL(url).host} (not a Function URL), or set AWS_REGION`,
    );
  }
  if (!/^[a-z0-9-]+$/.test(region)) throw new UsageError(`--region: not a region: ${region}`);
  return region;
}

/** What the CLI uses of `@durable-lambda/aws` (loaded only to sign). */
interface AwsSigning {
  createSignedFetch(options: {
    region: string;
    credentials?: () => Promise<unknown>;
    fetch?: typeof fetch;
  }): typeof fetch;
  defaultCredentials(): () => Promise<unknown>;
}

/** `@durable-lambda/aws`, what signs (a dependency of this package; a test hands `cliFetch` another). */
export async function loadAwsPackage(): Promise<unknown> {
  return awsPackage;
}

/**
 * The fetch the CLI sends requests with: `io.fetch` (or the global one), signed with SigV4 for
 * service `lambda` when {@link signingWanted}. Credentials: `AWS_ACCESS_KEY_ID` and
 * `AWS_SECRET_ACCESS_KEY` (and `AWS_SESSION_TOKEN`) of the CLI's environment, else the AWS SDK's
 * default chain (profiles, SSO, ...). They are resolved once here, so missing credentials are one
 * clear line before any request rather than retried network errors.
 */
export async function cliFetch(
  url: string,
  line: CommandLine,
  io: CliIo,
  load: () => Promise<unknown> = loadAwsPackage,
): Promise<typeof fetch | undefined> {
  if (!signingWanted(url, line, io.env)) return io.fetch;
  const region = signingRegion(url, line, io.env);
  let aws: AwsSigning;
  try {
    aws = (await load()) as AwsSigning;
  } catch (error) {
    throw new SigningSetupError(
      `signing requests to ${new URL(url).host} needs the package @durable-lambda/aws, which could not be loaded (${(error as Error).message}): npm install @durable-lambda/aws`,
    );
  }
  if (typeof aws?.createSignedFetch !== 'function') {
    throw new SigningSetupError(
      'this version of @durable-lambda/aws cannot sign requests (no createSignedFetch); update it',
    );
  }
  const { AWS_ACCESS_KEY_ID: keyId, AWS_SECRET_ACCESS_KEY: secret, AWS_SESSION_TOKEN: token } = io.env;
  const fromEnv =
    keyId && secret
      ? { accessKeyId: keyId, secretAccessKey: secret, ...(token ? { sessionToken: token } : {}) }
      : undefined;
  const credentials = fromEnv ? async () => fromEnv : aws.defaultCredentials();
  try {
    await credentials();
  } catch (error) {
    throw new SigningSetupError(error instanceof Error ? error.message : String(error));
  }
  return aws.createSignedFetch({ region, credentials, ...(io.fetch ? { fetch: io.fetch } : {}) });
}
