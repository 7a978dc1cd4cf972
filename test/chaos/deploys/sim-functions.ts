/**
 * The parts of the simulated cloud that describe a deployment: a function's published versions,
 * its `live` alias and `$LATEST`, the container an invocation runs in, and the faults of the cloud.
 */
import type { LambdaContextLike } from '@durable-lambda/protocol';

export const ACCOUNT = '123456789012';
export const REGION = 'us-east-1';
export const unqualifiedArn = (name: string) => `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${name}`;

/** What one invocation runs on: the qualifier it was invoked with and the code behind it. */
export interface Container {
  /** The ARN it was invoked with. */
  arn: string;
  /** `live`, a version number, or `$LATEST` (an unqualified invoke). */
  invoked: string;
  /** The published version it runs (`lambdaContext.functionVersion`), or `$LATEST`. */
  version: string;
  /** The code's label (`v3`). */
  code: string;
}

/** A function's handler as the cloud invokes it, given the container it runs in. */
export type ContainerHandler = (event: unknown, context: LambdaContextLike, container: Container) => Promise<unknown>;

/** How often each fault happens (0-1), per place it can happen. */
export interface CloudFaults {
  /** A Lambda, SQS or Scheduler call refused before it happens (throttled). */
  throttle: number;
  /** A call that happened, whose answer was lost (the caller sees an error). */
  lostResponse: number;
  /** An asynchronous event delivered twice (the second up to two hours later). */
  eventTwice: number;
  /** An asynchronous wake-up event never delivered. */
  eventDropped: number;
  /** A queue message delivered early (before its delay is over), up to 8 s. */
  messageEarly: number;
  /** A queue message delivered late, up to 3 minutes. */
  messageLate: number;
  /** A queue message delivered twice. */
  messageTwice: number;
  /** A queue message lost. */
  messageLost: number;
  /** A schedule that fires minutes late. */
  scheduleLate: number;
  /**
   * A run's start event delivered again (same request id, through the qualifier it was sent to,
   * resolved now) just as a wake-up of the run arrives: when the run is due, after any deploy.
   */
  startAgainAtWake: number;
  /** A wake-up delivered again through the alias just as it arrives (a stale target, a late copy). */
  wakeThroughAlias: number;
}

/** Faults injected so far, by kind. */
export type FaultTally = Record<string, number>;

/** An error shaped as the AWS SDK throws it. */
export function awsError(name: string, message: string): Error {
  return Object.assign(new Error(message), { name, $metadata: { httpStatusCode: 400 } });
}

/** Function ARN to name and qualifier. */
export function parseArn(arn: string): { name: string; qualifier?: string } {
  const parts = arn.split(':');
  const name = parts[6] ?? '';
  return parts[7] === undefined ? { name } : { name, qualifier: parts[7] };
}

/** One Lambda function with versions and an alias. */
export class SimFunction {
  /** Published version number to its code label. */
  readonly versions = new Map<string, string>();
  readonly deleted = new Set<string>();
  readonly aliases = new Map<string, string>();
  /** The code of `$LATEST` (the function's current code). */
  latestCode = '';

  constructor(
    readonly name: string,
    readonly handler: ContainerHandler,
  ) {}

  /** Publishes `code` as the next version (and `$LATEST`); returns its number. */
  publish(code: string): string {
    const version = String(this.versions.size + 1);
    this.versions.set(version, code);
    this.latestCode = code;
    return version;
  }

  /** The container an invoke of `qualifier` runs in now, or undefined when there is no such code. */
  resolve(qualifier: string | undefined): Container | undefined {
    const invoked = qualifier ?? '$LATEST';
    const arn = qualifier === undefined ? unqualifiedArn(this.name) : `${unqualifiedArn(this.name)}:${qualifier}`;
    if (invoked === '$LATEST') return { arn, invoked, version: '$LATEST', code: this.latestCode };
    const version = /^\d+$/.test(invoked) ? invoked : this.aliases.get(invoked);
    if (version === undefined || this.deleted.has(version)) return undefined;
    const code = this.versions.get(version);
    return code === undefined ? undefined : { arn, invoked, version, code };
  }
}

/** Thrown by every outside call of an invocation whose process was killed. */
export class ProcessKilled extends Error {
  override readonly name = 'ProcessKilled';
  constructor() {
    super('the process was killed');
  }
}
