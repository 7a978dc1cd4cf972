/**
 * The run watchdog's Lambda entry (bundled by the `DurableFunction` construct, one per stack and
 * table, run every 5 minutes): counts each watched function's runs still RUNNING past its expected
 * duration on the table's `byFunctionTime` index (its 32 partitions `listKey = f#n AND createdAt <
 * now - threshold`, filtered on `status = RUNNING`, `Select: COUNT`; and the layout-1 `byFunction`
 * index when the table keeps it), for the function and each of its
 * aliases and versions (`f:qualifier`, as runs started through them are recorded), and publishes
 * `StuckRuns`.
 */
import { DynamoDBClient, QueryCommand, type QueryCommandOutput } from '@aws-sdk/client-dynamodb';
import {
  LambdaClient,
  ListAliasesCommand,
  type ListAliasesCommandOutput,
  ListVersionsByFunctionCommand,
  type ListVersionsByFunctionCommandOutput,
} from '@aws-sdk/client-lambda';
import { splitRunName } from '@durable-lambda/aws';
import { checkStuckRuns, readWatchedFunctions, WATCHDOG_ENV } from './watchdog';

const tableName = process.env[WATCHDOG_ENV.tableName];
if (!tableName) throw new Error(`durable-lambda watchdog: missing environment variable ${WATCHDOG_ENV.tableName}`);
const functions = readWatchedFunctions(process.env);
const client = new DynamoDBClient({});
const lambda = new LambdaClient({});

/** Shards of a function in the listing index (`LIST_SHARDS` of `@durable-lambda/aws`; a test keeps them equal). */
export const LIST_SHARDS = 32;

async function countPages(input: ConstructorParameters<typeof QueryCommand>[0]): Promise<number> {
  let count = 0;
  let start: QueryCommandOutput['LastEvaluatedKey'];
  do {
    const page: QueryCommandOutput = await client.send(
      new QueryCommand({ ...input, ...(start ? { ExclusiveStartKey: start } : {}) }),
    );
    count += page.Count ?? 0;
    start = page.LastEvaluatedKey;
  } while (start);
  return count;
}

async function countRunning(functionName: string, createdBefore: number): Promise<number> {
  // Layout 2: the function's 32 listing partitions, runs created before the threshold, filtered
  // on the projected status and name (the read covers the function's older runs in retention).
  const base = splitRunName(functionName).name;
  const counts = await Promise.all(
    Array.from({ length: LIST_SHARDS }, (_, n) =>
      countPages({
        TableName: tableName,
        IndexName: 'byFunctionTime',
        Select: 'COUNT',
        KeyConditionExpression: '#k = :k AND #c < :c',
        FilterExpression: '#s = :s AND #f = :f',
        ExpressionAttributeNames: { '#k': 'listKey', '#c': 'createdAt', '#s': 'status', '#f': 'functionName' },
        ExpressionAttributeValues: {
          ':k': { S: `${base}#${n}` },
          ':c': { N: String(createdBefore) },
          ':s': { S: 'RUNNING' },
          ':f': { S: functionName },
        },
      }),
    ),
  );
  let count = counts.reduce((a, b) => a + b, 0);
  if (process.env.DURABLE_LEGACY_INDEXES === '1') {
    // Runs written before layout 2, in the table's layout-1 index.
    count += await countPages({
      TableName: tableName,
      IndexName: 'byFunction',
      Select: 'COUNT',
      KeyConditionExpression: '#f = :f AND #s = :s AND #c < :c',
      FilterExpression: 'attribute_not_exists(#k)',
      ExpressionAttributeNames: { '#f': 'functionName', '#s': 'status', '#c': 'createdAt', '#k': 'listKey' },
      ExpressionAttributeValues: {
        ':f': { S: functionName },
        ':s': { S: 'RUNNING' },
        ':c': { N: String(createdBefore) },
      },
    });
  }
  return count;
}

async function listQualifiers(functionName: string): Promise<string[]> {
  const qualifiers: string[] = [];
  let marker: string | undefined;
  do {
    const page: ListAliasesCommandOutput = await lambda.send(
      new ListAliasesCommand({ FunctionName: functionName, ...(marker ? { Marker: marker } : {}) }),
    );
    for (const alias of page.Aliases ?? []) if (alias.Name) qualifiers.push(alias.Name);
    marker = page.NextMarker;
  } while (marker);
  do {
    const page: ListVersionsByFunctionCommandOutput = await lambda.send(
      new ListVersionsByFunctionCommand({ FunctionName: functionName, ...(marker ? { Marker: marker } : {}) }),
    );
    for (const version of page.Versions ?? []) if (version.Version) qualifiers.push(version.Version);
    marker = page.NextMarker;
  } while (marker);
  return qualifiers;
}

export const handler = async (): Promise<Record<string, number>> =>
  checkStuckRuns(functions, countRunning, { listQualifiers });
