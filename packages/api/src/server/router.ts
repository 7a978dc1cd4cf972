import { ApiError, invalidArgument } from './errors';
import type { ApiRequest, ApiResponse } from './http';
import type { RouteBodyTypes } from './media-type';

/** What a route's handler receives. */
export interface RouteCall {
  request: ApiRequest;
  /** The decoded path parameters, by name. */
  params: Record<string, string>;
}

/** One route: a method and a path pattern whose `{name}` segments are parameters. */
export interface Route {
  method: 'GET' | 'POST';
  /** For example `/v1/runs/{runId}/cancel`. */
  pattern: string;
  /** The body types a POST may declare (see `refusedBodyType`). Default `json`. */
  accepts?: RouteBodyTypes;
  handle(call: RouteCall): Promise<ApiResponse>;
}

/** The route matched for a request, with its parameters. */
export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
}

/** Splits a path into segments; one trailing slash is ignored. */
function segments(path: string): string[] {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return trimmed.split('/').slice(1);
}

/**
 * The longest value of each path parameter, characters: longer names nothing any run can hold
 * (run keys and function names are at most 256, operation ids 512, callback ids 233, execution
 * ARNs 1,024 as on Lambda), and a store would carry it into a key past its size (DynamoDB: 2,048
 * bytes for a partition key, 1,024 for a sort key). Refused before anything runs, the
 * `Idempotency-Key` claim included. Others: {@link MAX_PARAM}.
 */
const PARAM_LIMITS: Readonly<Record<string, number>> = {
  runId: 256,
  operationId: 512,
  callbackId: 512,
  CallbackId: 512,
  FunctionName: 256,
  DurableExecutionArn: 1024,
};
const MAX_PARAM = 256;

function matchPattern(pattern: string, parts: readonly string[]): Record<string, string> | undefined {
  const want = segments(pattern);
  if (want.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const expected = want[i] as string;
    const actual = parts[i] as string;
    if (expected.startsWith('{') && expected.endsWith('}')) {
      if (actual === '') return undefined;
      const name = expected.slice(1, -1);
      try {
        params[name] = decodeURIComponent(actual);
      } catch {
        throw invalidArgument('path', `malformed percent-encoding in ${JSON.stringify(actual.slice(0, 64))}`);
      }
      const limit = PARAM_LIMITS[name] ?? MAX_PARAM;
      if ((params[name] as string).length > limit) throw invalidArgument(name, `must be at most ${limit} characters`);
    } else if (expected !== actual) {
      return undefined;
    }
  }
  return params;
}

/**
 * Finds the route for `method` and `path`: `404 not_found` when no pattern matches the path,
 * `405 method_not_allowed` (with an `allow` header) when only other methods do.
 */
export function matchRoute(routes: readonly Route[], method: string, path: string): RouteMatch {
  const parts = segments(path);
  const allowed: string[] = [];
  for (const route of routes) {
    const params = matchPattern(route.pattern, parts);
    if (!params) continue;
    if (route.method === method) return { route, params };
    allowed.push(route.method);
  }
  allowed.sort();
  if (allowed.length === 0) throw new ApiError(404, 'not_found', `no route for ${method} ${path}`);
  throw new ApiError(
    405,
    'method_not_allowed',
    `${method} is not allowed on ${path} (allowed: ${allowed.join(', ')})`,
    {
      allow: allowed.join(', '),
    },
  );
}
