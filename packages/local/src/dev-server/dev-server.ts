import { mkdirSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, isIP } from 'node:net';
import { dirname, resolve } from 'node:path';
import { answerClientErrors, createControlApi, toNodeListener } from '@durable-lambda/api';
import { systemClock } from '@durable-lambda/engine';
import { LocalRuntime } from '../embedded/local-runtime';
import type { RunJournalLimits } from '../embedded/sqlite-run-journal';
import { SqliteStore } from '../embedded/sqlite-store';
import type { FaultOptions } from '../faults/fault-plan';
import { LocalError } from '../local-error';
import { locateDashboard, serveDashboard } from './dashboard';
import { checkSamples, isDurableHandler, loadEntryModules, type SampleInput, type ServedHandler } from './entries';
import { EVENTS_ROUTE, eventRoute } from './event-route';
import { recordDeclaredLimits, startsOf } from './function-facts';
import { checkAllowedHosts, hostNameOf, type LocalRequestRefusal, localRequestGuard } from './local-request-guard';
import { capturingServedLogs } from './log-capture';
import { type DevSchedule, ScheduleTimers } from './schedule-timers';

/** Paths of the control API's Lambda-shaped routes (durable executions, callbacks, Invoke). */
const LAMBDA_API_PREFIXES = ['/2025-12-01/', '/2015-03-31/'];

/** The port the dev server listens on by default. */
export const DEFAULT_DEV_PORT = 3000;
/** The interface the dev server listens on by default (this machine only). */
export const DEFAULT_DEV_HOST = '127.0.0.1';
/** The SQLite file the dev server keeps runs in by default, relative to the working directory. */
export const DEFAULT_DEV_DB = '.durable/dev.sqlite';

/** Options of {@link startDevServer}. */
export interface DevServerOptions {
  /**
   * Durable handlers to serve, by function name: wrapped with our `withDurableExecution`, or with
   * AWS's (`@aws/durable-execution-sdk-js`, unchanged, or made `selfHosted`).
   */
  functions?: Record<string, ServedHandler>;
  /**
   * Modules to load handlers from (paths relative to the working directory): every export that
   * is a wrapped handler (ours or AWS's) is served under its export name, a `default` export under the file's
   * name. `name=path#export` serves one export under a name of its own (`path#export`: under its
   * export name; `name=path`: the module's one handler), so AWS-style files that all export
   * `handler` are served together. `.js` files load as they are; `.ts` files need tsx (the
   * process runs under tsx, or tsx is installed, which is then used to load them).
   */
  entries?: string[];
  /** Default 3000; 0 picks a free port. */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
  /**
   * Host names the server answers besides `localhost`, `*.localhost`, IP addresses and `host`
   * (for example `host.docker.internal`, for a container calling the dev server);
   * `.example.test` allows every name under it. Any other `Host` is refused with
   * `403 forbidden_host`: a web page whose name was made to resolve to this machine (DNS
   * rebinding) must not read the runs. Requests to the API from another origin (a browser's
   * `Origin`, or `Sec-Fetch-Site` other than `same-origin`) are refused with `403 cross_origin`.
   */
  allowedHosts?: readonly string[];
  /**
   * The SQLite file runs are kept in (its directory is created). Default `.durable/dev.sqlite`.
   * One dev server per file: a second one on a file in use refuses to start (`database_in_use`).
   */
  db?: string;
  /** Where the server's lines go (the URL, failures of invocations). Default: stdout. */
  log?: (line: string) => void;
  /**
   * Sample inputs by function name, offered by the dashboard's start form (and listed by
   * `GET /v1/functions`). An entry module may declare its own: an export `samples`, an array
   * (one handler) or an object of arrays by handler name.
   */
  samples?: Record<string, readonly SampleInput[]>;
  /**
   * What the server prints once it listens: `full` (default) its URL, functions and file;
   * `short` one line with its URL (a restart by `durable dev --watch`).
   */
  banner?: 'full' | 'short';
  /**
   * Limits of what is kept per run besides its operations: its handler's log lines (by default
   * 256 KiB a run, the oldest dropped first) and its invocations.
   */
  journal?: RunJournalLimits;
  /**
   * Recurring schedules by function name (`rateMs`, or EventBridge cron with its `timezone`, read
   * by the engine's `parseCron` as the CDK's are), fired with timers while the server runs (each firing
   * the run keyed by the schedule and its fire time, as Scheduler's in production); `catchUp`
   * fires the firings missed while it was stopped. Trigger events (SQS, EventBridge, Streams) and
   * single firings are delivered by `POST /v1/functions/<name>/events`.
   */
  schedules?: Record<string, DevSchedule[]>;
  /**
   * Seeded fault injection (as in the test runner, racing invocations aside; see `FaultOptions`):
   * wake-ups late, twice or dropped, events twice or dropped, invocations killed around steps,
   * lost store responses, throttled wake-ups and invokes, on the real clock, to watch runs finish
   * anyway in the dashboard. Invocations then get a 30-second budget, so a killed one's lease
   * lapses soon and the reconciler resumes its run.
   */
  faults?: FaultOptions;
}

