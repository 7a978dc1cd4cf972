/**
 * What a synthesized stack costs a month before its first run: every resource of the template
 * priced (fixed-cost-prices.ts), or named free with the reason, or reported as unknown. The bench
 * (`bench/figures/fixed-cost-figures.ts`) prices a default `DurableFunction` with it, and a test
 * checks that the default stack holds nothing it does not price.
 */
import { FIXED_COST_ASSUMPTIONS, FIXED_COST_PRICES, type FixedCostAssumptions } from './fixed-cost-prices';
import { METRIC, METRICS_ENV } from './runtime/metrics';
import { WATCHDOG_ENV } from './runtime/watchdog';
import { RECONCILER_FUNCTIONS_ENV } from './scheduler-access';

export {
  FIXED_COST_ASSUMPTIONS,
  FIXED_COST_PRICES,
  type FixedCostAssumptions,
  type FixedCostPrice,
} from './fixed-cost-prices';

/** A CloudFormation template, as `cdk synth` writes it (only what the model reads is typed). */
export interface CloudFormationTemplate {
  readonly Resources: Readonly<Record<string, { readonly Type: string; readonly Properties?: unknown }>>;
}

/** One line of the estimate. */
export interface FixedCostLine {
  /** What is priced. */
  readonly item: string;
  /** The template's resources it covers. */
  readonly logicalIds: readonly string[];
  /** How much of what, a month. */
  readonly quantity: string;
  /** US dollars a month. */
  readonly monthlyUsd: number;
  /** The pages its prices and assumptions come from. */
  readonly sources: readonly string[];
}

/** What {@link fixedMonthlyCost} found. */
export interface FixedCostEstimate {
  readonly lines: readonly FixedCostLine[];
  /** The sum of the lines, US dollars a month. */
  readonly monthlyUsd: number;
  /** `logicalId (Type)` of each resource whose type the model does not know: a gap in the estimate. */
  readonly unknown: readonly string[];
  /** Alarm metrics priced (an alarm on a metric math expression counts each metric it reads). */
  readonly alarmMetrics: number;
  /** Custom metrics priced (EMF metrics the functions publish, by their `DURABLE_CUSTOM_METRICS`). */
  readonly customMetrics: number;
  /** KMS keys priced. */
  readonly kmsKeys: number;
}

/** The reconciler's custom metrics (`RECONCILER_METRIC` of `@durable-lambda/aws`; a test keeps them equal). */
export const RECONCILER_METRIC_NAMES = ['RunsExamined', 'RunsWoken', 'ParentsNotified', 'Failed'] as const;

/** The custom metrics a durable function publishes when its run ends (`withRunMetrics`). */
export const RUN_METRIC_NAMES = [METRIC.runsSucceeded, METRIC.runsFailed, METRIC.runDuration] as const;

/** Resource types that cost nothing while no run happens, each with the reason. */
export const FREE_RESOURCE_TYPES: Readonly<Record<string, string>> = {
  'AWS::IAM::Role': 'IAM is free',
  'AWS::IAM::Policy': 'IAM is free',
  'AWS::Scheduler::ScheduleGroup':
    'a schedule group is free; its one-time schedules are billed per invocation, per run',
  'AWS::Lambda::Version': 'Lambda bills requests and duration only',
  'AWS::Lambda::Alias': 'Lambda bills requests and duration only',
  'AWS::Lambda::EventInvokeConfig': 'Lambda bills requests and duration only',
  'AWS::Lambda::Permission': 'Lambda bills requests and duration only',
  'AWS::Lambda::Url': 'billed per request of its function',
  'AWS::SQS::Queue':
    'SQS bills requests: nothing reads it at rest (the wake-up queue is polled: its event source line)',
  'AWS::SQS::QueuePolicy': 'free',
  'AWS::Pipes::Pipe': 'EventBridge Pipes bills the requests it delivers (after its filter) only',
  'AWS::Logs::LogGroup': 'billed per GB ingested and stored: priced with the scheduled function writing to it',
  'AWS::CDK::Metadata': 'CDK metadata, deployed as nothing billable',
  'AWS::S3::Bucket': 'S3 bills storage and requests only: the payload bucket is empty until a large payload is written',
  'AWS::S3::BucketPolicy': 'free',
};

