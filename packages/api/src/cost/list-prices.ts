/**
 * AWS list prices `durable cost` estimates with: US East (N. Virginia), on-demand, no free tier
 * (the free tiers are per account, shared by everything in it), in US dollars. Each was looked up
 * on the page it cites; check them there before relying on an estimate in another region or after
 * a price change. The bench's cost model (docs/performance.md) uses the same figures.
 */

/** One price: what a unit costs, and where it was read. */
export interface ListPrice {
  /** US dollars per unit. */
  usd: number;
  /** What one unit is. */
  unit: string;
  /** The page the price is published on. */
  source: string;
}

/** The list prices, by what they price. */
export const LIST_PRICES = {
  /** DynamoDB on-demand writes (after the November 2024 price cut): $0.625 per million WRU. */
  dynamodbWrite: {
    usd: 0.625 / 1e6,
    unit: 'write request unit',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
  },
  /** DynamoDB on-demand reads: $0.125 per million RRU. */
  dynamodbRead: {
    usd: 0.125 / 1e6,
    unit: 'read request unit',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
  },
  /** DynamoDB Standard table storage: $0.25 per GB-month (not metered per run: see `NOT_COUNTED`). */
  dynamodbStorage: {
    usd: 0.25,
    unit: 'GB-month',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
  },
  /** Lambda requests: $0.20 per million. */
  lambdaRequest: {
    usd: 0.2 / 1e6,
    unit: 'request',
    source: 'https://aws.amazon.com/lambda/pricing/',
  },
  /** Lambda duration on Arm (Graviton, what `DurableFunction` deploys), first 7.5 billion GB-s a month. */
  lambdaArmGbSecond: {
    usd: 0.0000133334,
    unit: 'GB-second',
    source: 'https://aws.amazon.com/lambda/pricing/',
  },
  /** EventBridge Scheduler: $1.00 per million scheduled invocations (its API calls are not billed). */
  schedulerInvocation: {
    usd: 1 / 1e6,
    unit: 'scheduled invocation',
    source: 'https://aws.amazon.com/eventbridge/pricing/',
  },
  /** SQS standard queue: $0.40 per million requests (each 64 KB chunk of a request). */
  sqsRequest: {
    usd: 0.4 / 1e6,
    unit: 'request',
    source: 'https://aws.amazon.com/sqs/pricing/',
  },
} as const satisfies Record<string, ListPrice>;

/** What a run costs that its meter does not hold, so `durable cost` leaves it out, and says so. */
export const NOT_COUNTED: readonly string[] = [
  `DynamoDB storage (${LIST_PRICES.dynamodbStorage.usd} USD per GB-month of the run's items for its retention)`,
  'CloudWatch Logs of the function',
  "the fixed monthly cost of the function and its table (the reconciler's schedule, alarms, metrics)",
  'the AWS free tiers',
];
