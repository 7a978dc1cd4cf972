import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { SchedulerClient } from '@aws-sdk/client-scheduler';
import type { SQSClient } from '@aws-sdk/client-sqs';
import {
  type Clock,
  Engine,
  type Invoker,
  isScheduleFiring,
  queueNameOf,
  type RunMeterIncrement,
  ScheduleReceiver,
  type Store,
  systemClock,
  TriggerReceiver,
  type TriggerRunKey,
  triggerBatchOf,
  type WakeRequest,
  type Waker,
} from '@durable-lambda/engine';
import type { DurableBackend, LambdaContextLike } from '@durable-lambda/protocol';
import { measureConsumedCapacity } from './consumed-capacity';
import { DynamoDbStore } from './dynamodb';
import type { DynamoDbTransport } from './dynamodb/commands';
import { LazyDocumentClientTransport } from './dynamodb/sdk-transport';
import {
  bareFunctionName,
  type ExecutionTimeoutMap,
  readExecutionTimeoutMap,
  withExecutionTimeoutMap,
} from './execution-timeout-map';
import { currentTally, functionMemoryMb, meteredOpen } from './invocation-meter';
import { LambdaInvoker } from './lambda-invoker';
import { type FunctionArn, isPartialFunctionArn, parseFunctionArn, targetArnFrom } from './lambda-targets';
import { LambdaVersionPolicy } from './lambda-version-policy';
import {
  type LambdaCommand,
  type LazySdkClient,
  lazyLambdaClient,
  lazySchedulerClient,
  type SchedulerCommand,
  type SdkClientLike,
  type SendsCommands,
} from './lazy-aws-sdk-clients';
import { LightDynamoDbClient } from './light-dynamodb/client';
import { OnTimeWaker } from './on-time-waker';
import { AwsOutboxPublisher } from './outbox-publisher';
import { payloadBucketOptions, withPayloadKey } from './payload-protection';
import {
  ConfigurationError,
  executionTimeoutSetting,
  type ProductionConfig,
  type ProductionEnvironment,
  readProductionConfig,
} from './production-config';
import { SchedulerWaker } from './scheduler-waker';
import { lazySqsClient, type SqsCommand, SqsDelayWaker } from './sqs-delay-waker';
import { type PinningConfig, type RunningCode, readPinningConfig, runningCode } from './version-pinning';
import { WakeQueueReceiver } from './wake-queue-receiver';
import { wakeUpCost } from './wake-up-cost';

const DAY_MS = 86_400_000;

/**
 * Optional decorators of the production backend's invoker and waker, applied before the engine
 * is built (the reconciler uses them to wake only the functions it serves).
 */
export interface ProductionWiring {
  /** Wraps the Lambda invoker (immediate wake-ups, chained invokes, resumes). */
  invoker?(invoker: Invoker): Invoker;
  /** Wraps the waker (`OnTimeWaker`, whose immediate wake-ups go through the wrapped invoker). */
  waker?(waker: Waker): Waker;
  /**
   * The run key of a trigger event (an SQS message, an EventBridge event, a DynamoDB Streams or
   * Kinesis record); default: the event's own id (see `TriggerReceiver`).
   */
  triggerRunKey?: TriggerRunKey;
}

/**
 * Parts of the production backend a simulated cloud replaces (the chaos suite's deploy world):
 * the clock every timed decision reads, how it sleeps, the clients of Lambda, SQS and Scheduler,
 * and the store. Each one left out is the real one, built from the configuration.
 */
export interface ProductionParts {
  /** Default: the system clock. */
  clock?: Clock;
  /** How a short in-process hold sleeps (an early wake-up, an immediate one). Default: a timer. */
  sleep?(ms: number): Promise<void>;
  lambda?: SdkClientLike<LambdaCommand>;
  sqs?: SendsCommands<SqsCommand>;
  scheduler?: SdkClientLike<SchedulerCommand>;
  /** Default: a `DynamoDbStore` on the configured table (it writes the version policy's pins). */
  store?: Store;
}

/**
 * The backend a deployed durable function uses: runs in DynamoDB, wake-ups on time by an SQS
 * delay queue (within 15 minutes) and EventBridge Scheduler with a final SQS hop (beyond), invokes
 * by Lambda, all wired from the environment. Built once per container.
 */
