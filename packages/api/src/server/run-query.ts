import { MAX_ERROR_CODE_FILTER_LENGTH, type RunQuery, type RunStatus } from '@durable-lambda/engine';
import { MAX_RUN_TAGS, tagProblem } from '@durable-lambda/protocol';
import { invalidArgument } from './errors';
import type { ApiRequest } from './http';

/** The statuses a run can have, for validating filters. */
export const RUN_STATUSES: readonly RunStatus[] = [
  'RUNNING',
  'QUEUED',
  'SUCCEEDED',
  'FAILED',
  'TIMED_OUT',
  'STOPPED',
  'CANCELLED',
];

const PARAMS = [
  'function',
  'status',
  'limit',
  'cursor',
  'createdAfter',
  'createdBefore',
  'search',
  'contains',
  'include',
  'concurrencyKey',
  'tag',
  'errorCode',
] as const;
/** What `include` may ask for besides the runs themselves. */
const INCLUDES = ['waitingFor'] as const;
/** Longest search text (a run key is at most 256 characters). */
const MAX_SEARCH = 256;
/** Longest function name (Lambda's longest, an ARN with a qualifier, is 170 characters). */
const MAX_FUNCTION = 256;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** One query parameter's value; an empty value counts as absent, a repeated one is refused. */
function single(query: ApiRequest['query'], name: string): string | undefined {
  const value = query?.[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') {
    if (value.length > 1) throw invalidArgument(name, 'must be given at most once');
    return value[0] === '' ? undefined : value[0];
  }
  return value === '' ? undefined : value;
}

function isoTime(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = ISO_TIME.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw invalidArgument(name, 'must be an ISO-8601 time such as 2026-01-31T12:00:00Z');
  return ms;
}

/** What `GET /v1/runs` asks for besides the store's query. */
export interface RunListExtras {
  /** Runs whose id or run key is (or, where the store can search, contains) this text. */
  search?: string;
  /**
   * Runs whose input, result or error (code, type or message) contains this text, case-insensitive:
   * found by reading the newest runs within the other filters, a bounded number per request (see
   * `listRuns`), so it pages with `cursor` like a plain list.
   */
  contains?: string;
  /** Each RUNNING run's `waitingFor`. */
  waitingFor: boolean;
  /**
   * Runs of this concurrency key (1-256 characters, the key's own bound). With `function` and
   * `status=QUEUED`: the key's queue, in queue order; else found among the newest runs within the
   * other filters, a bounded number per request, like `contains`.
   */
  concurrencyKey?: string;
}

/**
 * Reads `GET /v1/runs`'s `search` (a run id or run key, or part of one; 1-256 characters),
 * `contains` (text in a run's input, result or error; 1-256 characters; not with `search`),
 * `concurrencyKey` (1-256 characters; not with `search` or `contains`) and `include` (a
 * comma-separated list: `waitingFor`).
 */
export function parseRunListExtras(query: ApiRequest['query']): RunListExtras {
  const search = single(query, 'search')?.trim();
  if (search !== undefined && search.length > MAX_SEARCH) {
    throw invalidArgument('search', `must be at most ${MAX_SEARCH} characters`);
  }
  const contains = single(query, 'contains')?.trim();
  if (contains !== undefined && contains.length > MAX_SEARCH) {
    throw invalidArgument('contains', `must be at most ${MAX_SEARCH} characters`);
  }
  if (contains && search) {
    throw invalidArgument('contains', 'cannot be combined with search (search finds runs by id or key)');
  }
  const concurrencyKey = single(query, 'concurrencyKey');
  if (concurrencyKey !== undefined && concurrencyKey.length > MAX_SEARCH) {
    throw invalidArgument('concurrencyKey', `must be at most ${MAX_SEARCH} characters`);
  }
  if (concurrencyKey !== undefined && (contains || search)) {
    throw invalidArgument('concurrencyKey', `cannot be combined with ${contains ? 'contains' : 'search'}`);
  }
  const include = single(query, 'include');
  const asked = include === undefined ? [] : include.split(',').map((part) => part.trim());
  for (const name of asked) {
    if (!(INCLUDES as readonly string[]).includes(name)) {
      throw invalidArgument('include', `unknown value ${JSON.stringify(name)} (expected ${INCLUDES.join(', ')})`);
    }
  }
  return {
    ...(search ? { search } : {}),
    ...(contains ? { contains } : {}),
    ...(concurrencyKey === undefined ? {} : { concurrencyKey }),
    waitingFor: asked.includes('waitingFor'),
  };
}

