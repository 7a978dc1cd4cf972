import { ApiError, invalidArgument } from './errors';
import type { ApiRequest, ApiResponse } from './http';

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

function matchPattern(pattern: string, parts: readonly string[]): Record<string, string> | undefined {
  const want = segments(pattern);
  if (want.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const expected = want[i] as string;
    const actual = parts[i] as string;
    if (expected.startsWith('{') && expected.endsWith('}')) {
      if (actual === '') return undefined;
      try {
        params[expected.slice(1, -1)] = decodeURIComponent(actual);
      } catch {
        throw invalidArgument('path', `malformed percent-encoding in ${JSON.stringify(actual)}`);
      }
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
