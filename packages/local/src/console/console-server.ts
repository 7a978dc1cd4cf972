import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dashboardAnswer, locateDashboard, serveDashboard } from '../dev-server/dashboard';
import { localRequestGuard, NOT_FRAMED } from '../dev-server/local-request-guard';
import { LocalError } from '../local-error';
import { forwardedHeaders, passedBackHeaders, readBody } from './console-proxy';

/** The port `durable console` listens on by default (the dev server's plus one: both can run). */
export const DEFAULT_CONSOLE_PORT = 3001;
/** The only interface the console listens on: its proxy signs with the user's credentials. */
export const CONSOLE_HOST = '127.0.0.1';

/** Options of {@link startConsoleServer}. */
export interface ConsoleServerOptions {
  /** The deployed control API, e.g. `https://<id>.lambda-url.eu-west-1.on.aws` (a path prefix is kept). */
  apiUrl: string;
  /**
   * Sends the proxied requests: for an IAM-auth API, a signing fetch (`createSignedFetch` of
   * `@durable-lambda/aws`). The browser never sees credentials. Default: the global fetch.
   */
  fetch?: typeof fetch;
  /** Default 3001; 0 picks a free port. */
  port?: number;
  /** Where the server's lines go (its URL, failed API calls). Default: stdout. */
  log?: (line: string) => void;
  /** How long one API call may take, ms. Default 60 s. */
  timeoutMs?: number;
}

/** A started console. */
export interface ConsoleServer {
  /** Where the dashboard is, e.g. `http://127.0.0.1:3001`. */
  url: string;
  /** The port it listens on (the one picked, when 0 was asked for). */
  port: number;
  /** Stops listening (requests under way are given a moment). Calling it again is harmless. */
  close(): Promise<void>;
}

/** The console's port is taken (code `port_in_use`). */
export class ConsolePortInUseError extends LocalError<'port_in_use'> {
  /** Stable code. */
  readonly code = 'port_in_use';
  constructor(readonly port: number) {
    super(`port ${port} on ${CONSOLE_HOST} is in use`);
    this.name = 'ConsolePortInUseError';
  }
}

const CLOSE_GRACE_MS = 2_000;
/** Larger than the API's own 1 MiB limit: the API answers `413` itself, in its words. */
const MAX_PROXIED_BODY = 1024 * 1024 + 64 * 1024;

function json(res: ServerResponse, status: number, code: string, message: string): void {
  const body = JSON.stringify({ error: { code, message } });
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
  });
  res.end(body);
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  const detail = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : '';
  return detail ? `${error.message} (${detail})` : error.message;
}

/** A 403 of the Function URL itself says only "Forbidden": say what it means. */
function forbidden(apiHost: string): string {
  return `the API at ${apiHost} refused the request (403): the credentials are not allowed lambda:InvokeFunctionUrl on it, or the request was not signed (the console signs requests to Function URLs, or with --sign)`;
}

