/**
 * Where `durable export` and `durable replay` read runs: the control API (the typed client), or
 * straight from a table: the DynamoDB table of a deployment (`--table`, through
 * `@durable-lambda/aws`) or the dev server's SQLite file (`--db`, through `@durable-lambda/local`).
 *
 * Reading a store goes through the engine's `Store` port only (`getRun`, `loadOperations`,
 * `listRuns`), so the same code serves both tables. The AWS SDK's DynamoDB clients are loaded only
 * for `--table` (about a tenth of a CPU-second that no other command needs).
 */

import type { DurableClient, RunListWire } from '@durable-lambda/api';
import { exportRunFromApi } from '@durable-lambda/api';
import { DynamoDbStore, defaultCredentials, payloadBucketOptions, withPayloadKey } from '@durable-lambda/aws';
import type { RunPage, RunQuery, RunRecord, RunStatus } from '@durable-lambda/engine';
import type { ReplayReport } from '@durable-lambda/local';
import * as local from '@durable-lambda/local';
import type { Operation } from '@durable-lambda/protocol';
import { type CommandLine, stringOption } from './args';
import type { CliIo } from './io';
import { UsageError } from './usage';

/** The store methods an export reads (a subset of the engine's `Store`). */
export interface ReadableStore {
  getRun(runId: string): Promise<RunRecord | undefined>;
  loadOperations(runId: string): Promise<Operation[]>;
  listRuns(query: RunQuery): Promise<RunPage>;
}

/** A source of runs: exports one, and lists a function's runs for the CI mode. */
export interface RunSource {
  /** What it reads, for messages (`the API at …`, `table T`, `file F`). */
  readonly label: string;
  /** The exported-run file of one run (an object in the `durable-lambda/recorded-run` format). */
  exportRun(runId: string): Promise<unknown>;
  /**
   * The function's runs (`--function`) with this status (or any), newest first, those `keep`
   * wants, at most `limit`.
   */
  listRunIds(
    status: RunStatus | undefined,
    keep: (status: RunStatus) => boolean,
    limit: number,
  ): Promise<Array<{ runId: string; status: RunStatus }>>;
  close(): void;
}

/** What the CLI needs of `@durable-lambda/local`. */
export interface LocalReplayPackage {
  SqliteStore: new (options: { path: string }) => ReadableStore & { close(): void };
  recordRunFromStore(store: ReadableStore, runId: string): Promise<unknown>;
  replayRecordedRun(handler: unknown, recorded: unknown): Promise<ReplayReport>;
  parseRecordedRun(value: unknown): { run: { runId: string; functionName: string; status: string } };
}

/** `@durable-lambda/local`'s replay and recording (a dependency of this package). */
export async function loadReplayPackage(): Promise<LocalReplayPackage> {
  return local;
}

/** `--table` / `--db` / the API, as the command line says (`--table` and `--db` exclude each other). */
export async function openRunSource(
  line: CommandLine,
  io: CliIo,
  client: () => Promise<DurableClient>,
): Promise<RunSource> {
  const table = stringOption(line, 'table');
  const db = stringOption(line, 'db');
  const fn = stringOption(line, 'function');
  if (table !== undefined && db !== undefined) throw new UsageError('--table and --db: give one, not both');
  if (db !== undefined) {
    const local = await loadReplayPackage();
    const store = new local.SqliteStore({ path: db });
    const exportRun = (runId: string) => local.recordRunFromStore(store, runId);
    return storeSource(`file ${db}`, store, exportRun, fn, () => store.close());
  }
  if (table !== undefined) {
    const local = await loadReplayPackage();
    const store = await openDynamoTable(table, stringOption(line, 'region') ?? io.env.AWS_REGION);
    return storeSource(
      `table ${table}`,
      store,
      (runId) => local.recordRunFromStore(store, runId),
      fn,
      () => {},
    );
  }
  return apiSource(await client(), fn);
}

/** One page of a function's runs, newest first. */
type RunLister = (
  status: RunStatus | undefined,
  cursor: string | undefined,
) => Promise<{ runs: Array<{ runId: string; status: RunStatus }>; cursor?: string }>;

/** Runs scanned at most for the CI mode's finished runs (100 pages of 100). */
const MAX_SCANNED = 10_000;

/** Pages through a function's runs, newest first, keeping those `keep` wants, at most `limit`. */
async function collect(
  list: RunLister,
  status: RunStatus | undefined,
  keep: (status: RunStatus) => boolean,
  limit: number,
): Promise<Array<{ runId: string; status: RunStatus }>> {
  const found: Array<{ runId: string; status: RunStatus }> = [];
  let cursor: string | undefined;
  let scanned = 0;
  do {
    const page = await list(status, cursor);
    for (const run of page.runs) if (found.length < limit && keep(run.status)) found.push(run);
    scanned += page.runs.length;
    cursor = page.cursor;
  } while (cursor !== undefined && found.length < limit && scanned < MAX_SCANNED);
  return found;
}

function source(label: string, exportRun: RunSource['exportRun'], list: RunLister, close: () => void): RunSource {
  return {
    label,
    exportRun,
    close,
    listRunIds: (status, keep, limit) => collect(list, status, keep, limit),
  };
}

function storeSource(
  label: string,
  store: ReadableStore,
  exportRun: (runId: string) => Promise<unknown>,
  functionName: string | undefined,
  close: () => void,
): RunSource {
  const list: RunLister = async (status, cursor) => {
    const page = await store.listRuns({
      ...(functionName === undefined ? {} : { functionName }),
      ...(status ? { status } : {}),
      limit: 100,
      ...(cursor ? { cursor } : {}),
    });
    return { runs: page.runs, ...(page.cursor ? { cursor: page.cursor } : {}) };
  };
  return source(label, exportRun, list, close);
}

function apiSource(client: DurableClient, functionName: string | undefined): RunSource {
  const list: RunLister = async (status, cursor) => {
    const page: RunListWire = await client.listRuns({
      ...(functionName === undefined ? {} : { function: functionName }),
      ...(status ? { status } : {}),
      limit: 100,
      ...(cursor ? { cursor } : {}),
    });
    return { runs: page.runs, ...(page.nextCursor ? { cursor: page.nextCursor } : {}) };
  };
  return source(
    'the API',
    (runId) => exportRunFromApi(client, runId),
    list,
    () => {},
  );
}

/**
 * A DynamoDB table of a deployment, read with the default AWS credentials; the endpoint follows
 * the SDK's own settings (`AWS_ENDPOINT_URL_DYNAMODB` for DynamoDB Local).
 */
async function openDynamoTable(tableName: string, region: string | undefined): Promise<ReadableStore> {
  const [{ DynamoDBClient }, { DynamoDBDocumentClient }] = await Promise.all([
    import('@aws-sdk/client-dynamodb'),
    import('@aws-sdk/lib-dynamodb'),
  ]);
  const client = DynamoDBDocumentClient.from(new DynamoDBClient(region ? { region } : {}), {
    marshallOptions: { removeUndefinedValues: true },
  });
  // A table whose functions keep large payloads in a bucket or seal them with a key: the same
  // variables as theirs (DURABLE_PAYLOAD_BUCKET, DURABLE_PAYLOAD_KEY_ARN), read with your credentials.
  const at = region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1';
  const credentials = defaultCredentials();
  return withPayloadKey(
    new DynamoDbStore({ client, tableName, ...payloadBucketOptions(process.env, at, credentials) }),
    process.env,
    at,
    credentials,
  );
}
