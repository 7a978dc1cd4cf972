import type { Clock, Invoker } from '@durable-lambda/engine';
import { type AwsRoutesOptions, awsRoutes } from '../aws/aws-routes';
import { awsErrorResponse, toAwsRouteError } from '../aws/aws-routes-wire';
import type { FunctionSampleWire, FunctionStartsWire } from '../wire';
import { callbackRoutes } from './callback-routes';
import type { ControlEngine, RouteDeps } from './deps';
import { ApiError, toApiError } from './errors';
import { type ApiRequest, type ApiResponse, errorResponse } from './http';
import { DEFAULT_IDEMPOTENCY_TTL_MS, readIdempotencyKey, withIdempotency } from './idempotency';
import { refusedBodyType } from './media-type';
import { matchRoute, type Route } from './router';
import { runRoutes } from './run-routes';
import { signalRoutes } from './signal-routes';

/** Largest request body accepted by default: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Options of {@link createControlApi}. */
export interface ControlApiOptions {
  /** The engine whose runs the API serves. */
  engine: ControlEngine;
  /** The durable functions this API serves (and may start runs of); a function is read per request. */
  functions: readonly string[] | (() => readonly string[]);
  /**
   * Sample inputs per function (by name), listed by `GET /v1/functions` and offered by the
   * dashboard's start form; a function is read per request.
   */
  samples?:
    | Readonly<Record<string, readonly FunctionSampleWire[]>>
    | ((name: string) => readonly FunctionSampleWire[] | undefined);
  /**
   * The execution timeout of each function's runs, seconds (by bare name), listed by
   * `GET /v1/functions` for the dashboard's functions page. It only reports the setting: the
   * engine's own `executionTimeout` is what applies it.
   */
  executionTimeouts?: Readonly<Record<string, number>> | ((name: string) => number | undefined);
  /**
   * What starts each function's runs besides the API, listed by `GET /v1/functions` (the dev
   * server: the schedules it fires, its events route). Default: nothing known.
   */
  starts?: (name: string) => FunctionStartsWire | undefined;
  /**
   * Invokes a function with a run's wake-up event after a start. Default: the engine's invoker;
   * with neither, the engine's waker is asked to wake the run now. A retry, skip or wake-now is
   * woken by the engine's own write, through its waker, once.
   */
  invoker?: Invoker;
  /**
   * How long an `Idempotency-Key` is remembered, ms (default 24 h). After that the same key
   * runs as a new request.
   */
  idempotencyTtlMs?: number;
  /** Largest request body, bytes (default 1 MiB); larger is `413 payload_too_large`. */
  maxBodyBytes?: number;
  /** The clock of idempotency records. Default: the engine's clock. */
  clock?: Clock;
  /** Told of unexpected errors (answered `500 internal_error`). Default: `console.error`. */
  onError?: (error: unknown) => void;
  /**
   * The settings of the Lambda-shaped routes (`/2025-12-01/...`, for AWS's SDKs): the engine's
   * own (`maxPayloadBytes`, `retentionMs`, `faultRetryMs`) when it was built with other values.
   */
  aws?: AwsRoutesOptions;
}

/** The control API as a framework-free handler. */
export interface ControlApi {
  /** Answers one request. Never rejects: unexpected errors answer `500 internal_error`. */
  handle(request: ApiRequest): Promise<ApiResponse>;
  /** Largest request body accepted, bytes (adapters stop reading past it). */
  readonly maxBodyBytes: number;
}

function positive(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new TypeError(`${name}: must be a positive number`);
  return value;
}

/**
 * Creates the control API (`/v1/...`): start, list (and search), show, history, cancel, retry
 * and wake runs; complete callbacks. Every POST may carry an `Idempotency-Key` header and must say
 * `content-type: application/json` (the Lambda-shaped routes take what AWS's SDKs send), else
 * `415 unsupported_media_type`: no web page can send a state-changing request without a CORS
 * preflight. Errors answer `{ error: { code, message } }` with a stable code.
 */
export function createControlApi(options: ControlApiOptions): ControlApi {
  const { engine } = options;
  const maxBodyBytes = positive(options.maxBodyBytes, 'maxBodyBytes', DEFAULT_MAX_BODY_BYTES);
  const ttlMs = positive(options.idempotencyTtlMs, 'idempotencyTtlMs', DEFAULT_IDEMPOTENCY_TTL_MS);
  const clock = options.clock ?? engine.clock;
  const report = options.onError ?? ((error: unknown) => console.error('durable-lambda control API:', error));
  const listed = options.functions;
  const samples = options.samples;
  const timeouts = options.executionTimeouts;
  const deps: RouteDeps = {
    engine,
    functions: typeof listed === 'function' ? listed : () => listed,
    samples:
      typeof samples === 'function'
        ? samples
        : (name) => (samples && Object.hasOwn(samples, name) ? samples[name] : undefined),
    starts: options.starts ?? (() => undefined),
    executionTimeoutSeconds:
      typeof timeouts === 'function'
        ? timeouts
        : (name) => (timeouts && Object.hasOwn(timeouts, name) ? timeouts[name] : undefined),
    invoker: options.invoker ?? engine.invoker,
    clock,
    report,
  };
  const routes: Route[] = [...runRoutes(deps), ...callbackRoutes(deps), ...signalRoutes(deps)];
  routes.push(...awsRoutes(deps, options.aws));

  /** Runs the route; expected errors become their answers, anything else `500`. */
  const execute = async (route: Route, params: Record<string, string>, request: ApiRequest) => {
    try {
      return await route.handle({ request, params });
    } catch (error) {
      const known = toApiError(error);
      if (known) return known.toResponse();
      report(error);
      return errorResponse(500, 'internal_error', 'internal error');
    }
  };

  return {
    maxBodyBytes,
    async handle(request) {
      try {
        const method = request.method.toUpperCase();
        const { route, params } = matchRoute(routes, method, request.path);
        if (request.body !== undefined && Buffer.byteLength(request.body, 'utf8') > maxBodyBytes) {
          throw new ApiError(413, 'payload_too_large', `body: over the limit of ${maxBodyBytes} bytes`);
        }
        // Before the Idempotency-Key is claimed: a refused request leaves nothing behind.
        const refused = refusedBodyType(request, method, route.accepts ?? 'json');
        if (refused) {
          const aws = route.accepts === 'aws' ? toAwsRouteError(refused) : undefined;
          return aws ? awsErrorResponse(aws) : refused.toResponse();
        }
        if (method !== 'POST') return await execute(route, params, request);
        const key = readIdempotencyKey(request);
        if (key === undefined) return await execute(route, params, request);
        return await withIdempotency(
          { store: engine.store, clock, ttlMs, report },
          { method, path: request.path, body: request.body, key },
          () => execute(route, params, request),
        );
      } catch (error) {
        const known = toApiError(error);
        if (known) return known.toResponse();
        report(error);
        return errorResponse(500, 'internal_error', 'internal error');
      }
    },
  };
}
