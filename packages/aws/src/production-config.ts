import { type ExecutionTimeoutSetting, MAX_EXECUTION_TIMEOUT_SECONDS } from '@durable-lambda/engine';
import { AwsError } from './aws-error';
import { bareFunctionName } from './lambda-targets';
import { LEASE_WAKE_UPS, type LeaseWakeUp } from './on-time-waker';
import { DELAY_ROUNDINGS, type DelayRounding } from './sqs-delay-waker';

/**
 * The environment variables the production backend reads. The `DurableFunction` construct sets
 * the `DURABLE_*` ones; Lambda sets `AWS_REGION`.
 */
export const PRODUCTION_ENV = {
  /** Required: the DynamoDB table holding runs and operations. */
  tableName: 'DURABLE_TABLE_NAME',
  /**
   * Optional: `1` when the table still has the layout-1 listing indexes (made before layout 2;
   * `DurableTable`'s `legacyRunIndexes`): listings then read them too. See the aws package's TABLE.md.
   */
  legacyIndexes: 'DURABLE_LEGACY_INDEXES',
  /** Required: the EventBridge Scheduler schedule group wake-ups are created in. */
  scheduleGroup: 'DURABLE_SCHEDULE_GROUP',
  /** Required: the role EventBridge Scheduler assumes to invoke the function. */
  schedulerRoleArn: 'DURABLE_SCHEDULER_ROLE_ARN',
  /** Optional: days a finished run is kept (DynamoDB TTL). Default {@link DEFAULT_RETENTION_DAYS}. */
  retentionDays: 'DURABLE_RETENTION_DAYS',
  /**
   * Optional: the SQS queue a wake-up schedule sends its event to when every delivery attempt
   * failed (EventBridge Scheduler's dead-letter queue). Without it such an event is dropped, and
   * only the reconciler finds the run again.
   */
  scheduleDeadLetterArn: 'DURABLE_SCHEDULE_DLQ_ARN',
  /**
   * Optional: the URL of the standard SQS queue feeding this function (its event source), for
   * on-time wake-ups: waits, retry backoffs and callback timeouts due within 15 minutes are SQS
   * messages delayed to their due time, later ones are schedules with a final SQS hop. Unset (the
   * construct's `onTimeWakeUps: false`): EventBridge Scheduler alone, up to a minute late.
   */
  wakeQueueUrl: 'DURABLE_WAKE_QUEUE_URL',
  /**
   * Optional: how an SQS wake-up's delay becomes whole seconds: `adaptive` (default: within 1 s at
   * p99 for every wait, ~0.79 s of billed hold per wake-up within 15 minutes, ~0.16 s beyond),
   * `down` (p99 0.64 s beyond 15 minutes for ~0.37 s of hold) or `nearest` (the least hold, ~1.07-
   * 1.13 s late at p99). See `DelayRounding`.
   */
  wakeDelayRounding: 'DURABLE_WAKE_DELAY_ROUNDING',
  /**
   * Optional: what stands behind an invocation's lease, `reconciler` (default: no call per
   * invocation) or `scheduler` (a schedule per invocation; see `LeaseWakeUp`).
   */
  leaseWakeUp: 'DURABLE_LEASE_WAKEUP',
  /**
   * Optional: the DynamoDB client, `light` (default: `LightDynamoDbClient`, no AWS SDK code loaded)
   * or `sdk` (the AWS SDK's document client, loaded at the first request). A `DurableFunction`
   * bundles the SDK's client only when its `environment` prop sets this to `sdk`.
   */
  dynamoDbClient: 'DURABLE_DYNAMODB_CLIENT',
  /** Required (Lambda sets it): the region of the table, the schedule group and the functions. */
  region: 'AWS_REGION',
} as const;

/** The values of `DURABLE_DYNAMODB_CLIENT`. */
export const DYNAMODB_CLIENTS = ['light', 'sdk'] as const;
/** Which DynamoDB client the production backend uses (see `PRODUCTION_ENV.dynamoDbClient`). */
export type DynamoDbClientKind = (typeof DYNAMODB_CLIENTS)[number];

/**
 * The Engine's `executionTimeout` for a function's backend: the configured timeout for runs of
 * `ownFunctionName` (the function whose environment holds it; any qualifier or ARN form), and
 * none for the runs of other functions it starts (child runs by `invoke`), whose own setting is
 * in their function's environment, not this one. Undefined `ownFunctionName`: every run.
 */