type Resource = { readonly Type: string; readonly Properties?: unknown };

/**
 * Prices the always-on parts of `template` a month: scheduled functions (their requests,
 * GB-seconds, cold starts, Queries and logs), SQS event sources (their empty long polls), alarms
 * (per alarm metric), custom metrics, KMS keys and the KMS requests of tables under the AWS
 * managed key. Everything else is free at rest ({@link FREE_RESOURCE_TYPES}) or `unknown`.
 */
export function fixedMonthlyCost(
  template: CloudFormationTemplate,
  assumptions: Partial<FixedCostAssumptions> = {},
): FixedCostEstimate {
  const a = { ...FIXED_COST_ASSUMPTIONS, ...assumptions };
  const P = FIXED_COST_PRICES;
  const minutesPerMonth = a.hoursPerMonth * 60;
  const resources = Object.entries(template.Resources);
  const lines: FixedCostLine[] = [];
  const unknown: string[] = [];
  const free = new Map<string, string[]>();
  let alarmMetrics = 0;
  let customMetrics = 0;
  let kmsKeys = 0;

  // Scheduled functions: the functions each scheduled rule invokes, and how often.
  const schedules = new Map<string, { rule: string; minutes: number }>();
  for (const [id, r] of resources) {
    if (r.Type !== 'AWS::Events::Rule') continue;
    const minutes = rateMinutes(prop(r, 'ScheduleExpression'));
    if (minutes === undefined) continue;
    for (const target of arrayOf(prop(r, 'Targets'))) {
      const fn = getAttId(field(target, 'Arn'));
      if (fn !== undefined) schedules.set(fn, { rule: id, minutes });
    }
  }
  const tableReaders: Array<{ table: string | undefined; invocations: number }> = [];

  for (const [id, r] of resources) {
    const env = environmentOf(r);
    switch (r.Type) {
      case 'AWS::Lambda::Function': {
        const schedule = schedules.get(id);
        const reconciler = env[RECONCILER_FUNCTIONS_ENV] !== undefined;
        const watched =
          env[WATCHDOG_ENV.functions] === undefined ? 0 : occurrences(env[WATCHDOG_ENV.functions], 'thresholdMs');
        const metricsOn = env[METRICS_ENV] === 'on';
        const durable = env.DURABLE_SCHEDULE_GROUP !== undefined && !reconciler;
        const metrics =
          (metricsOn && reconciler ? RECONCILER_METRIC_NAMES.length : 0) +
          (metricsOn && durable ? RUN_METRIC_NAMES.length : 0) +
          watched; // StuckRuns, one per watched function
        if (metrics > 0) {
          customMetrics += metrics;
          lines.push({
            item: `custom metrics of ${id}`,
            logicalIds: [id],
            quantity: `${metrics} metrics`,
            monthlyUsd: metrics * P.customMetric.usd,
            sources: [P.customMetric.source],
          });
        }
        if (!schedule) {
          addFree(free, 'Lambda functions invoked per run only (requests and duration per run)', id);
          break;
        }
        const invocations = minutesPerMonth / schedule.minutes;
        const memoryMb = numberOf(prop(r, 'MemorySize')) ?? 128;
        const arm = arrayOf(prop(r, 'Architectures')).includes('arm64');
        const vcpu = Math.min(1, memoryMb / a.mbPerVcpu);
        const queries = reconciler ? a.dueShards : watched * a.watchdogQueriesPerFunction;
        const durationMs = (a.cpuMsPerPass + queries * a.cpuMsPerQuery) / vcpu + a.waitMsPerPass;
        const coldStarts =
          schedule.minutes > a.warmMinutes ? invocations : Math.min(invocations, a.coldStartsPerHour * a.hoursPerMonth);
        const gbSeconds = (memoryMb / 1024) * ((invocations * durationMs + (coldStarts * a.initCpuMs) / vcpu) / 1000);
        const gbSecond = arm ? P.lambdaGbSecondArm : P.lambdaGbSecondX86;
        const readUnits = invocations * queries * a.readUnitsPerEmptyQuery;
        const logGb = (invocations * a.logBytesPerInvocation) / 1e9;
        const retentionMonths = (logRetentionDays(template, r) ?? 30) / 30;
        const usd =
          invocations * P.lambdaRequest.usd +
          gbSeconds * gbSecond.usd +
          readUnits * P.dynamoDbReadUnit.usd +
          logGb * (P.logIngestion.usd + retentionMonths * P.logStorage.usd);
        const what = reconciler ? 'reconciler' : watched > 0 ? 'stuck-runs watchdog' : 'scheduled function';
        lines.push({
          item: `${what} every ${schedule.minutes} min (${memoryMb} MB${arm ? ' arm64' : ''})`,
          logicalIds: [id, schedule.rule],
          quantity: `${round(invocations)} invocations, ${round(gbSeconds)} GB-s (${round(coldStarts)} cold starts), ${round(readUnits)} RRU (${queries} Queries a pass), ${(logGb * 1000).toFixed(1)} MB of logs`,
          monthlyUsd: usd,
          sources: [P.lambdaRequest.source, P.dynamoDbReadUnit.source, P.logIngestion.source, P.scheduledRule.source],
        });
        if (queries > 0) tableReaders.push({ table: refId(env.DURABLE_TABLE_NAME), invocations });
        break;
      }
      case 'AWS::Events::Rule':
        // Priced as part of the function it schedules (the rule's events are free).
        if (rateMinutes(prop(r, 'ScheduleExpression')) === undefined) unknown.push(`${id} (${r.Type})`);
        break;
      case 'AWS::Lambda::EventSourceMapping': {
        const requests = a.sqsPollers * (60 / a.sqsLongPollSeconds) * minutesPerMonth;
        lines.push({
          item: 'SQS event source polling the wake-up queue (empty long polls)',
          logicalIds: [id],
          quantity: `${round(requests)} ReceiveMessage requests (${a.sqsPollers} pollers, one ${a.sqsLongPollSeconds}-s poll each at a time)`,
          monthlyUsd: requests * P.sqsRequest.usd,
          sources: [P.sqsRequest.source],
        });
        break;
      }
      case 'AWS::CloudWatch::Alarm': {
        const metricsRead = arrayOf(prop(r, 'Metrics')).filter((m) => field(m, 'MetricStat') !== undefined).length;
        const count = Math.max(1, metricsRead);
        alarmMetrics += count;
        lines.push({
          item: `alarm ${id}`,
          logicalIds: [id],
          quantity: `${count} alarm metric${count === 1 ? '' : 's'}`,
          monthlyUsd: count * P.alarmMetric.usd,
          sources: [P.alarmMetric.source],
        });
        break;
      }
      case 'AWS::KMS::Key':
        kmsKeys += 1;
        lines.push({
          item: `KMS key ${id}`,
          logicalIds: [id],
          quantity: '1 key',
          monthlyUsd: P.kmsKey.usd,
          sources: [P.kmsKey.source],
        });
        break;
      case 'AWS::DynamoDB::Table':
        lines.push({
          item: 'DynamoDB table, on demand (empty: storage and point-in-time recovery grow with the data)',
          logicalIds: [id],
          quantity: `0 GB ($${P.dynamoDbStorage.usd} + $${P.dynamoDbPitr.usd} per GB-month as runs are kept)`,
          monthlyUsd: 0,
          sources: [P.dynamoDbStorage.source],
        });
        break;
      default: {
        const reason = FREE_RESOURCE_TYPES[r.Type];
        if (reason === undefined) unknown.push(`${id} (${r.Type})`);
        else addFree(free, `${r.Type}: ${reason}`, id);
      }
    }
  }

  // KMS requests of the tables under the AWS managed key, by the scheduled functions reading them.
  for (const [id, r] of resources) {
    if (r.Type !== 'AWS::DynamoDB::Table' || !awsManagedKey(r)) continue;
    const requests = tableReaders
      .filter((reader) => reader.table === id)
      .reduce((sum, reader) => sum + Math.min(reader.invocations, minutesPerMonth / a.kmsRefreshMinutes), 0);
    if (requests === 0) continue;
    lines.push({
      item: `KMS requests for ${id} (the AWS managed key aws/dynamodb; no monthly key fee)`,
      logicalIds: [id],
      quantity: `${round(requests)} requests (one per ${a.kmsRefreshMinutes} min per scheduled caller)`,
      monthlyUsd: requests * P.kmsRequest.usd,
      sources: [P.kmsRequest.source],
    });
  }
  for (const [what, ids] of free) {
    lines.push({ item: what, logicalIds: ids, quantity: `${ids.length}`, monthlyUsd: 0, sources: [] });
  }
  const monthlyUsd = lines.reduce((sum, line) => sum + line.monthlyUsd, 0);
  return { lines, monthlyUsd, unknown, alarmMetrics, customMetrics, kmsKeys };
}

