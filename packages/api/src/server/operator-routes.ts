/**
 * The operator routes that repair runs: retry (from the failures, or from a chosen operation),
 * skip a failed step with a given result, cancel a run or its whole tree, and the run's record
 * of these actions. Each POST is idempotent twice over: by its `Idempotency-Key` record (the
 * first answer is replayed), and in the engine by an action id derived from that key, so a
 * repeat after the record expired (or after a lost answer) finds its own earlier effect.
 * Who acted is the request's IAM principal when the API sits behind an IAM-auth Function URL,
 * else its `x-durable-actor` header, else `anonymous`.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { RunAction, RunRecord } from '@durable-lambda/engine';
import { MAX_EXECUTION_TIMEOUT_SECONDS } from '@durable-lambda/engine';
import type { RunWire } from '../wire';
import type { RouteDeps } from './deps';
import { afterDurableWrite } from './durable-outcome';
import { ApiError, invalidArgument } from './errors';
import { type ApiRequest, headerValue, jsonResponse } from './http';
import { readIdempotencyKey } from './idempotency';
import { runAlone } from './payload-page-routes';
import type { Route } from './router';
import { optionalString, parseObjectBody, rejectUnknownFields } from './validate';

/** The header naming who acts, when no IAM principal does. */
export const ACTOR_HEADER = 'x-durable-actor';

/**
 * A request with the caller's verified identity: now {@link ApiRequest} itself (its `principal`).
 * @deprecated Use `ApiRequest`.
 */
export type ApiRequestWithPrincipal = ApiRequest;

/** One operator action as the API shows it. */
export interface RunActionWire {
  id: string;
  action: RunAction['action'];
  actor: string;
  /** ISO 8601. */
  at: string;
  operationId?: string;
  viaRunId?: string;
  fromStatus: RunAction['fromStatus'];
}

/** `GET /v1/runs/{runId}/actions`: the run's operator actions, oldest first, and its deadline. */
export interface RunActionsWire {
  runId: string;
  actions: RunActionWire[];
  /** The run's execution deadline (ISO 8601), if it has a timeout. */
  deadlineAt?: string;
}

/** What an operator POST answers: the run, and the action's entry in its history. */
export type OperatorAnswerWire = RunWire & { action?: RunActionWire };

/**
 * The `executionTimeout` field of a start (seconds, as AWS's `ExecutionTimeout`: a whole number
 * from 1 to 366 days), as the engine's start option.
 */
export function parseExecutionTimeoutField(value: unknown): { executionTimeoutSeconds?: number } {
  if (value === undefined) return {};
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_EXECUTION_TIMEOUT_SECONDS) {
    throw invalidArgument(
      'executionTimeout',
      `must be a whole number of seconds from 1 to ${MAX_EXECUTION_TIMEOUT_SECONDS}`,
    );
  }
  return { executionTimeoutSeconds: value };
}

/** Who acts: the verified principal first (a header cannot override it), else the header. */
export function actorOf(request: ApiRequest): string {
  if (typeof request.principal === 'string' && request.principal.length > 0) return request.principal.slice(0, 256);
  const header = headerValue(request.headers, ACTOR_HEADER);
  if (header === undefined) return 'anonymous';
  if (typeof header !== 'string' || header.length === 0 || header.length > 256) {
    throw invalidArgument(ACTOR_HEADER, 'must be given once, 1-256 characters');
  }
  return header;
}

/** The engine's action id: from the Idempotency-Key (scoped by route), else a random one. */
function actionIdOf(request: ApiRequest, kind: string): string {
  const key = readIdempotencyKey(request);
  if (key === undefined) return randomUUID();
  const scoped = `${kind}:${request.path}:${key}`;
  return scoped.length <= 256 ? scoped : `${kind}:${createHash('sha256').update(scoped).digest('base64url')}`;
}

function actionToWire(action: RunAction): RunActionWire {
  return {
    id: action.id,
    action: action.action,
    actor: action.actor,
    at: new Date(action.at).toISOString(),
    ...(action.operationId === undefined ? {} : { operationId: action.operationId }),
    ...(action.viaRunId === undefined ? {} : { viaRunId: action.viaRunId }),
    fromStatus: action.fromStatus,
  };
}

