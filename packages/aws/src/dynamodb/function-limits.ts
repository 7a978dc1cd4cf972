/**
 * Each function's flow-control limits on DynamoDB (TABLE.md, "Function limits"): one item per
 * function, `pk = FUNCTION_LIMITS`, `sk = <function base name>`, holding the record. One
 * partition for every function: written only when a cold start finds the code's limits differ
 * from the stored ones (`noteFunctionLimits` reads first), read by the control API's functions
 * listing with one Query; a table holds tens of functions, so the partition stays small and cold.
 */
import type { FunctionLimitsRecord } from '@durable-lambda/engine';
import { PutCommand } from './commands';
import { Expressions } from './expressions';
import { PK, SK } from './layout';
import type { Item, TableAccess } from './table-access';

/** The partition of every function's limits item. */
export const FUNCTION_LIMITS_PK = 'FUNCTION_LIMITS';

function recordOf(item: Item): FunctionLimitsRecord {
  return {
    functionName: String(item.functionName),
    limits: (item.limits ?? {}) as FunctionLimitsRecord['limits'],
    recordedAt: Number(item.recordedAt),
    ...(typeof item.version === 'string' ? { version: item.version } : {}),
  };
}

/** The `Store` port's limits methods on the table. */
export class DynamoDbFunctionLimits {
  constructor(private readonly access: TableAccess) {}

  /** `Store.putFunctionLimits`: one PutItem, replacing the function's item. */
  async put(record: FunctionLimitsRecord): Promise<void> {
    await this.access.client.send(
      new PutCommand({
        TableName: this.access.tableName,
        Item: {
          [PK]: FUNCTION_LIMITS_PK,
          [SK]: record.functionName,
          functionName: record.functionName,
          limits: record.limits,
          recordedAt: record.recordedAt,
          ...(record.version === undefined ? {} : { version: record.version }),
        },
      }),
    );
  }

  /** `Store.getFunctionLimits`: one strongly consistent GetItem. */
  async get(functionName: string): Promise<FunctionLimitsRecord | undefined> {
    const item = await this.access.getItem(FUNCTION_LIMITS_PK, functionName);
    return item && recordOf(item);
  }

  /** `Store.listFunctionLimits`: one Query of the partition (more pages past 1 MB), by name. */
  async list(): Promise<FunctionLimitsRecord[]> {
    const e = new Expressions();
    const items = await this.access.queryAll({
      KeyConditionExpression: `${e.name(PK)} = ${e.value(FUNCTION_LIMITS_PK)}`,
      ...e.attributes(),
    });
    return items.map(recordOf);
  }
}
