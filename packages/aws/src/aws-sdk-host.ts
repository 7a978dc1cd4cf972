import {
  type AwsDurableLambdaHandler,
  type AwsLambdaContext,
  isForeignDurableHandler,
  runAwsDurableHandler,
} from '@durable-lambda/engine';
import type { LambdaContextLike } from '@durable-lambda/protocol';
import {
  type BackendSource,
  backendLoader,
  InvalidArgumentError,
  registeredBackend,
  serveLambdaEvent,
} from '@durable-lambda/sdk';
import { createProductionBackend } from './production';

/**
 * Where a {@link selfHosted} handler keeps the AWS-wrapped handler it hosts; `Symbol.for` so
 * copies of this package (and the dev server, which unwraps it) agree.
 */
export const AWS_SDK_HANDLER: unique symbol = Symbol.for('durable-lambda.aws-sdk-handler') as never;

export type { BackendSource } from '@durable-lambda/sdk';

/** Options of {@link selfHosted}. */
export interface SelfHostedOptions {
  /**
   * The backend runs live in. Default: the registered one (`import '@durable-lambda/aws/register'`,
   * or the `DurableFunction` construct's bundle, with its run metrics), else the production backend
   * from the environment (`createProductionBackend`: DynamoDB, EventBridge Scheduler, Lambda).
   */
  backend?: BackendSource;
}

/** A Lambda handler produced by {@link selfHosted}. */
export type SelfHostedHandler = ((event: unknown, context?: LambdaContextLike) => Promise<unknown>) & {
  /** The AWS-wrapped handler it runs. */
  readonly [AWS_SDK_HANDLER]: AwsDurableLambdaHandler;
};

/** True for a handler made by {@link selfHosted}. */
export function isSelfHosted(handler: unknown): handler is SelfHostedHandler {
  return (
    typeof handler === 'function' && typeof (handler as Partial<SelfHostedHandler>)[AWS_SDK_HANDLER] === 'function'
  );
}

/**
 * Self-hosts a handler wrapped by AWS's own `withDurableExecution` (`@aws/durable-execution-sdk-js`)
 * on durable-lambda's backend, with one line:
 *
 * ```ts
 * import { withDurableExecution } from '@aws/durable-execution-sdk-js';
 * import { selfHosted } from '@durable-lambda/aws';
 * export const handler = selfHosted(withDurableExecution(async (event, ctx) => { ... }));
 * ```
 *
 * Each invocation is served by our own SDK's Lambda entry (`serveLambdaEvent`): the backend opens it
 * (a plain event starts a run keyed by the request id, a wake-up from the SQS wake-up queue,
 * Scheduler or an invoke resumes one; a duplicate or early one answers without running, and an
 * SQS event is answered with its `batchItemFailures`), AWS's SDK runs the handler
 * over a transport to that invocation, and the backend closes it. A fenced invocation (a newer
 * one owns the run) answers `STOPPED`; an infrastructure fault is thrown after the lease is
 * released, so Lambda retries the event. If the process dies anywhere in between, the run's
 * lease lapses and the reconciler (or its lease wake-up, `DURABLE_LEASE_WAKEUP=scheduler`) resumes
 * it from its last checkpoint.
 *
 * An event that already carries AWS's invocation input (AWS's own test runner, our local
 * runtime, test runner and dev server, or AWS's managed durable functions) is handed to the
 * AWS-wrapped handler unchanged, so the same export runs everywhere.
 */
export function selfHosted(handler: AwsDurableLambdaHandler, options: SelfHostedOptions = {}): SelfHostedHandler {
  if (typeof handler !== 'function') throw new InvalidArgumentError('handler', 'must be a function');
  if (!isForeignDurableHandler(handler)) {
    throw new InvalidArgumentError(
      'handler',
      "is wrapped by @durable-lambda/sdk's withDurableExecution, which runs on our backend by itself; selfHosted takes a handler wrapped by @aws/durable-execution-sdk-js",
    );
  }
  if (isSelfHosted(handler)) return handler;
  if (options === null || typeof options !== 'object') throw new InvalidArgumentError('options', 'must be an object');
  const source = options.backend;
  if (source !== undefined && typeof source !== 'function' && typeof source?.open !== 'function') {
    throw new InvalidArgumentError('options.backend', 'must be a backend (with open) or a function returning one');
  }

  const backend = backendLoader(() => source ?? registeredBackend() ?? (() => createProductionBackend()));
  const hosted = async (event: unknown, context: LambdaContextLike = {}): Promise<unknown> => {
    if (carriesAwsInput(event)) return handler(event as never, context as AwsLambdaContext);
    // The handler sees Lambda's own context; the remaining time is the invocation's, as the
    // backend measures it (the lease and the wake-ups were computed from it).
    const ownContext: AwsDurableLambdaHandler = (input, synthetic) =>
      handler(input, {
        ...synthetic,
        ...definedFields(context),
        getRemainingTimeInMillis: synthetic.getRemainingTimeInMillis,
      });
    return serveLambdaEvent(backend, event, context, (opened) =>
      runAwsDurableHandler(ownContext, opened.invocation, context),
    );
  };
  return Object.assign(hosted, { [AWS_SDK_HANDLER]: handler }) as SelfHostedHandler;
}

/**
 * True for AWS's invocation input (`DurableExecutionArn` and `CheckpointToken`): the event of an
 * invocation someone else already opened, for AWS's handler to run as is.
 */
function carriesAwsInput(event: unknown): boolean {
  const input = event as { DurableExecutionArn?: unknown; CheckpointToken?: unknown } | null;
  return typeof input?.DurableExecutionArn === 'string' && typeof input.CheckpointToken === 'string';
}

function definedFields(context: LambdaContextLike): Record<string, unknown> {
  return Object.fromEntries(Object.entries(context).filter(([, value]) => value !== undefined));
}