function answer(run: RunRecord, actionId: string): OperatorAnswerWire {
  const entry = run.actions?.find((a) => a.id === actionId);
  return { ...runAlone(run), ...(entry ? { action: actionToWire(entry) } : {}) };
}

/**
 * Runs an operator action: an unexpected error after its write landed (the run holds the
 * action's entry) is answered as the success it was (the wake-up or notification that failed is
 * left to the reconciler). Coded engine errors (`operation_not_found`,
 * `operation_state_conflict`, `run_state_conflict`, ...) pass on, mapped by `ENGINE_ERROR_STATUS`.
 */
function perform(deps: RouteDeps, runId: string, actionId: string, call: () => Promise<RunRecord>): Promise<RunRecord> {
  return afterDurableWrite(deps, call, async () => {
    const run = await deps.engine.getRun(runId);
    return run?.actions?.some((a) => a.id === actionId) ? run : undefined;
  });
}

async function requireRun(deps: RouteDeps, runId: string): Promise<RunRecord> {
  const run = await deps.engine.getRun(runId);
  if (!run) throw new ApiError(404, 'run_not_found', `run ${runId} not found`);
  return run;
}

/** The retry, skip, cancel and action-history routes. */
export function operatorRoutes(deps: RouteDeps): Route[] {
  return [
    {
      method: 'POST',
      pattern: '/v1/runs/{runId}/retry',
      handle: async ({ request, params }) => {
        const body = parseObjectBody(request.body, false) ?? {};
        rejectUnknownFields(body, ['fromOperation']);
        const fromOperationId = optionalString(body.fromOperation, 'fromOperation', 512);
        const run = await requireRun(deps, params.runId as string);
        const actionId = actionIdOf(request, 'retry');
        const actor = actorOf(request);
        const retried = await perform(deps, run.runId, actionId, () =>
          deps.engine.retryRun(run.runId, {
            actor,
            actionId,
            ...(fromOperationId === undefined ? {} : { fromOperationId }),
          }),
        );
        // retryRun made the run due and woke it, once (see `startRunGoing`).
        return jsonResponse(200, answer(retried, actionId));
      },
    },
    {
      method: 'POST',
      pattern: '/v1/runs/{runId}/cancel',
      handle: async ({ request, params }) => {
        const body = parseObjectBody(request.body, false) ?? {};
        rejectUnknownFields(body, ['tree']);
        if (body.tree !== undefined && typeof body.tree !== 'boolean')
          throw invalidArgument('tree', 'must be a boolean');
        const run = await requireRun(deps, params.runId as string);
        const actionId = actionIdOf(request, 'cancel');
        const actor = actorOf(request);
        const cancelled = await perform(deps, run.runId, actionId, () =>
          deps.engine.cancelRun(run.runId, { actor, actionId, tree: body.tree === true }),
        );
        return jsonResponse(200, answer(cancelled, actionId));
      },
    },
    {
      method: 'POST',
      pattern: '/v1/runs/{runId}/operations/{operationId}/skip',
      handle: async ({ request, params }) => {
        const body = parseObjectBody(request.body, false) ?? {};
        rejectUnknownFields(body, ['result']);
        const run = await requireRun(deps, params.runId as string);
        const actionId = actionIdOf(request, 'skip');
        const actor = actorOf(request);
        const result = body.result === undefined ? undefined : JSON.stringify(body.result);
        const skipped = await perform(deps, run.runId, actionId, () =>
          deps.engine.skipStep(run.runId, params.operationId as string, {
            actor,
            actionId,
            ...(result === undefined ? {} : { result }),
          }),
        );
        // skipStep made the run due and woke it, once.
        return jsonResponse(200, answer(skipped, actionId));
      },
    },
    {
      method: 'GET',
      pattern: '/v1/runs/{runId}/actions',
      handle: async ({ params }) => {
        const run = await requireRun(deps, params.runId as string);
        const wire: RunActionsWire = {
          runId: run.runId,
          actions: (run.actions ?? []).map(actionToWire),
          ...(run.deadlineAt === undefined ? {} : { deadlineAt: new Date(run.deadlineAt).toISOString() }),
        };
        return jsonResponse(200, wire);
      },
    },
  ];
}