async function proxy(
  req: IncomingMessage,
  res: ServerResponse,
  target: string,
  options: Required<Pick<ConsoleServerOptions, 'timeoutMs'>> & Pick<ConsoleServerOptions, 'fetch' | 'log'>,
  apiBase: string,
): Promise<void> {
  const method = req.method ?? 'GET';
  if (method !== 'GET' && method !== 'POST') {
    res.writeHead(405, { allow: 'GET, POST', 'content-type': 'text/plain; charset=utf-8' });
    res.end('method not allowed\n');
    return;
  }
  const body = method === 'POST' ? await readBody(req, MAX_PROXIED_BODY) : undefined;
  if (body === null) return json(res, 413, 'payload_too_large', `the request body is over ${MAX_PROXIED_BODY} bytes`);
  const url = `${apiBase}${target}`;
  const send = options.fetch ?? ((input, init) => fetch(input, init));
  let response: Response;
  let answer: Buffer;
  try {
    response = await send(url, {
      method,
      headers: forwardedHeaders(req),
      ...(body === undefined || body.length === 0 ? {} : { body: body.toString('utf8') }),
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    answer = Buffer.from(await response.arrayBuffer());
  } catch (error) {
    // `network_error` is what the dashboard retries a POST on, with the same Idempotency-Key: a
    // request whose answer was lost on the way is then answered from the API's idempotency record.
    const code =
      (error as { code?: unknown } | null)?.code === 'no_aws_credentials' ? 'no_aws_credentials' : 'network_error';
    const message = code === 'no_aws_credentials' ? describe(error) : `cannot reach ${url}: ${describe(error)}`;
    options.log?.(`console: ${method} ${target}: ${message}`);
    return json(res, 502, code, message);
  }
  const type = response.headers.get('content-type') ?? '';
  if (response.status === 403 && !answer.toString('utf8').includes('"error"')) {
    options.log?.(`console: ${method} ${target}: 403 from the API`);
    return json(res, 403, 'forbidden', forbidden(new URL(apiBase).host));
  }
  res.writeHead(response.status, {
    ...passedBackHeaders(response.headers),
    ...(type ? { 'content-type': type } : {}),
    'content-length': String(answer.length),
    'cache-control': 'no-store',
  });
  res.end(answer);
}

/** `index.html` naming the API it shows in its top bar, so a console is not taken for a dev server. */
async function serveIndex(dir: string | undefined, res: ServerResponse, apiHost: string): Promise<boolean> {
  const answer = await dashboardAnswer(dir, '/');
  if (answer?.status !== 200) return false;
  const html = answer.body
    .toString()
    .replace(
      '<a class="brand" href="#/">durable-lambda</a>',
      `<a class="brand" href="#/" data-testid="console-api" title="the deployed API this console shows">durable-lambda · ${apiHost}</a>`,
    );
  const body = Buffer.from(html, 'utf8');
  res.writeHead(200, {
    'content-type': answer.type,
    'content-length': String(body.length),
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
    ...NOT_FRAMED,
  });
  res.end(body);
  return true;
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const failed = (error: NodeJS.ErrnoException) => {
      server.off('listening', listening);
      reject(
        error.code === 'EADDRINUSE'
          ? new ConsolePortInUseError(port)
          : new Error(`cannot listen on ${CONSOLE_HOST}:${port}: ${error.message}`, { cause: error }),
      );
    };
    const listening = () => {
      server.off('error', failed);
      resolvePort((server.address() as AddressInfo).port);
    };
    server.once('error', failed);
    server.once('listening', listening);
    server.listen(port, CONSOLE_HOST);
  });
}

/**
 * Starts the console for a deployed stack: the dev server's dashboard, served on 127.0.0.1, with
 * its `/v1/...` calls proxied to `apiUrl` through `fetch` (which signs them). The deployed API
 * runs the same control API as the dev server, so every view and action is the same. Requests
 * from other sites or other host names are refused, so no web page can use the signing proxy.
 */
export async function startConsoleServer(options: ConsoleServerOptions): Promise<ConsoleServer> {
  let api: URL;
  try {
    api = new URL(options.apiUrl);
  } catch {
    throw new TypeError(`apiUrl: not a URL: ${options.apiUrl}`);
  }
  if (api.protocol !== 'https:' && api.protocol !== 'http:') throw new TypeError(`apiUrl: must be http(s): ${api}`);
  const apiBase = `${api.origin}${api.pathname.replace(/\/+$/, '')}`;
  const port = options.port ?? DEFAULT_CONSOLE_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new TypeError(`port: must be a whole number from 0 to 65535, got ${port}`);
  }
  const log = options.log ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const proxyOptions = {
    timeoutMs: options.timeoutMs ?? 60_000,
    log,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  };
  const dashboard = locateDashboard();
  // The proxy signs with the user's credentials: only its own page may use it, and no name of the
  // machine besides its loopback ones may be allowed.
  const guard = localRequestGuard({ server: 'the console' });

  const server = createServer((req, res) => {
    const target = req.url ?? '/';
    const mark = target.indexOf('?');
    const path = mark === -1 ? target : target.slice(0, mark);
    const isApi = path === '/v1' || path.startsWith('/v1/');
    const refused = guard(req, isApi);
    if (refused) return json(res, refused.status, refused.code, refused.message);
    const handle = async () => {
      if (isApi) return proxy(req, res, target, proxyOptions, apiBase);
      if (
        (path === '/' || path === '/index.html') &&
        req.method === 'GET' &&
        (await serveIndex(dashboard, res, api.host))
      )
        return;
      return serveDashboard(dashboard, path, req, res);
    };
    handle().catch((error: unknown) => {
      log(`console: error serving ${path}: ${describe(error)}`);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('internal error\n');
    });
  });
  const listeningPort = await listen(server, port);
  const url = `http://${CONSOLE_HOST}:${listeningPort}`;
  log(`durable-lambda console at ${url}/ for the API at ${apiBase}`);
  if (dashboard === undefined) log('  (the dashboard folder of @durable-lambda/local was not found: / answers 503)');

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= new Promise<void>((done) => {
      const force = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
      force.unref();
      server.close(() => {
        clearTimeout(force);
        done();
      });
      server.closeIdleConnections();
    });
    return closing;
  };
  return { url, port: listeningPort, close };
}
