/**
 * The run watchdog's Lambda entry (bundled by the `DurableFunction` construct, one per stack and
 * table, run every 5 minutes): counts each watched function's runs still RUNNING past its expected
 * duration on the table's `byFunction` index (`functionName = f AND status = RUNNING AND
 * createdAt < now - threshold`, `Select: COUNT`, keys only), for the function and each of its
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
import { checkStuckRuns, readWatchedFunctions, WATCHDOG_ENV } from './watchdog';

const tableName = process.env[WATCHDOG_ENV.tableName];
if (!tableName) throw new Error(`durable-lambda watchdog: missing environment variable ${WATCHDOG_ENV.tableName}`);
const functions = readWatchedFunctions(process.env);
const client = new DynamoDBClient({});
const lambda = new LambdaClient({});

async function countRunning(functionName: string, createdBefore: number): Promise<number> {
  let count = 0;
  let start: QueryCommandOutput['LastEvaluatedKey'];
  do {
    const page: QueryCommandOutput = await client.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: 'byFunction',
        Select: 'COUNT',
        KeyConditionExpression: '#f = :f AND #s = :s AND #c < :c',
        ExpressionAttributeNames: { '#f': 'functionName', '#s': 'status', '#c': 'createdAt' },
        ExpressionAttributeValues: {
          ':f': { S: functionName },
          ':s': { S: 'RUNNING' },
          ':c': { N: String(createdBefore) },
        },
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    count += page.Count ?? 0;
    start = page.LastEvaluatedKey;
  } while (start);
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
