import { MAX_RUN_TAGS, tagProblem } from '@durable-lambda/protocol';
import { EngineInputError } from './errors';
import type { RunQuery, RunRecord } from './ports';

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

/** The page size of a run query, validated (1-100, default 20). */
export function runQueryLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new EngineInputError('limit', `must be a whole number from 1 to ${MAX_LIMIT}`);
  }
  return limit;
}

/** An opaque cursor after `run` in newest-first order. */
export function encodeRunCursor(run: Pick<RunRecord, 'createdAt' | 'runId'>): string {
  return Buffer.from(JSON.stringify([run.createdAt, run.runId]), 'utf8').toString('base64url');
}

/** Longest run id a cursor may hold: as long as a run key (ids the engine makes are shorter). */
const MAX_CURSOR_RUN_ID = 256;

/**
 * Reads a cursor made by {@link encodeRunCursor}; a malformed one is bad input, and so is one
 * holding what no run has (a time that is not a whole number of ms, an id past any run id's
 * length): a store would carry it into its key condition, where DynamoDB refuses a number past
 * its range (`1e300`) or a key past its size.
 */
export function decodeRunCursor(cursor: string): { createdAt: number; runId: string } {
  try {
    const [createdAt, runId] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [unknown, unknown];
    if (
      Number.isSafeInteger(createdAt) &&
      typeof runId === 'string' &&
      runId.length > 0 &&
      runId.length <= MAX_CURSOR_RUN_ID
    ) {
      return { createdAt: createdAt as number, runId };
    }
  } catch {
    // falls through to the error below
  }
  throw new EngineInputError('cursor', 'is not a cursor this API returned');
}

/** An ARN's (or a partial ARN's) part before the function's own name, which may hold `:`. */
const ARN_PREFIX = /^(?:arn:[^:]+:lambda:[^:]+:\d{12}:function:|\d{12}:function:)/;

/**
 * The function a run's name belongs to, without its qualifier: `orders:7`, `orders:live` and
 * `orders:$LATEST` are runs of `orders` (a run records the version or alias it started on after
 * a `:`, as Lambda qualifies a function name); in an ARN-shaped name the qualifier is what
 * follows the function's name (`arn:…:function:orders:7` → `arn:…:function:orders`).
 */
export function functionBaseName(functionName: string): string {
  const prefix = ARN_PREFIX.exec(functionName)?.[0] ?? '';
  const at = functionName.indexOf(':', prefix.length);
  return at < 0 ? functionName : functionName.slice(0, at);
}

/**
 * Whether a run recorded under `recorded` matches a run query's `functionName`: a bare name
 * (`orders`) matches the runs of every qualifier of it (`orders`, `orders:7`, `orders:live`,
 * `orders:$LATEST`); a qualified one (`orders:7`) matches only itself.
 */
export function runOfFunction(recorded: string, queried: string): boolean {
  if (recorded === queried) return true;
  return functionBaseName(queried) === queried && functionBaseName(recorded) === queried;
}

/** The longest `errorCode` a run query may filter on. */
export const MAX_ERROR_CODE_FILTER_LENGTH = 256;

/**
 * Refuses a run query's search filters that no run can match or no store can key on: `tags` not an
 * object of valid tags (`tagProblem`, fields `tags.<key>`), more than `MAX_RUN_TAGS` of them, an
 * `errorCode` that is not a string of 1-256 characters. Every store calls it first.
 */
export function checkRunSearch(query: Pick<RunQuery, 'tags' | 'errorCode'>): void {
  const { tags, errorCode } = query;
  if (tags !== undefined) {
    if (typeof tags !== 'object' || tags === null || Array.isArray(tags)) {
      throw new EngineInputError('tags', 'must be an object of string values');
    }
    const entries = Object.entries(tags);
    if (entries.length > MAX_RUN_TAGS) throw new EngineInputError('tags', `at most ${MAX_RUN_TAGS} tags`);
    for (const [key, value] of entries) {
      const problem = tagProblem(key, value);
      if (problem) throw new EngineInputError(problem.field, problem.message);
    }
  }
  if (
    errorCode !== undefined &&
    (typeof errorCode !== 'string' || errorCode.length === 0 || errorCode.length > MAX_ERROR_CODE_FILTER_LENGTH)
  ) {
    throw new EngineInputError('errorCode', `must be a string of 1-${MAX_ERROR_CODE_FILTER_LENGTH} characters`);
  }
}

/** Whether `run` carries every tag of `query.tags` and has the error code `query.errorCode` (each when given). */
export function runMatchesSearch(
  run: Pick<RunRecord, 'tags' | 'error'>,
  query: Pick<RunQuery, 'tags' | 'errorCode'>,
): boolean {
  if (query.errorCode !== undefined && run.error?.ErrorCode !== query.errorCode) return false;
  if (query.tags === undefined) return true;
  return Object.entries(query.tags).every(([key, value]) => run.tags?.[key] === value);
}