/** A started dev server. */
export interface DevServer {
  /** Where it answers, e.g. `http://127.0.0.1:3000`: the dashboard at `/`, the control API at `/v1`. */
  url: string;
  /** The port it listens on (the one picked, when 0 was asked for). */
  port: number;
  /** The runtime that runs the functions (its `engine`, `startRun`, `waitForRun`, ...). */
  runtime: LocalRuntime;
  /** The names of the functions it serves. */
  functions: string[];
  /** The sample inputs each function declares (the dashboard's start form offers them). */
  samples: ReadonlyMap<string, readonly SampleInput[]>;
  /**
   * Stops: closes the HTTP server, waits for the invocations under way, closes the database.
   * Unfinished runs stay in the file and go on at the next start. Calling it again is harmless.
   */
  stop(): Promise<void>;
  /** The same as {@link DevServer.stop} (the `durable dev` command calls `close`). */
  close(): Promise<void>;
}

/** The port is taken by another process (code `port_in_use`): one line says which. */
export class PortInUseError extends LocalError<'port_in_use'> {
  /** Stable code. */
  readonly code = 'port_in_use';
  constructor(
    readonly port: number,
    readonly host: string,
  ) {
    super(`port ${port} on ${host} is in use (another dev server?)`);
    this.name = 'PortInUseError';
  }
}

/** How long a stop waits for requests under way before it closes their connections, ms. */
const CLOSE_GRACE_MS = 2_000;
/** An invocation's budget while faults are injected: a killed one's lease lapses within a minute. */
const FAULTY_INVOCATION_MS = 30_000;

function describeError(error: unknown): string {
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  return String(error);
}

/** The URL for a host and port; a wildcard host is shown as `localhost`. */
function urlFor(host: string, port: number): string {
  const shown = host === '0.0.0.0' || host === '::' || host === '' ? 'localhost' : host;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
}

/** A refusal of the request guard, as the API's JSON error (named for AWS's SDKs on their routes too). */
function refuse(res: ServerResponse, refusal: LocalRequestRefusal): void {
  const body = JSON.stringify({ error: { code: refusal.code, message: refusal.message } });
  res.writeHead(refusal.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    'cache-control': 'no-store',
    'x-amzn-errortype': refusal.code,
  });
  res.end(body);
}

/** The names of `host` the guard must answer besides its own: a host name the server listens on. */
function listenedName(host: string): string[] {
  const name = host.trim().toLowerCase();
  return isIP(name) !== 0 || hostNameOf(name) !== name ? [] : [name];
}

function checkPort(port: number): number {
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new TypeError(`port: must be a whole number from 0 to 65535, got ${port}`);
  }
  return port;
}

/**
 * The functions to serve: the given ones, then the entries' handlers (a name may be used once),
 * with the samples the options and the entries declare.
 */
