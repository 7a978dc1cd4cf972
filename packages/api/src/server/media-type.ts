/**
 * What a state-changing request must declare as its body's type. A browser sends a POST from any
 * site without asking first (no CORS preflight) only with no body type or one of three: `text/plain`,
 * `application/x-www-form-urlencoded`, `multipart/form-data` (a form, or `fetch` in `no-cors` mode).
 * Requiring JSON therefore keeps every web page out of the API's state-changing routes, on the dev
 * server and deployed alike, whatever cookies or network position the browser has.
 */
import { ApiError } from './errors';
import { type ApiRequest, headerValue } from './http';

/**
 * The body types a POST route takes: `json` (the `/v1` routes: `application/json` or a
 * `+json` type, with or without a body), or `aws` (the Lambda-shaped routes, for AWS's SDKs, which
 * send a JSON body as `application/json`, a binary payload (Invoke, a callback's result) as
 * `application/octet-stream`, and no type at all when there is no body, as on a heartbeat).
 */
export type RouteBodyTypes = 'json' | 'aws';

/** The media type's essence (`type/subtype`, lower case), or undefined when it is not one. */
function essence(value: string): string | undefined {
  const type = value.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  return /^[!#$%&'*+.^_`|~0-9a-z-]+\/[!#$%&'*+.^_`|~0-9a-z-]+$/.test(type) ? type : undefined;
}

function isJson(type: string): boolean {
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/**
 * The refusal of a POST whose `content-type` its route does not take:
 * `415 unsupported_media_type`, the message naming what was sent and what the route takes.
 * Undefined when the request may go on (any other method: they change nothing).
 */
export function refusedBodyType(request: ApiRequest, method: string, accepts: RouteBodyTypes): ApiError | undefined {
  if (method !== 'POST') return undefined;
  const given = headerValue(request.headers, 'content-type');
  const wanted =
    accepts === 'json'
      ? 'application/json'
      : 'application/json, or application/octet-stream for a binary payload (or no content-type with no body)';
  const refuse = (what: string) =>
    new ApiError(
      415,
      'unsupported_media_type',
      `content-type: ${what}; POST ${request.path} takes ${wanted} (a body type any web page may send is refused)`,
    );
  if (given === undefined) {
    const empty = request.body === undefined || request.body === '';
    return accepts === 'aws' && empty ? undefined : refuse('none given');
  }
  if (typeof given !== 'string') return refuse('given more than once');
  const type = essence(given);
  if (type === undefined) return refuse(`${JSON.stringify(given.slice(0, 100))} is not a media type`);
  if (isJson(type)) return undefined;
  if (accepts === 'aws' && type === 'application/octet-stream') return undefined;
  return refuse(`${type} is not accepted`);
}
