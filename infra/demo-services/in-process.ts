/**
 * Injected (esbuild `inject`) into each example's bundle when the app deploys no real services:
 * `fetch` of {@link IN_PROCESS_SERVICES_URL} is answered by the demo stand-ins in the function
 * itself, so nothing is exposed on the network (no Function URL, no public endpoint); any other
 * URL goes to the real `fetch`. The stand-ins are pure (answers derived from the request and its
 * `Idempotency-Key`), so running them in every function changes nothing they answer.
 */
import { handler as demoServices } from './handler';
import { IN_PROCESS_SERVICES_URL } from './url';

const origin = new URL(IN_PROCESS_SERVICES_URL).origin;
const realFetch = globalThis.fetch.bind(globalThis);

globalThis.fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const request = new Request(input, init);
  const url = new URL(request.url);
  if (url.origin !== origin) return realFetch(input, init);
  const body = request.body === null ? undefined : await request.text();
  const answer = await demoServices({
    rawPath: url.pathname,
    ...(body === undefined ? {} : { body }),
    headers: Object.fromEntries(request.headers.entries()),
    requestContext: { http: { method: request.method } },
  });
  return new Response(answer.body, { status: answer.statusCode, headers: answer.headers });
};