export class ProductionBackend implements DurableBackend {
  readonly config: ProductionConfig;
  /**
   * The Scheduler and Lambda clients, built (and their SDK modules loaded) at their first call:
   * an invocation that schedules and invokes nothing never loads them (`client()` is the real one).
   */
  readonly scheduler: LazySdkClient<SchedulerClient, SchedulerCommand>;
  readonly lambda: LazySdkClient<LambdaClient, LambdaCommand>;
  /** The SQS client of on-time wake-ups (built at its first send), when the queue is configured. */
  readonly sqs: LazySdkClient<SQSClient, SqsCommand> | undefined;
  /**
   * The DynamoDB client the store sends through: the light client (`LightDynamoDbClient`), or the
   * AWS SDK's document client built at its first request (`DURABLE_DYNAMODB_CLIENT=sdk`).
   */
  readonly dynamodb: DynamoDbTransport;
  readonly engine: Engine;
  /** The waker every wake-up goes through (SQS delay, Scheduler, or at once; see `OnTimeWaker`). */
  readonly waker: Waker;
  private readonly wakeUps: WakeQueueReceiver;
  private readonly triggers: TriggerReceiver;
  private readonly schedules: ScheduleReceiver;
  /** Version pinning: the function's policy and the aliases runs start on. */
  readonly pinning: PinningConfig;
  /** The engine's version policy: Lambda's, told the code each invocation runs ({@link bindInvokedArn}). */
  readonly versions: LambdaVersionPolicy;
  private readonly invoker: Invoker;
  private readonly store: Store;
  private ownArn: string | undefined;
  /** The run meter's price of a wake-up (by `OnTimeWaker`'s route). */
  private readonly wakeCost: (wake: WakeRequest) => RunMeterIncrement;

  /**
   * `pinning` defaults to the environment's (`DURABLE_VERSION_PINNING`, `DURABLE_FUNCTION_ALIASES`,
   * see `PINNING_ENV`), so every production backend of a container (the reconciler's too) reads it.
   * The execution timeout of its own runs is `config.executionTimeoutSeconds` (for the function
   * Lambda names in `AWS_LAMBDA_FUNCTION_NAME`, any qualifier; every run when unset), and that of
   * the child runs it starts of other functions is `executionTimeouts` (default: the environment's
   * `DURABLE_EXECUTION_TIMEOUTS`, see `EXECUTION_TIMEOUTS_ENV`). `parts` replaces real parts
   * with simulated ones (see {@link ProductionParts}).
   */
  constructor(
    config: ProductionConfig,
    wiring: ProductionWiring = {},
    pinning: PinningConfig = readPinningConfig(process.env),
    executionTimeouts: ExecutionTimeoutMap = readExecutionTimeoutMap(process.env),
    parts: ProductionParts = {},
  ) {
    this.config = config;
    this.pinning = pinning;
    const region = config.region;
    this.scheduler = lazySchedulerClient(region);
    this.lambda = lazyLambdaClient(region);
    this.dynamodb =
      config.dynamoDbClient === 'sdk' ? new LazyDocumentClientTransport(region) : new LightDynamoDbClient({ region });
    // Run meter hook: each DynamoDB request's capacity, for the invocation it was made for.
    measureConsumedCapacity(this.dynamodb, (consumed) => currentTally()?.addDynamoDb(consumed));
    const clock = parts.clock ?? systemClock;
    const sleep = parts.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
    const targetArn = (functionName: string) => this.targetArn(functionName);
    const lambdaInvoker = new LambdaInvoker({ client: parts.lambda ?? this.lambda, targetArn });
    const invoker = wiring.invoker ? wiring.invoker(lambdaInvoker) : lambdaInvoker;
    this.invoker = invoker;
    const schedulerWaker = new SchedulerWaker({
      client: parts.scheduler ?? this.scheduler,
      groupName: config.scheduleGroup,
      roleArn: config.schedulerRoleArn,
      ...(config.scheduleDeadLetterArn === undefined ? {} : { deadLetterArn: config.scheduleDeadLetterArn }),
      targetArn,
      invoker,
      clock,
      sleep,
    });
    this.sqs = config.wakeQueueUrl === undefined ? undefined : lazySqsClient(region);
    const sqsClient = parts.sqs ?? this.sqs;
    const onTime = new OnTimeWaker({
      scheduler: schedulerWaker,
      ...(sqsClient && config.wakeQueueUrl
        ? {
            queue: new SqsDelayWaker({
              queueUrl: config.wakeQueueUrl,
              client: sqsClient,
              clock,
              ...(config.wakeDelayRounding === undefined ? {} : { rounding: config.wakeDelayRounding }),
            }),
          }
        : {}),
      // The queue feeds one qualifier of this function (the alias); a wake-up of a run on another
      // one goes there all the same, and the receiver hands it on (on time, one invoke more).
      feeds: (functionName) => this.isOwn(functionName),
      clock,
      ...(config.leaseWakeUp === undefined ? {} : { lease: config.leaseWakeUp }),
    });
    this.wakeCost = (wake) => wakeUpCost(onTime, wake);
    const waker = wiring.waker ? wiring.waker(onTime) : onTime;
    this.waker = waker;
    this.wakeUps = new WakeQueueReceiver({
      // The hint (a hop's random phase) reaches the SQS delay's rounding; a wrapped waker (the
      // reconciler's gate) takes the request alone, rounded as a fixed-phase send.
      rearm: (request, hint) => (waker === onTime ? onTime.wakeAt(request, hint) : waker.wakeAt(request)),
      forward: (functionName, event) => invoker.invoke(functionName, event),
      opensHere: (functionName) => this.isOwn(functionName) && this.versions.runsElsewhere(functionName) === undefined,
      ownName: () => this.versions.running?.own.name ?? process.env.AWS_LAMBDA_FUNCTION_NAME ?? '',
      now: () => clock.now(),
      sleep,
    });
    this.store =
      parts.store ??
      withPayloadKey(
        new DynamoDbStore({
          client: this.dynamodb,
          tableName: config.tableName,
          ...(config.legacyIndexes ? { legacyIndexes: true } : {}),
          ...payloadBucketOptions(process.env, region),
        }),
        process.env,
        region,
      );
    const executionTimeout = withExecutionTimeoutMap(
      executionTimeoutSetting(config, process.env.AWS_LAMBDA_FUNCTION_NAME),
      executionTimeouts,
    );
    // Where runs may run: only on the qualifier they are recorded with (see `version-pinning.ts`).
    this.versions = new LambdaVersionPolicy({ pinning: pinning.pinning, invokeAliases: pinning.aliases });
    this.engine = new Engine({
      store: this.store,
      waker,
      invoker,
      clock,
      retentionMs: config.retentionDays * DAY_MS,
      executionTimeout,
      versions: this.versions,
      // Events steps emit (`context.emit`): EventBridge and SQS through signed requests, loaded at the first.
      outbox: new AwsOutboxPublisher({ region: config.region }),
    });
    this.triggers = new TriggerReceiver({
      engine: this.engine,
      invoker,
      waker,
      clock,
      ...(wiring.triggerRunKey ? { runKey: wiring.triggerRunKey } : {}),
    });
    this.schedules = new ScheduleReceiver({ engine: this.engine, invoker, waker, clock });
  }

