/**
 * DynamoDB capacity, measured request by request: an interceptor on the DynamoDB client asks every
 * data request for its `ConsumedCapacity` (`ReturnConsumedCapacity: 'INDEXES'`, unless the request
 * set it) and reports the units it consumed, table and global secondary indexes together (the
 * answer's `CapacityUnits`; an array for batches and transactions, summed), as read or write
 * units by the command. The run meter adds them to the invocation they were made for.
 *
 * A conditional write that is refused answers with an error and no `ConsumedCapacity`, yet it is
 * billed: "a failed conditional write still consumes write capacity", at least 1 WRU, more for a
 * larger item (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html).
 * It is reported as 1 WRU, the least it can cost. A cancelled transaction and a throttled request
 * report nothing. An attempt the client retried after a lost response is not seen, only the last.
 */
import { performance } from 'node:perf_hooks';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type DynamoDbInterceptor, type DynamoDbTransport, isDynamoDbTransport } from './dynamodb/commands';
import { addInterceptorMiddleware } from './dynamodb/sdk-transport';

/** What one DynamoDB request consumed. */
export interface ConsumedCapacity {
  /** The low-level command (`UpdateItemCommand`, `QueryCommand`, ...). */
  command: string;
  /** Read request units (reads). */
  rru: number;
  /** Write request units (writes). */
  wru: number;
  /** The base table's share of the units (without the indexes'); for a single-item request, its item size. */
  tableUnits: number;
  /** The request's round trip, ms (retries included). */
  ms: number;
  /** The request was refused by its condition (its units are the least it cost, 1 WRU). */
  refused: boolean;
}

/** Commands that read, by their low-level name. */
const READS = new Set([
  'GetItemCommand',
  'QueryCommand',
  'ScanCommand',
  'BatchGetItemCommand',
  'TransactGetItemsCommand',
]);
/** Commands that write, by their low-level name. */
const WRITES = new Set([
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'BatchWriteItemCommand',
  'TransactWriteItemsCommand',
]);
/** Single-item writes: refused by a condition, each still costs at least 1 WRU. */
const CONDITIONAL = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand']);

/** The name the middleware is added under (so adding it twice is refused by the SDK). */
export const CONSUMED_CAPACITY_MIDDLEWARE = 'durableLambdaConsumedCapacity';

/** The units of a `ConsumedCapacity` answer (one object, or one per table for batches and transactions). */
export function capacityUnits(consumed: unknown): number {
  const entries = Array.isArray(consumed) ? consumed : consumed === undefined ? [] : [consumed];
  let units = 0;
  for (const entry of entries) {
    const value = (entry as { CapacityUnits?: unknown } | null)?.CapacityUnits;
    if (typeof value === 'number' && Number.isFinite(value)) units += value;
  }
  return units;
}

/** The base table's units of a `ConsumedCapacity` answer (`Table.CapacityUnits`, as `INDEXES` returns). */
export function tableUnits(consumed: unknown): number {
  const entries = Array.isArray(consumed) ? consumed : consumed === undefined ? [] : [consumed];
  let units = 0;
  for (const entry of entries) {
    const value = (entry as { Table?: { CapacityUnits?: unknown } } | null)?.Table?.CapacityUnits;
    if (typeof value === 'number' && Number.isFinite(value)) units += value;
  }
  return units;
}

/**
 * Measures every data request a DynamoDB client sends: the light client
 * (`LightDynamoDbClient`, or any {@link DynamoDbTransport}) through an interceptor, an AWS SDK
 * client (a `DynamoDBClient`, or the `DynamoDBDocumentClient` over it: they share one middleware
 * stack) through middleware of its `initialize` step. `report` is called once per data request
 * with what it consumed (synchronously, in the request's async context).
 */
export function measureConsumedCapacity(
  client: Pick<DynamoDBClient, 'middlewareStack'> | DynamoDbTransport,
  report: (consumed: ConsumedCapacity) => void,
): void {
  const interceptor = consumedCapacityInterceptor(report);
  if (isDynamoDbTransport(client)) client.intercept(interceptor);
  else addInterceptorMiddleware(client, interceptor, CONSUMED_CAPACITY_MIDDLEWARE);
}

/** The measuring interceptor of {@link measureConsumedCapacity}. */
export function consumedCapacityInterceptor(report: (consumed: ConsumedCapacity) => void): DynamoDbInterceptor {
  return async ({ commandName: command, input }, next) => {
    const reads = READS.has(command);
    const writes = WRITES.has(command);
    if (!reads && !writes) return next(input as Record<string, unknown>);
    // A copy: the caller's input object is left as it was.
    const asked = input.ReturnConsumedCapacity === undefined ? { ...input, ReturnConsumedCapacity: 'INDEXES' } : input;
    const started = performance.now();
    try {
      const output = await next(asked);
      const consumed = output.ConsumedCapacity;
      const units = capacityUnits(consumed);
      report({
        command,
        rru: reads ? units : 0,
        wru: writes ? units : 0,
        tableUnits: tableUnits(consumed),
        ms: performance.now() - started,
        refused: false,
      });
      return output;
    } catch (error) {
      if (
        CONDITIONAL.has(command) &&
        (error as { name?: unknown } | null)?.name === 'ConditionalCheckFailedException'
      ) {
        report({ command, rru: 0, wru: 1, tableUnits: 1, ms: performance.now() - started, refused: true });
      }
      throw error;
    }
  };
}
