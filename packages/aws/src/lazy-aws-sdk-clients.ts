/**
 * The AWS SDK clients an invocation may never need (EventBridge Scheduler, Lambda; SQS uses the
 * same class), loaded at their first call instead of at import. With the SDK external (Lambda's
 * own copy), importing them cost the production runtime ~27% of its cold-import CPU time (bench
 * `bundle` section, docs/performance.md); an invocation that schedules and invokes nothing pays
 * none of it, the first one that does pays it once per container.
 *
 * `import()` of a specifier no bundler follows ({@link importAwsSdk}): a bundle holds none of these
 * clients, not even as code wrapped to run at first use, which a cold start would still parse (~900
 * KB: about half the deployed bundle's cold import, bench `bundle` section). Where our package is
 * installed, the import finds the SDK it depends on; a `DurableFunction` bundle gets each client as
 * a module of its own beside it, in its `node_modules` (the CDK's `write-aws-sdk-clients.mjs`).
 */

import type { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { CreateScheduleCommand, DeleteScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { AwsError } from './aws-error';

type SchedulerSdk = typeof import('@aws-sdk/client-scheduler');
type LambdaSdk = typeof import('@aws-sdk/client-lambda');

/** An AWS SDK module (or client) could not be loaded: names the package, keeps the cause. */
export class AwsSdkLoadError extends AwsError<'aws_sdk_unavailable'> {
  /** Stable code. */
  readonly code = 'aws_sdk_unavailable';
  constructor(
    readonly packageName: string,
    options: { cause: unknown },
  ) {
    const reason = options.cause instanceof Error ? options.cause.message : String(options.cause);
    super(
      `durable-lambda: ${packageName} could not be loaded (${reason}); bundle it with the function or use a Node.js Lambda runtime that provides AWS SDK v3`,
      options,
    );
    this.name = 'AwsSdkLoadError';
  }
}

/**
 * Memoizes an async load; a failed load is not kept, so the next call tries again (a warm
 * container recovers from a transient failure), and every failure is an {@link AwsSdkLoadError}.
 */
function loadOnce<T>(packageName: string, load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((cause: unknown) => {
      loading = undefined;
      throw cause instanceof AwsSdkLoadError ? cause : new AwsSdkLoadError(packageName, { cause });
    });
    return loading;
  };
}

/**
 * `import(packageName)`, by a name a bundler cannot see: it leaves the import as it is instead of
 * bundling the package (see the file's comment).
 */
export function importAwsSdk<Module>(packageName: string): Promise<Module> {
  return import(/* @vite-ignore */ packageName) as Promise<Module>;
}

/** `@aws-sdk/client-scheduler`, loaded on first call (once per process). */
export const schedulerSdk: () => Promise<SchedulerSdk> = loadOnce('@aws-sdk/client-scheduler', () =>
  importAwsSdk<SchedulerSdk>('@aws-sdk/client-scheduler'),
);

/** `@aws-sdk/client-lambda`, loaded on first call (once per process). */
export const lambdaSdk: () => Promise<LambdaSdk> = loadOnce('@aws-sdk/client-lambda', () =>
  importAwsSdk<LambdaSdk>('@aws-sdk/client-lambda'),
);

/** What the waker and the invoker need of a client: sending a command. A real client is one. */
export interface SendsCommands<Command> {
  /** Sends `command`; resolves with the service's answer. */
  send(command: Command): Promise<unknown>;
}

/** A client as the waker and the invoker use it, whose region can be asked. A real client is one. */
export interface SdkClientLike<Command> extends SendsCommands<Command> {
  /** The client's configuration (its region). */
  readonly config: { region(): Promise<string> };
}

/**
 * An AWS SDK client built on its first call: `send` loads the SDK module, builds the client once
 * (`create`), and sends. `client()` is the real client, for what a command cannot do.
 */
export class LazySdkClient<Client extends SdkClientLike<Command>, Command> implements SdkClientLike<Command> {
  /** The client's configuration, resolved through the real client (builds it). */
  readonly config: { region(): Promise<string> };
  private readonly build: () => Promise<Client>;

  constructor(packageName: string, create: () => Promise<Client>) {
    this.build = loadOnce(packageName, create);
    this.config = { region: async () => (await this.client()).config.region() };
  }

  /** The real client (built on the first call, then the same one). */
  client(): Promise<Client> {
    return this.build();
  }

  /** Sends `command` through the real client. */
  async send(command: Command): Promise<unknown> {
    const client = await this.client();
    return client.send(command);
  }
}

/** The commands the Scheduler waker sends. */
export type SchedulerCommand = CreateScheduleCommand | DeleteScheduleCommand;
/** The command the Lambda invoker sends. */
export type LambdaCommand = InvokeCommand;

/** A Scheduler client for `region`, built at its first call. */
export function lazySchedulerClient(region: string): LazySdkClient<SchedulerClient, SchedulerCommand> {
  return new LazySdkClient(
    '@aws-sdk/client-scheduler',
    async () => new (await schedulerSdk()).SchedulerClient({ region }),
  );
}

/** A Lambda client for `region`, built at its first call. */
export function lazyLambdaClient(region: string): LazySdkClient<LambdaClient, LambdaCommand> {
  return new LazySdkClient('@aws-sdk/client-lambda', async () => new (await lambdaSdk()).LambdaClient({ region }));
}