export function executionTimeoutSetting(
  config: Pick<ProductionConfig, 'executionTimeoutSeconds'>,
  ownFunctionName: string | undefined,
): ExecutionTimeoutSetting | undefined {
  const seconds = config.executionTimeoutSeconds;
  if (seconds === undefined) return undefined;
  const own = ownFunctionName === undefined ? undefined : bareFunctionName(ownFunctionName);
  return (functionName) => (own === undefined || bareFunctionName(functionName) === own ? seconds : undefined);
}

/**
 * Optional environment variable: the execution timeout of this function's runs, in whole seconds
 * (1 to 366 days, AWS's `ExecutionTimeout` range): at it a run ends `TIMED_OUT` with its child
 * runs. A run's own `executionTimeout` (given at its start) wins. Default: none.
 */
export const EXECUTION_TIMEOUT_ENV = 'DURABLE_EXECUTION_TIMEOUT_SECONDS';

/** Days a finished run is kept when `DURABLE_RETENTION_DAYS` is not set. */
export const DEFAULT_RETENTION_DAYS = 30;

/** The production backend's configuration, as read from the environment. */
export interface ProductionConfig {
  tableName: string;
  /** The table has the layout-1 listing indexes too (`DURABLE_LEGACY_INDEXES=1`). */
  legacyIndexes?: boolean;
  scheduleGroup: string;
  schedulerRoleArn: string;
  retentionDays: number;
  region: string;
  /** The wake-up schedules' dead-letter queue, when configured. */
  scheduleDeadLetterArn?: string;
  /** The execution timeout of this function's runs, in seconds, when configured. */
  executionTimeoutSeconds?: number;
  /** The SQS queue of on-time wake-ups, when configured. */
  wakeQueueUrl?: string;
  /** How SQS wake-up delays are rounded, when configured (default `down`). */
  wakeDelayRounding?: DelayRounding;
  /** What stands behind an invocation's lease (default `reconciler`). */
  leaseWakeUp?: LeaseWakeUp;
  /** The DynamoDB client, when configured (default `light`). */
  dynamoDbClient?: DynamoDbClientKind;
}

/** The environment the production backend is configured from (`process.env` by default). */
export type ProductionEnvironment = Readonly<Record<string, string | undefined>>;

/** The production backend's environment is missing a variable or has an invalid value. */
export class ConfigurationError extends AwsError<'missing_configuration' | 'invalid_configuration'> {
  constructor(
    /** `missing_configuration` or `invalid_configuration`. */
    readonly code: 'missing_configuration' | 'invalid_configuration',
    /** The variables at fault. */
    readonly variables: readonly string[],
    message: string,
  ) {
    super(message);
    this.name = 'ConfigurationError';
  }
}

const REQUIRED = ['tableName', 'scheduleGroup', 'schedulerRoleArn', 'region'] as const;
const SCHEDULE_GROUP = /^[0-9a-zA-Z_.-]{1,64}$/;
const TABLE_NAME = /^[a-zA-Z0-9_.-]{3,255}$/;
const ROLE_ARN = /^arn:[a-z0-9-]+:iam::\d{12}:role\/\S+$/;
// A standard queue's URL (`https://sqs.<region>.amazonaws.com/<account>/<name>`, or an endpoint's;
// plain http only on this host, for a local emulator): a FIFO queue (`.fifo`) has no per-message delay.
const QUEUE_URL =
  /^(?:https:\/\/[a-zA-Z0-9.-]+|http:\/\/(?:localhost|127\.0\.0\.1))(?::\d+)?\/\d{12}\/[a-zA-Z0-9_-]{1,80}$/;
// EventBridge Scheduler's DeadLetterConfig.Arn pattern (a standard queue: FIFO queues are refused).
const QUEUE_ARN = /^arn:aws[a-z-]*:sqs:[a-z0-9-]+:\d{12}:[a-zA-Z0-9_-]{1,80}$/;

/**
 * Reads the production configuration from `env`; every required variable missing is named in one
 * {@link ConfigurationError} (`missing_configuration`), a malformed value in another
 * (`invalid_configuration`).
 */