/**
 * `GET /v1/runs`'s `tag` parameters, each `key:value` (split at the first `:`, which no key holds),
 * repeatable: a run must carry all of them. A key given twice with two values matches no run.
 */
function parseTags(query: ApiRequest['query']): Record<string, string> | undefined {
  const raw = query?.tag;
  if (raw === undefined) return undefined;
  const values = (typeof raw === 'string' ? [raw] : raw).filter((value) => value !== '');
  if (values.length === 0) return undefined;
  if (values.length > MAX_RUN_TAGS) throw invalidArgument('tag', `must be given at most ${MAX_RUN_TAGS} times`);
  const tags: Record<string, string> = {};
  for (const value of values) {
    const at = value.indexOf(':');
    if (at <= 0) throw invalidArgument('tag', `must be key:value (got ${JSON.stringify(value)})`);
    const key = value.slice(0, at);
    const tagValue = value.slice(at + 1);
    const problem = tagProblem(key, tagValue);
    if (problem) throw invalidArgument('tag', `${problem.field}: ${problem.message}`);
    if (tags[key] !== undefined && tags[key] !== tagValue) {
      throw invalidArgument('tag', `key ${JSON.stringify(key)} is given twice with two values`);
    }
    tags[key] = tagValue;
  }
  return tags;
}

/**
 * Reads `GET /v1/runs`'s query: `function`, `status`, `limit` (1-100), `cursor`,
 * `createdAfter` and `createdBefore` (ISO times), `tag` (`key:value`, repeatable: every one must
 * match) and `errorCode` (exact); `search` and `include` are read by
 * {@link parseRunListExtras}. Unknown parameters are refused. `function=orders` lists the runs
 * of every version and alias of `orders` (`orders:7`, `orders:live`…), `function=orders:7` only
 * those pinned to version 7.
 */
export function parseRunQuery(query: ApiRequest['query']): RunQuery {
  for (const name of Object.keys(query ?? {})) {
    if (!(PARAMS as readonly string[]).includes(name)) {
      throw invalidArgument(name, `unknown query parameter (expected ${PARAMS.join(', ')})`);
    }
  }
  const functionName = single(query, 'function');
  if (functionName !== undefined && functionName.length > MAX_FUNCTION) {
    throw invalidArgument('function', `must be at most ${MAX_FUNCTION} characters`);
  }
  const status = single(query, 'status');
  if (status !== undefined && !(RUN_STATUSES as readonly string[]).includes(status)) {
    throw invalidArgument('status', `must be one of ${RUN_STATUSES.join(', ')}`);
  }
  const limitText = single(query, 'limit');
  const limit = limitText === undefined ? undefined : /^\d{1,3}$/.test(limitText) ? Number(limitText) : Number.NaN;
  if (limit !== undefined && !(limit >= 1 && limit <= 100)) {
    throw invalidArgument('limit', 'must be a whole number from 1 to 100');
  }
  const cursor = single(query, 'cursor');
  const createdAfter = isoTime(single(query, 'createdAfter'), 'createdAfter');
  const createdBefore = isoTime(single(query, 'createdBefore'), 'createdBefore');
  const tags = parseTags(query);
  const errorCode = single(query, 'errorCode');
  if (errorCode !== undefined && errorCode.length > MAX_ERROR_CODE_FILTER_LENGTH) {
    throw invalidArgument('errorCode', `must be at most ${MAX_ERROR_CODE_FILTER_LENGTH} characters`);
  }
  return {
    ...(tags === undefined ? {} : { tags }),
    ...(errorCode === undefined ? {} : { errorCode }),
    ...(functionName === undefined ? {} : { functionName }),
    ...(status === undefined ? {} : { status: status as RunStatus }),
    ...(limit === undefined ? {} : { limit }),
    ...(cursor === undefined ? {} : { cursor }),
    ...(createdAfter === undefined ? {} : { createdAfter }),
    ...(createdBefore === undefined ? {} : { createdBefore }),
  };
}