  /**
   * Opens an invocation (see {@link openUnmetered}), tallying what it consumes for its run's meter:
   * the invocation's last write adds it (see `invocation-meter.ts`).
   */
  async open(event: unknown, lambdaContext: LambdaContextLike): ReturnType<DurableBackend['open']> {
    const memoryMb = functionMemoryMb(lambdaContext);
    return meteredOpen(() => this.openUnmetered(event, lambdaContext), {
      wakeCost: this.wakeCost,
      ...(memoryMb === undefined ? {} : { memoryMb }),
    });
  }

  /**
   * Opens an invocation through the engine. The function's own ARN, qualified with the alias or
   * version it was invoked with, is taken from `lambdaContext.invokedFunctionArn` (a container
   * runs one invocation at a time), and the version of its code from `functionVersion`.
   *
   * A run started here is recorded under the version it starts on (`orders:7`, see
   * `version-pinning.ts`), so every wake-up and resume, from any container, replays it on that
   * code. Any event that reaches a run recorded on other code (a wake-up through the alias or
   * the wake-up queue after a deploy, a start event delivered again, a wake-up of a `$LATEST`
   * run) hands the run to that code unopened (the engine, by {@link versions}): a run never replays
   * elsewhere. When that code is gone (a deleted version) the hand-over fails
   * `function_not_found`, and the run waits there (see the README's "Old versions").
   */
  private async openUnmetered(event: unknown, lambdaContext: LambdaContextLike): ReturnType<DurableBackend['open']> {
    this.bindInvokedArn(lambdaContext.invokedFunctionArn, lambdaContext.functionVersion);
    // A trigger (SQS from another queue, EventBridge, DynamoDB Streams, an EventBridge pipe's array
    // of SQS, Streams or Kinesis records): one run per event, each invoked on its own; this
    // invocation only starts them and answers the batch (`batchItemFailures` for every batch).
    if (isScheduleFiring(event)) {
      return { response: await this.schedules.receive(event, (this.versions.running as RunningCode).own.name) };
    }
    const wakeQueue = this.config.wakeQueueUrl === undefined ? undefined : queueNameOf(this.config.wakeQueueUrl);
    const batch = triggerBatchOf(event, wakeQueue);
    if (batch) {
      const own = (this.versions.running as RunningCode).own.name;
      return { response: await this.triggers.receive(batch, own) };
    }
    // An SQS batch of wake-ups, or a wake-up that says when it is due (found early: re-armed).
    const received = await this.wakeUps.receive(event, (wake) => this.open(wake, lambdaContext));
    if (received) return received;
    const code = this.versions.running as RunningCode;
    // A run started here is recorded where it runs (the version policy's `nameAtStart`).
    return this.engine.open(event, { ...lambdaContext, functionName: code.own.name });
  }