export function readProductionConfig(env: ProductionEnvironment): ProductionConfig {
  const value = (key: keyof typeof PRODUCTION_ENV) => env[PRODUCTION_ENV[key]]?.trim() || undefined;
  const missing = REQUIRED.filter((key) => value(key) === undefined).map((key) => PRODUCTION_ENV[key]);
  if (missing.length > 0) {
    throw new ConfigurationError(
      'missing_configuration',
      missing,
      `durable-lambda: missing environment variable${missing.length > 1 ? 's' : ''} ${missing.join(', ')} ` +
        '(the production backend needs DURABLE_TABLE_NAME, DURABLE_SCHEDULE_GROUP, DURABLE_SCHEDULER_ROLE_ARN and AWS_REGION; ' +
        'the DurableFunction construct sets them, or pass config.backend)',
    );
  }
  const config: ProductionConfig = {
    tableName: value('tableName') as string,
    scheduleGroup: value('scheduleGroup') as string,
    schedulerRoleArn: value('schedulerRoleArn') as string,
    region: value('region') as string,
    retentionDays: DEFAULT_RETENTION_DAYS,
  };
  check(TABLE_NAME.test(config.tableName), 'tableName', 'a DynamoDB table name (3-255 of [a-zA-Z0-9_.-])');
  const legacy = value('legacyIndexes');
  if (legacy !== undefined) {
    check(legacy === '1' || legacy === '0', 'legacyIndexes', '1 (the table has the layout-1 indexes) or 0');
    config.legacyIndexes = legacy === '1';
  }
  check(SCHEDULE_GROUP.test(config.scheduleGroup), 'scheduleGroup', 'a schedule group name (1-64 of [0-9a-zA-Z-_.])');
  check(ROLE_ARN.test(config.schedulerRoleArn), 'schedulerRoleArn', 'an IAM role ARN');
  const deadLetterArn = value('scheduleDeadLetterArn');
  if (deadLetterArn !== undefined) {
    config.scheduleDeadLetterArn = deadLetterArn;
    check(QUEUE_ARN.test(deadLetterArn), 'scheduleDeadLetterArn', 'the ARN of a standard SQS queue');
  }
  const queueUrl = value('wakeQueueUrl');
  if (queueUrl !== undefined) {
    config.wakeQueueUrl = queueUrl;
    check(QUEUE_URL.test(queueUrl), 'wakeQueueUrl', 'the URL of a standard SQS queue (not FIFO)');
  }
  const rounding = value('wakeDelayRounding');
  if (rounding !== undefined) {
    check((DELAY_ROUNDINGS as readonly string[]).includes(rounding), 'wakeDelayRounding', DELAY_ROUNDINGS.join(' or '));
    config.wakeDelayRounding = rounding as DelayRounding;
  }
  const lease = value('leaseWakeUp');
  if (lease !== undefined) {
    check((LEASE_WAKE_UPS as readonly string[]).includes(lease), 'leaseWakeUp', LEASE_WAKE_UPS.join(' or '));
    config.leaseWakeUp = lease as LeaseWakeUp;
  }
  const dynamoDbClient = value('dynamoDbClient');
  if (dynamoDbClient !== undefined) {
    check(
      (DYNAMODB_CLIENTS as readonly string[]).includes(dynamoDbClient),
      'dynamoDbClient',
      DYNAMODB_CLIENTS.join(' or '),
    );
    config.dynamoDbClient = dynamoDbClient as DynamoDbClientKind;
  }
  const timeout = env[EXECUTION_TIMEOUT_ENV]?.trim() || undefined;
  if (timeout !== undefined) {
    // Digits only: `1e3`, `0x10` or `60.5` are not what an operator means by seconds.
    const seconds = /^\d{1,9}$/.test(timeout) ? Number(timeout) : Number.NaN;
    if (!(seconds >= 1 && seconds <= MAX_EXECUTION_TIMEOUT_SECONDS)) {
      throw invalid(
        EXECUTION_TIMEOUT_ENV,
        `a whole number of seconds from 1 to ${MAX_EXECUTION_TIMEOUT_SECONDS} (366 days)`,
      );
    }
    config.executionTimeoutSeconds = seconds;
  }
  const days = value('retentionDays');
  if (days !== undefined) {
    config.retentionDays = Number(days);
    check(Number.isFinite(config.retentionDays) && config.retentionDays > 0, 'retentionDays', 'a positive number');
  }
  return config;

  function check(ok: boolean, key: keyof typeof PRODUCTION_ENV, expected: string): void {
    if (!ok) throw invalid(PRODUCTION_ENV[key], expected);
  }

  function invalid(name: string, expected: string): ConfigurationError {
    return new ConfigurationError(
      'invalid_configuration',
      [name],
      `durable-lambda: environment variable ${name} must be ${expected}, got ${JSON.stringify(env[name])}`,
    );
  }
}