async function collectFunctions(
  options: DevServerOptions,
): Promise<{ functions: Map<string, ServedHandler>; samples: Map<string, SampleInput[]> }> {
  const functions = new Map<string, ServedHandler>();
  for (const [name, handler] of Object.entries(options.functions ?? {})) {
    if (!isDurableHandler(handler)) {
      throw new TypeError(
        `functions.${name}: expected a handler wrapped with withDurableExecution (@durable-lambda/sdk or @aws/durable-execution-sdk-js)`,
      );
    }
    functions.set(name, handler);
  }
  const loaded = await loadEntryModules(options.entries ?? []);
  for (const [name, handler] of loaded.handlers) {
    if (functions.has(name) && functions.get(name) !== handler) {
      throw new Error(`two durable handlers are named ${JSON.stringify(name)} (in functions and in an entry)`);
    }
    functions.set(name, handler);
  }
  const samples = loaded.samples;
  for (const [name, list] of Object.entries(options.samples ?? {})) {
    if (!functions.has(name)) throw new TypeError(`samples.${name}: no function of this name is served`);
    samples.set(name, checkSamples(list, `samples.${name}`));
  }
  return { functions, samples };
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const failed = (error: NodeJS.ErrnoException) => {
      server.off('listening', listening);
      reject(
        error.code === 'EADDRINUSE'
          ? new PortInUseError(port, host)
          : new Error(`cannot listen on ${host}:${port}: ${error.message}`, { cause: error }),
      );
    };
    const listening = () => {
      server.off('error', failed);
      resolvePort((server.address() as AddressInfo).port);
    };
    server.once('error', failed);
    server.once('listening', listening);
    server.listen(port, host);
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((done) => {
    const force = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      done();
    });
    server.closeIdleConnections();
  });
}