function addFree(free: Map<string, string[]>, what: string, id: string): void {
  free.set(what, [...(free.get(what) ?? []), id]);
}

const round = (x: number) => Math.round(x).toLocaleString('en-US');

function prop(r: Resource, name: string): unknown {
  return field(r.Properties, name);
}

function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
}

function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function numberOf(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

function environmentOf(r: Resource): Record<string, unknown> {
  const vars = field(prop(r, 'Environment'), 'Variables');
  return typeof vars === 'object' && vars !== null ? (vars as Record<string, unknown>) : {};
}

/** Minutes between the events of `rate(N unit)`; undefined for anything else (cron, none). */
function rateMinutes(expression: unknown): number | undefined {
  const m = typeof expression === 'string' ? /^rate\((\d+) (minute|hour|day)s?\)$/.exec(expression) : null;
  if (!m) return undefined;
  return Number(m[1]) * { minute: 1, hour: 60, day: 1_440 }[m[2] as 'minute' | 'hour' | 'day'];
}

/** The logical id in `{ "Fn::GetAtt": [id, "Arn"] }`. */
function getAttId(value: unknown): string | undefined {
  const att = field(value, 'Fn::GetAtt');
  return Array.isArray(att) && typeof att[0] === 'string' ? att[0] : undefined;
}

/** The logical id in `{ "Ref": id }`. */
function refId(value: unknown): string | undefined {
  const ref = field(value, 'Ref');
  return typeof ref === 'string' ? ref : undefined;
}

/** How often `needle` appears in the value's JSON (a literal or an `Fn::Join` of parts). */
function occurrences(value: unknown, needle: string): number {
  return JSON.stringify(value).split(needle).length - 1;
}

/** A table under the AWS managed key `aws/dynamodb` (KMS requests billed, no key fee). */
function awsManagedKey(r: Resource): boolean {
  const sse = prop(r, 'SSESpecification');
  return field(sse, 'SSEEnabled') === true && field(sse, 'KMSMasterKeyId') === undefined;
}

/** The retention of the log group a function writes to (`LoggingConfig.LogGroup`), in days. */
function logRetentionDays(template: CloudFormationTemplate, fn: Resource): number | undefined {
  const group = refId(field(prop(fn, 'LoggingConfig'), 'LogGroup'));
  const resource = group === undefined ? undefined : template.Resources[group];
  return resource === undefined ? undefined : numberOf(prop(resource, 'RetentionInDays'));
}