  /**
   * Takes the ARN the current invocation was invoked with (`lambdaContext.invokedFunctionArn`) as
   * this backend's own: it decides the partition, region and account every other function is
   * targeted in (see {@link targetArn}). `open` calls it; a caller that drives the engine
   * directly (the reconciler) calls it once per invocation. A missing or malformed ARN is a
   * {@link ConfigurationError}. `functionVersion` (`lambdaContext.functionVersion`; else a numeric
   * qualifier of the ARN) is the running code's version: it decides what a bare own name targets.
   */
  bindInvokedArn(arn: string | undefined, functionVersion?: string): FunctionArn {
    if (!arn) {
      throw new ConfigurationError(
        'missing_configuration',
        ['invokedFunctionArn'],
        'durable-lambda: the Lambda context has no invokedFunctionArn; the production backend runs on AWS Lambda only (pass config.backend elsewhere)',
      );
    }
    const own = parseFunctionArn(arn);
    if (!own) {
      throw new ConfigurationError(
        'invalid_configuration',
        ['invokedFunctionArn'],
        `durable-lambda: invokedFunctionArn ${JSON.stringify(arn)} is not a Lambda function ARN`,
      );
    }
    this.ownArn = arn;
    this.versions.runningOn(runningCode(own, functionVersion));
    return own;
  }

  /**
   * The ARN a wake-up or invoke of `functionName` targets, in this function's partition, region and
   * account: the qualifier the version policy says ({@link LambdaVersionPolicy.invokeTarget}: for a
   * qualified name (`orders:7`, `orders:live`) that qualifier (`$LATEST` is the unqualified ARN);
   * for this function's bare name, the version it runs on (`pinning` `version`), the qualifier it
   * was invoked with (`alias`) or `$LATEST` (`latest`); for another function's bare name, its alias
   * when `DURABLE_FUNCTION_ALIASES` names one (its runs start there and pin there), else
   * `arn:<partition>:lambda:<region>:<account>:function:<name>`). An ARN is kept as given, a
   * partial ARN completed.
   */
  targetArn(functionName: string): string {
    if (this.ownArn === undefined) {
      if (functionName.startsWith('arn:')) return functionName;
      throw new Error(`durable-lambda: cannot target ${JSON.stringify(functionName)} before the first invocation`);
    }
    if (functionName.startsWith('arn:') || isPartialFunctionArn(functionName)) {
      return targetArnFrom(this.ownArn, functionName);
    }
    return `arn:${this.ownPrefix()}:function:${this.versions.invokeTarget(functionName)}`;
  }

  /** Whether `functionName` (a run's recorded name, any qualifier) is this function. */
  private isOwn(functionName: string): boolean {
    const own = this.versions.running?.own.name;
    return own !== undefined && bareFunctionName(functionName) === own;
  }

  private ownPrefix(): string {
    const own = parseFunctionArn(this.ownArn ?? '') as FunctionArn;
    return `${own.partition}:lambda:${own.region}:${own.account}`;
  }
}

const containers = new Map<string, ProductionBackend>();

/**
 * The production backend, configured from environment variables (see `PRODUCTION_ENV`):
 * `DURABLE_TABLE_NAME`, `DURABLE_SCHEDULE_GROUP`, `DURABLE_SCHEDULER_ROLE_ARN`, `AWS_REGION`
 * (required), `DURABLE_RETENTION_DAYS` (optional, default 30) and `DURABLE_SCHEDULE_DLQ_ARN`
 * (optional: the wake-up schedules' dead-letter queue), `DURABLE_WAKE_QUEUE_URL` (optional: the
 * SQS queue of on-time wake-ups) and `DURABLE_LEASE_WAKEUP` (optional, `reconciler` or
 * `scheduler`), `DURABLE_EXECUTION_TIMEOUT_SECONDS` and
 * `DURABLE_EXECUTION_TIMEOUTS` (optional: the execution timeout of its own runs, and of the child
 * runs it starts, by function), and version pinning's `DURABLE_VERSION_PINNING`
 * and `DURABLE_FUNCTION_ALIASES` (optional, see `PINNING_ENV`). A missing variable is a
 * `ConfigurationError` with code `missing_configuration` naming it. The clients and the engine are
 * built once per container (per distinct configuration) and reused by later invocations.
 * `withDurableExecution` calls this when no `backend` is configured and it is registered
 * (`import '@durable-lambda/aws/register'`, see `registerProductionBackend`).
 */
export function createProductionBackend(env: ProductionEnvironment = process.env): ProductionBackend {
  const config = readProductionConfig(env);
  const pinning = readPinningConfig(env);
  const timeouts = readExecutionTimeoutMap(env);
  const key = JSON.stringify([config, pinning, timeouts]);
  let backend = containers.get(key);
  if (!backend) {
    backend = new ProductionBackend(config, {}, pinning, timeouts);
    containers.set(key, backend);
  }
  return backend;
}
