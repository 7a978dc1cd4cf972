/**
 * What the paging tests share: a big run written straight through a store (a map of thousands of
 * items, each a context with one step, as the SDK records one), the control API answered through
 * its Lambda handler (so each answer is measured as Lambda carries it), and a reader that follows
 * a run's history page by page.
 */
import { type LambdaHttpResult, toLambdaHandler } from '@durable-lambda/api';
import type { Engine, Store } from '@durable-lambda/engine';
import type { Operation } from '@durable-lambda/protocol';
import { LAMBDA_RESPONSE_LIMIT_BYTES, PAGE_BUDGET_BYTES } from '../../packages/api/src/server/page-budget';

/** A store that counts its full reads of a run's operations (the paged routes must not make any). */
export function countingFullReads(store: Store): { store: Store; fullReads: () => number } {
  let count = 0;
  const counted = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (name === 'loadOperations') {
        return (...args: unknown[]) => {
          count += 1;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
  return { store: counted, fullReads: () => count };
}

/**
 * Starts a run and writes `items` map items under one map context "1" (item "1-k", its step
 * "1-k-1"), `perCommit` operations a commit; step k's result is `result(k)`. Returns the run id.
 */
export async function writeMapRun(
  engine: Engine,
  store: Store,
  options: {
    items: number;
    result: (k: number) => string;
    perCommit?: number;
    /** Writes the operations some faster way than commits (a test of reads only). */
    bulkWrite?: BulkWrite;
  },
): Promise<string> {
  const { run } = await engine.startRun({ functionName: 'fn', input: '{"big":true}' });
  const now = Date.now();
  const grant = await store.acquireLease(run.runId, run.createdAt, run.createdAt + 3_600_000, `lease-${now}`);
  if (!grant) throw new Error('no lease');
  const at = run.createdAt;
  const ops: Operation[] = [
    { Id: '1', Type: 'CONTEXT', SubType: 'Map', Name: 'items', Status: 'STARTED', StartTimestamp: at },
  ];
  for (let k = 1; k <= options.items; k++) {
    ops.push({
      Id: `1-${k}`,
      ParentId: '1',
      Type: 'CONTEXT',
      SubType: 'MapIteration',
      Name: `item-${k}`,
      Status: 'SUCCEEDED',
      StartTimestamp: at,
      EndTimestamp: at + 1,
      ContextDetails: { Result: String(k) },
    });
    ops.push({
      Id: `1-${k}-1`,
      ParentId: `1-${k}`,
      Type: 'STEP',
      Name: 'work',
      Status: 'SUCCEEDED',
      StartTimestamp: at,
      EndTimestamp: at + 1,
      StepDetails: { Attempt: 1, Result: options.result(k) },
    });
  }
  if (options.bulkWrite) {
    await options.bulkWrite(run.runId, grant.run.fence, ops);
    return run.runId;
  }
  const per = options.perCommit ?? 99;
  for (let start = 0; start < ops.length; start += per) {
    await store.commit(run.runId, grant.run.fence, { operations: ops.slice(start, start + per) });
  }
  return run.runId;
}

/** Writes a run's operations as its store keeps them, without commits. */
export type BulkWrite = (runId: string, fence: number, operations: readonly Operation[]) => Promise<void>;

/** An answer of the API's Lambda handler, with the bytes of Lambda's response carrying it. */
export interface LambdaAnswer {
  status: number;
  json: any;
  /** Bytes of the handler's result as Lambda serializes it (what its 6 MB limit applies to). */
  responseBytes: number;
}

/** `GET path?query` through the Lambda handler of `api`. */
export function lambdaGetter(api: Parameters<typeof toLambdaHandler>[0]) {
  const handler = toLambdaHandler(api);
  return async (path: string, query: Record<string, string> = {}): Promise<LambdaAnswer> => {
    const result: LambdaHttpResult = await handler({
      version: '2.0',
      rawPath: path,
      rawQueryString: new URLSearchParams(query).toString(),
      headers: {},
      requestContext: { http: { method: 'GET', path } },
    });
    return {
      status: result.statusCode,
      json: JSON.parse(result.body),
      responseBytes: Buffer.byteLength(JSON.stringify(result), 'utf8'),
    };
  };
}

/** Every page of a run's history, each checked within the budget. */
export async function readAllPages(
  get: ReturnType<typeof lambdaGetter>,
  runId: string,
  query: Record<string, string> = {},
): Promise<any[]> {
  const pages: any[] = [];
  let cursor: string | undefined;
  do {
    const answer = await get(`/v1/runs/${encodeURIComponent(runId)}/operations`, {
      ...query,
      ...(cursor === undefined ? {} : { cursor }),
    });
    if (answer.status !== 200)
      throw new Error(`page ${pages.length + 1}: ${answer.status} ${JSON.stringify(answer.json)}`);
    if (answer.responseBytes > PAGE_BUDGET_BYTES || answer.responseBytes > LAMBDA_RESPONSE_LIMIT_BYTES) {
      throw new Error(`page ${pages.length + 1} takes ${answer.responseBytes} bytes`);
    }
    pages.push(answer.json);
    cursor = answer.json.nextCursor;
  } while (cursor !== undefined && pages.length < 100_000);
  return pages;
}
