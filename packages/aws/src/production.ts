import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Engine, type Invoker, type Waker } from '@durable-lambda/engine';
import type { DurableBackend, LambdaContextLike } from '@durable-lambda/protocol';
import { DynamoDbStore } from './dynamodb';
import { LambdaInvoker } from './lambda-invoker';
import { type FunctionArn, parseFunctionArn, targetArnFrom } from './lambda-targets';
import {
  ConfigurationError,
  type ProductionConfig,
  type ProductionEnvironment,
  readProductionConfig,
} from './production-config';
import { SchedulerWaker } from './scheduler-waker';

const DAY_MS = 86_400_000;

/**
 * Optional decorators of the production backend's invoker and waker, applied before the engine
 * is built (the reconciler uses them to wake only the functions it serves).
 */
export interface ProductionWiring {
  /** Wraps the Lambda invoker (immediate wake-ups, chained invokes, resumes). */
  invoker?(invoker: Invoker): Invoker;
  /** Wraps the Scheduler waker (whose immediate wake-ups go through the wrapped invoker). */
  waker?(waker: Waker): Waker;
}

/**
 * The backend a deployed durable function uses: runs in DynamoDB, wake-ups by EventBridge
 * Scheduler, invokes by Lambda, all wired from the environment. Built once per container.
 */
export class ProductionBackend implements DurableBackend {
  readonly config: ProductionConfig;
  readonly scheduler: SchedulerClient;
  readonly lambda: LambdaClient;
  readonly dynamodb: DynamoDBDocumentClient;
  readonly engine: Engine;
  private ownArn: string | undefined;

  constructor(config: ProductionConfig, wiring: ProductionWiring = {}) {
    this.config = config;
    const region = config.region;
    this.scheduler = new SchedulerClient({ region });
    this.lambda = new LambdaClient({ region });
    this.dynamodb = DynamoDBDocumentClient.from(new DynamoDBClient({ region }), {
      marshallOptions: { removeUndefinedValues: true },
    });
    const targetArn = (functionName: string) => this.targetArn(functionName);
    const lambdaInvoker = new LambdaInvoker({ client: this.lambda, targetArn });
    const invoker = wiring.invoker ? wiring.invoker(lambdaInvoker) : lambdaInvoker;
    const schedulerWaker = new SchedulerWaker({
      client: this.scheduler,
      groupName: config.scheduleGroup,
      roleArn: config.schedulerRoleArn,
      ...(config.scheduleDeadLetterArn === undefined ? {} : { deadLetterArn: config.scheduleDeadLetterArn }),
      targetArn,
      invoker,
    });
    this.engine = new Engine({
      store: new DynamoDbStore({ client: this.dynamodb, tableName: config.tableName }),
      waker: wiring.waker ? wiring.waker(schedulerWaker) : schedulerWaker,
      invoker,
      retentionMs: config.retentionDays * DAY_MS,
    });
  }

  /**
   * Opens an invocation through the engine. The function's own ARN, qualified with the alias or
   * version it was invoked with, is taken from `lambdaContext.invokedFunctionArn` (a container
   * runs one invocation at a time), so its wake-ups replay the same code version.
   */
  async open(event: unknown, lambdaContext: LambdaContextLike): ReturnType<DurableBackend['open']> {
    const own = this.bindInvokedArn(lambdaContext.invokedFunctionArn);
    // Runs started here are recorded under the qualified name (`orders:prod`), so every wake-up
    // and resume, from any container, replays them on the code version that started them.
    const qualified = own.qualifier && own.qualifier !== '$LATEST' ? `${own.name}:${own.qualifier}` : own.name;
    return this.engine.open(event, { ...lambdaContext, functionName: qualified });
  }

  /**
   * Takes the ARN the current invocation was invoked with (`lambdaContext.invokedFunctionArn`) as
   * this backend's own: it decides the partition, region and account every other function is
   * targeted in (see {@link targetArn}). `open` calls it; a caller that drives the engine
   * directly (the reconciler) calls it once per invocation. A missing or malformed ARN is a
   * {@link ConfigurationError}.
   */
  bindInvokedArn(arn: string | undefined): FunctionArn {
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
    return own;
  }

  /**
   * The ARN a wake-up or invoke of `functionName` targets: this function's own invoked ARN for
   * itself, `arn:<partition>:lambda:<region>:<account>:function:<name>` for any other.
   */
  targetArn(functionName: string): string {
    if (this.ownArn === undefined) {
      if (functionName.startsWith('arn:')) return functionName;
      throw new Error(`durable-lambda: cannot target ${JSON.stringify(functionName)} before the first invocation`);
    }
    return targetArnFrom(this.ownArn, functionName);
  }
}

const containers = new Map<string, ProductionBackend>();

/**
 * The production backend, configured from environment variables (see `PRODUCTION_ENV`):
 * `DURABLE_TABLE_NAME`, `DURABLE_SCHEDULE_GROUP`, `DURABLE_SCHEDULER_ROLE_ARN`, `AWS_REGION`
 * (required), `DURABLE_RETENTION_DAYS` (optional, default 30) and `DURABLE_SCHEDULE_DLQ_ARN`
 * (optional: the wake-up schedules' dead-letter queue). A missing variable is a
 * `ConfigurationError` with code `missing_configuration` naming it. The clients and the engine are
 * built once per container (per distinct configuration) and reused by later invocations.
 * `withDurableExecution` calls this when no `backend` is configured.
 */
export function createProductionBackend(env: ProductionEnvironment = process.env): ProductionBackend {
  const config = readProductionConfig(env);
  const key = JSON.stringify(config);
  let backend = containers.get(key);
  if (!backend) {
    backend = new ProductionBackend(config);
    containers.set(key, backend);
  }
  return backend;
}
