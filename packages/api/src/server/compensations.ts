/**
 * A run's compensations, read back from what the SDK records (see `packages/sdk/src/saga`): each
 * round is a step `saga plan` whose result lists the ids of the steps it undoes, last first; each
 * undo is the next step of that context named `compensate <step>`; the run's error carries what
 * was undone in its `ErrorData` (`{"compensated":[...],"failed":[...]}`). Nothing of this is
 * stored apart from the operations, so it can never disagree with them.
 */
import type { RunRecord } from '@durable-lambda/engine';
import type { Operation } from '@durable-lambda/protocol';
import type {
  CompensationRoundWire,
  CompensationStatusWire,
  CompensationSummaryWire,
  CompensationWire,
  RunCompensationsWire,
} from '../saga-wire';
import { errorToWire } from './convert';
import type { RouteDeps } from './deps';
import { ApiError, invalidArgument } from './errors';
import { jsonResponse } from './http';
import type { Route } from './router';

/** The SDK's name for a round's plan step (`saga.ts`). */
export const SAGA_PLAN_STEP = 'saga plan';
/** The SDK's prefix for a compensation's step name. */
export const COMPENSATION_STEP_PREFIX = 'compensate ';

/** An operation's number among its siblings (ids are `<parent>-<n>`, or `<n>` at the top). */
function seq(op: Operation): number {
  return Number(op.Id.slice(op.Id.lastIndexOf('-') + 1));
}

/** Ids in the order of their positions in the run (`2` before `10`, a parent before its children). */
function byPosition(a: string, b: string): number {
  const pa = a.split('-').map(Number);
  const pb = b.split('-').map(Number);
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    if (pa[i] !== pb[i]) return (pa[i] ?? 0) - (pb[i] ?? 0);
  }
  return pa.length - pb.length;
}

/** The ids a plan step recorded, or undefined while it has none (or it is not the SDK's plan). */
function plannedIds(plan: Operation): string[] | undefined {
  if (plan.Status !== 'SUCCEEDED') return undefined;
  try {
    const ids: unknown = JSON.parse(plan.StepDetails?.Result ?? '[]');
    return Array.isArray(ids) && ids.every((id) => typeof id === 'string') ? ids : undefined;
  } catch {
    return undefined;
  }
}

function statusOf(op: Operation | undefined): CompensationStatusWire {
  if (op === undefined) return 'pending';
  if (op.Status === 'SUCCEEDED') return 'succeeded';
  if (op.Status === 'STARTED' || op.Status === 'PENDING' || op.Status === 'READY') return 'running';
  return 'failed';
}

/** What the run's error says was undone, when it carries the SDK's report. */
export function compensationSummary(run: Pick<RunRecord, 'error'>): CompensationSummaryWire | undefined {
  const data = run.error?.ErrorData;
  if (data === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return undefined;
  }
  const report = parsed as { compensated?: unknown; failed?: unknown };
  if (parsed === null || typeof parsed !== 'object') return undefined;
  if (!Array.isArray(report.compensated) || !report.compensated.every((s) => typeof s === 'string')) return undefined;
  if (!Array.isArray(report.failed)) return undefined;
  const failed = report.failed.filter(
    (f): f is { step: string; error: string } =>
      typeof f === 'object' && f !== null && typeof f.step === 'string' && typeof f.error === 'string',
  );
  if (failed.length !== report.failed.length) return undefined;
  return { compensated: report.compensated as string[], failed: failed.map((f) => ({ step: f.step, error: f.error })) };
}

/**
 * The run's compensations from its operations (any order) and its record: the rounds in the
 * order they were planned, each compensation matched to its step by name among the plan's later
 * siblings (a round's compensations follow its plan in its context, in plan order).
 */
export function runCompensations(
  run: Pick<RunRecord, 'runId' | 'status' | 'error'>,
  operations: readonly Operation[],
): RunCompensationsWire {
  const byId = new Map(operations.map((op) => [op.Id, op]));
  const plans = operations
    .filter((op) => op.Type === 'STEP' && op.Name === SAGA_PLAN_STEP)
    .sort((a, b) => a.StartTimestamp - b.StartTimestamp || byPosition(a.Id, b.Id));
  const claimed = new Set<string>();
  const registered = new Map<string, string>();
  const rounds: CompensationRoundWire[] = plans.map((plan) => {
    const ids = plannedIds(plan);
    const siblings = operations
      .filter((op) => op.ParentId === plan.ParentId && op.Type === 'STEP' && seq(op) > seq(plan))
      .sort((a, b) => seq(a) - seq(b));
    let after = seq(plan);
    const compensations = (ids ?? []).map((stepId): CompensationWire => {
      const step = byId.get(stepId)?.Name ?? stepId;
      registered.set(stepId, step);
      const op = siblings.find(
        (s) => seq(s) > after && !claimed.has(s.Id) && s.Name === `${COMPENSATION_STEP_PREFIX}${step}`,
      );
      if (op) {
        claimed.add(op.Id);
        after = seq(op);
      }
      const error = op?.StepDetails?.Error;
      return {
        stepId,
        step,
        planId: plan.Id,
        ...(op ? { operationId: op.Id } : {}),
        status: statusOf(op),
        attempts: op ? (op.StepDetails?.Attempt ?? 1) : 0,
        ...(error ? { error: errorToWire(error) } : {}),
      };
    });
    return {
      planId: plan.Id,
      ...(plan.ParentId === undefined ? {} : { contextId: plan.ParentId }),
      status: ids === undefined ? 'planning' : 'planned',
      compensations,
    };
  });
  const summary = compensationSummary(run);
  return {
    runId: run.runId,
    status: run.status,
    registered: [...registered].map(([stepId, step]) => ({ stepId, step })),
    rounds,
    ...(summary ? { summary } : {}),
  };
}

/** `GET /v1/runs/{runId}/compensations`: the run's compensations (`404 run_not_found`). */
export function compensationsRoute(deps: RouteDeps): Route {
  return {
    method: 'GET',
    pattern: '/v1/runs/{runId}/compensations',
    handle: async ({ request, params }) => {
      for (const name of Object.keys(request.query ?? {})) {
        throw invalidArgument(name, 'unknown query parameter (this route takes none)');
      }
      const runId = params.runId as string;
      const run = await deps.engine.getRun(runId);
      if (!run) throw new ApiError(404, 'run_not_found', `run ${runId} not found`);
      const operations = await deps.engine.store.loadOperations(runId);
      return jsonResponse(200, runCompensations(run, operations));
    },
  };
}