/**
 * Starts the local dev server: a {@link LocalRuntime} on a SQLite file (runs survive restarts and
 * go on where they were), and one HTTP server on one port with the control API at `/v1/...` and
 * the dashboard at `/` (its files at `/dashboard/<file>`). Prints the URL once it listens. At
 * start it reclaims the leases of a previous server on the file that died (so a run cut short by
 * a `kill -9` resumes at once, its step attempt counted as lost), and it reconciles at start and
 * every few seconds, so a run whose wake-up was lost is woken again.
 */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const log = options.log ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const port = checkPort(options.port ?? DEFAULT_DEV_PORT);
  const host = options.host ?? DEFAULT_DEV_HOST;
  const db = options.db ?? DEFAULT_DEV_DB;
  const guard = localRequestGuard({
    server: 'the dev server',
    allowedHosts: [...checkAllowedHosts(options.allowedHosts ?? []), ...listenedName(host)],
    allowHint: 'allowedHosts, durable dev --allowed-hosts or DURABLE_ALLOWED_HOSTS',
  });
  const { functions: given, samples } = await collectFunctions(options);

  const dbPath = db === ':memory:' ? db : resolve(db);
  if (dbPath !== ':memory:') mkdirSync(dirname(dbPath), { recursive: true });
  const store = new SqliteStore({ path: dbPath, ...(options.journal ? { journal: options.journal } : {}) });
  // Every handler's log lines are kept with their run (the dashboard and the API show them per
  // step and attempt) and still reach the function's own sink. AWS-wrapped handlers log to stdout.
  const functions = new Map(
    [...given].map(([name, handler]) => [
      name,
      capturingServedLogs(
        handler,
        (line) => store.appendLog(line),
        (error) => log(`error keeping a log line of ${name}: ${describeError(error)}`),
      ),
    ]),
  );
  const runtime = new LocalRuntime({
    store,
    functions,
    ...(options.faults ? { faults: { ...options.faults, race: 0 }, invocationMs: FAULTY_INVOCATION_MS } : {}),
    // The outbox, in process: each event a step emitted, as it would go to EventBridge or SQS.
    onOutboxDelivery: ({ id, event }) =>
      log(
        event.kind === 'eventbridge'
          ? `event ${id} to EventBridge${event.eventBusName ? ` (${event.eventBusName})` : ''}: ${event.source} ${event.detailType}`
          : `event ${id} to SQS ${event.queueUrl}`,
      ),
    onError: (error, where) =>
      log(
        `error in ${where.runId ? `run ${where.runId}` : 'the runtime'}${where.functionName ? ` (${where.functionName})` : ''}: ${describeError(error)}`,
      ),
  });
  const api = createControlApi({
    engine: runtime.engine,
    functions: [...functions.keys()],
    samples: Object.fromEntries(samples),
    starts: startsOf(options.schedules ?? {}),
    invoker: runtime.invoker,
    onError: (error) => log(`error in the control API: ${describeError(error)}`),
  });
  const apiListener = toNodeListener(api);
  const events = eventRoute({
    engine: runtime.engine,
    invoker: runtime.invoker,
    waker: runtime.waker,
    functions: [...functions.keys()],
  });
  const scheduleTimers = new ScheduleTimers({
    clock: systemClock,
    store,
    fire: (name, event) => events.fire(name, event),
    timers: {
      set(callback, ms) {
        const timer = setTimeout(callback, ms);
        timer.unref();
        return { cancel: () => clearTimeout(timer) };
      },
    },
    onError: (error) => log(`error firing a schedule: ${describeError(error)}`),
  });
  const dashboard = locateDashboard();
  const server = createServer((req, res) => {
    const target = req.url ?? '/';
    const mark = target.indexOf('?');
    const path = mark === -1 ? target : target.slice(0, mark);
    // The control API, and its routes shaped like Lambda's durable-execution APIs (for AWS's SDKs
    // and AWS's CloudDurableTestRunner pointed at the dev server).
    const isApi = path === '/v1' || path.startsWith('/v1/') || LAMBDA_API_PREFIXES.some((p) => path.startsWith(p));
    // Before anything is read or run: no web page may act on the runs or read them.
    const refused = guard(req, isApi);
    if (refused) {
      req.resume();
      refuse(res, refused);
      return;
    }
    const eventsOf = EVENTS_ROUTE.exec(path)?.[1];
    if (eventsOf !== undefined) {
      events(decodeURIComponent(eventsOf), req, res).catch((error: unknown) => {
        log(`error delivering an event to ${eventsOf}: ${describeError(error)}`);
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ code: 'internal_error', message: 'the event could not be delivered' }));
      });
      return;
    }
    if (isApi) {
      apiListener(req, res);
      return;
    }
    serveDashboard(dashboard, path, req, res).catch((error: unknown) => {
      log(`error serving ${path}: ${describeError(error)}`);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('internal error\n');
    });
  });
  answerClientErrors(server);

  let listeningPort: number;
  try {
    // The runtime first: a run started through the API as soon as it listens must be run.
    await runtime.start();
    await recordDeclaredLimits(store, functions, systemClock, (error) =>
      log(`error recording a function's limits: ${describeError(error)}`),
    );
    listeningPort = await listen(server, port, host);
    for (const [name, entries] of Object.entries(options.schedules ?? {})) {
      if (!functions.has(name)) throw new Error(`schedules: no function ${JSON.stringify(name)}`);
      await scheduleTimers.start(name, entries);
    }
  } catch (error) {
    scheduleTimers.stop();
    server.close(() => {});
    await runtime.stop().catch(() => {});
    store.close();
    throw error;
  }
  server.on('error', (error) => log(`error in the HTTP server: ${describeError(error)}`));

  const url = urlFor(host, listeningPort);
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      scheduleTimers.stop();
      await closeServer(server);
      await runtime.stop();
      store.close();
      log('durable-lambda dev server stopped');
    })();
    return stopping;
  };

  const names = [...functions.keys()];
  if (options.banner === 'short') {
    log(`durable-lambda dev server at ${url} (restarted; functions: ${names.join(', ') || 'none'})`);
    return { url, port: listeningPort, runtime, functions: names, samples, stop, close: stop };
  }
  log(`durable-lambda dev server at ${url}`);
  log(`  dashboard  ${url}/`);
  log(`  API        ${url}/v1 (e.g. ${url}/v1/runs)`);
  log(`  functions  ${names.length > 0 ? names.join(', ') : '(none: give handlers or entries)'}`);
  log(`  runs kept  ${dbPath}`);
  if (dashboard === undefined) log('  (the dashboard folder of @durable-lambda/local was not found: / answers 503)');

  return { url, port: listeningPort, runtime, functions: names, samples, stop, close: stop };
}
