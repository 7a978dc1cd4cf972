/**
 * The checkpoint token and execution ARN of the Lambda-shaped routes. A token carries all an API
 * container needs to serve a checkpoint with no session kept in memory: the run, the fence and
 * the secret lease token of the invocation it was issued to, and a sequence number. Every call
 * checks it against the stored run (the lease must still be that invocation's, and live), so a
 * token outlives neither its invocation nor a newer one taking the run; the store's fenced write
 * is the final guard.
 */
import { executionOfArn as parseExecutionArn } from '@durable-lambda/protocol';
import { AwsRouteError } from './aws-routes-wire';

/** The execution ARN of a run (the protocol's, shared with our SDK and the AWS transport). */
export { executionArn } from '@durable-lambda/protocol';

/** What a checkpoint token says. */
export interface CheckpointTokenClaims {
  runId: string;
  /** The fence of the invocation's lease. */
  fence: number;
  /** The lease token the invocation took (a random secret: it makes the token unguessable). */
  leaseToken: string;
  /** Grows by one at every checkpoint (AWS's SDK expects a new token each time). */
  seq: number;
}

const PREFIX = 'dlc1.';

/** Encodes a checkpoint token. */
export function encodeCheckpointToken(claims: CheckpointTokenClaims): string {
  const body = JSON.stringify([claims.runId, claims.fence, claims.leaseToken, claims.seq]);
  return `${PREFIX}${Buffer.from(body, 'utf8').toString('base64url')}`;
}

const invalidToken = (why: string) =>
  // AWS's SDK reads this exact type and prefix as "this invocation is over", not the run.
  new AwsRouteError(400, 'InvalidParameterValueException', `Invalid Checkpoint Token: ${why}`);

/** Decodes a checkpoint token; an unreadable one is refused as an invalid checkpoint token. */
export function decodeCheckpointToken(token: unknown): CheckpointTokenClaims {
  if (typeof token !== 'string' || token === '') throw invalidToken('CheckpointToken is required');
  if (!token.startsWith(PREFIX)) throw invalidToken('not a token this backend issued');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token.slice(PREFIX.length), 'base64url').toString('utf8'));
  } catch {
    throw invalidToken('not a token this backend issued');
  }
  if (!Array.isArray(parsed) || parsed.length !== 4) throw invalidToken('not a token this backend issued');
  const [runId, fence, leaseToken, seq] = parsed as unknown[];
  if (
    typeof runId !== 'string' ||
    typeof leaseToken !== 'string' ||
    !Number.isSafeInteger(fence) ||
    !Number.isSafeInteger(seq)
  ) {
    throw invalidToken('not a token this backend issued');
  }
  return { runId, fence: fence as number, leaseToken, seq: seq as number };
}

/**
 * The run an execution ARN names, and the incarnation when it names one (see the protocol's
 * `executionArn`, the one form our SDK, the AWS transport and these routes share); a bare run id
 * is accepted too.
 */
export function executionOfArn(arn: string): { runId: string; incarnation?: string } {
  const execution = arn.includes(ARN_MARK) ? parseExecutionArn(arn) : arn === '' ? undefined : { runId: arn };
  if (!execution) {
    throw new AwsRouteError(400, 'InvalidParameterValueException', 'DurableExecutionArn: names no execution');
  }
  return execution;
}

const ARN_MARK = '/durable-execution/';

/** The run id an execution ARN names; a bare run id is accepted too. */
export function runIdOfArn(arn: string): string {
  return executionOfArn(arn).runId;
}

/**
 * Whether `run` is the execution an ARN names: its run, and its incarnation when the ARN names
 * one (an ARN of an execution that expired names a run created anew under its id no more).
 */
export function namesExecution(
  execution: { runId: string; incarnation?: string },
  run: { runId: string; incarnation?: string },
): boolean {
  return (
    execution.runId === run.runId && (execution.incarnation === undefined || execution.incarnation === run.incarnation)
  );
}
