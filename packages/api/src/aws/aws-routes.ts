/**
 * Routes shaped like Lambda's durable-execution APIs (version `2025-12-01`), so AWS's SDKs (any
 * language) can point their Lambda endpoint at this API: `GetDurableExecutionState` and
 * `CheckpointDurableExecution` for a handler's invocation, plus `GetDurableExecution`,
 * `GetDurableExecutionHistory`, the `SendDurableExecutionCallback*` calls and `Invoke`. No invocation state
 * is kept in memory: every call rebuilds it from its checkpoint token and the stored run.
 */
import { fromAwsUpdate } from '@durable-lambda/engine';
import { CheckpointRejectedError, FencedError, type OperationUpdate } from '@durable-lambda/protocol';
import type { RouteDeps } from '../server/deps';
import type { MultiValue } from '../server/http';
import type { Route } from '../server/router';
import { awsHistoryPage } from './aws-history-page';
import { awsCallbackRoutes } from './aws-routes-callbacks';
import { awsExecutionRoutes } from './aws-routes-executions';
import { awsInvokeRoute } from './aws-routes-invoke';
import { oncePerToken } from './aws-routes-once';
import { adoptOutOfScope } from './aws-routes-out-of-scope';
import {
  type AttachedInvocation,
  AwsCheckpointSessions,
  type AwsSessionOptions,
  awsOperations,
} from './aws-routes-session';
import { executionOfArn, namesExecution } from './aws-routes-token';
import { AWS_ROUTE_PREFIX, AwsRouteError, awsJson, awsObjectBody, awsRoute } from './aws-routes-wire';

/** Options of {@link awsRoutes}: the engine settings rebuilt sessions share. */
export type AwsRoutesOptions = AwsSessionOptions;

function single(value: MultiValue, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  throw new AwsRouteError(400, 'InvalidParameterValueException', `${field}: given more than once`);
}

/** The token's invocation, checked to be of the execution the path names. */
async function attachFor(sessions: AwsCheckpointSessions, arn: string, token: unknown): Promise<AttachedInvocation> {
  const execution = executionOfArn(arn);
  const attached = await sessions.attach(token);
  if (!namesExecution(execution, attached.run)) {
    throw new AwsRouteError(
      400,
      'InvalidParameterValueException',
      'Invalid Checkpoint Token: issued for another execution',
    );
  }
  return attached;
}

/** The engine's refusals in Lambda's words: a fenced write ends the invocation, a refused update the run. */
function classify(error: unknown): unknown {
  if (error instanceof FencedError) {
    return new AwsRouteError(400, 'InvalidParameterValueException', `Invalid Checkpoint Token: ${error.message}`);
  }
  if (error instanceof CheckpointRejectedError) {
    return new AwsRouteError(400, 'InvalidParameterValueException', error.message);
  }
  return error;
}

/** The Lambda-shaped routes. */
export function awsRoutes(deps: RouteDeps, options: AwsRoutesOptions = {}): Route[] {
  const sessions = new AwsCheckpointSessions(deps.engine, options);
  const once = { store: deps.engine.store, clock: deps.clock, report: deps.report };
  const base = `${AWS_ROUTE_PREFIX}/durable-executions/{DurableExecutionArn}`;
  return [
    awsRoute(deps, 'GET', `${base}/state`, async ({ request, params }) => {
      const query = request.query ?? {};
      const { session } = await attachFor(
        sessions,
        params.DurableExecutionArn as string,
        single(query.CheckpointToken, 'CheckpointToken'),
      );
      const marker = single(query.Marker, 'Marker');
      const start = marker === undefined || marker === '' ? 0 : Number(marker);
      const maxText = single(query.MaxItems, 'MaxItems');
      const max = maxText === undefined ? sessions.pageSize : Number(maxText);
      if (!Number.isSafeInteger(start) || start < 0) {
        throw new AwsRouteError(400, 'InvalidParameterValueException', 'Marker: not a marker this backend issued');
      }
      if (!Number.isSafeInteger(max) || max < 0) {
        throw new AwsRouteError(400, 'InvalidParameterValueException', 'MaxItems: must be a non-negative integer');
      }
      // Cut by count and by bytes, so no page passes Lambda's response limit; state operations keep
      // their results whole (they carry no `Payload` field to truncate: the SDK replays from them).
      const operations = awsOperations(session.operations);
      const { page, next } = awsHistoryPage(
        operations,
        start,
        Math.min(sessions.pageSize, max === 0 ? sessions.pageSize : max),
      );
      return awsJson(200, {
        Operations: page,
        ...(next === undefined ? {} : { NextMarker: String(next) }),
      });
    }),
    awsRoute(deps, 'POST', `${base}/checkpoint`, async ({ request, params }) => {
      const body = awsObjectBody(request.body);
      const { run, claims, session } = await attachFor(
        sessions,
        params.DurableExecutionArn as string,
        body.CheckpointToken,
      );
      if (body.Updates !== undefined && !Array.isArray(body.Updates)) {
        throw new AwsRouteError(400, 'InvalidParameterValueException', 'Updates: must be a list');
      }
      const updates: OperationUpdate[] = [];
      let checkpointedResult: string | undefined;
      (body.Updates ?? []).forEach((update: unknown, i: number) => {
        const ours = fromAwsUpdate(update as Parameters<typeof fromAwsUpdate>[0], i);
        // Our engine records the result when the invocation closes; AWS's SDK checkpoints one
        // too large to return, so it is kept on the run for the close to read.
        if (ours.Type === 'EXECUTION' && ours.Action === 'SUCCEED') checkpointedResult = ours.Payload ?? '';
        else updates.push(ours);
      });
      const write = async () => {
        if (checkpointedResult !== undefined) {
          await deps.engine.store.commit(run.runId, run.fence, { operations: [], run: { result: checkpointedResult } });
        }
        await session.checkpoint(updates);
      };
      try {
        // An empty checkpoint is how AWS's SDK polls for what outside events changed: no write.
        if (updates.length === 0 && checkpointedResult === undefined) await session.refresh();
        // A repeat of a checkpoint already stored is answered from the stored state (read by `attach`).
        else {
          // Before the repeat check, so a repeat is answered with what its updates reach too.
          await adoptOutOfScope(deps.engine.store, run.runId, session, updates);
          await oncePerToken(once, body.CheckpointToken as string, request.body ?? '', write);
        }
      } catch (error) {
        throw classify(error);
      }
      // Without a per-invocation memory of what the SDK has seen, every operation is sent: the
      // SDK merges them by id.
      const operations = awsOperations(session.operations).filter((op) => op.Type !== 'EXECUTION');
      return awsJson(200, { CheckpointToken: sessions.next(claims), NewExecutionState: { Operations: operations } });
    }),
    awsInvokeRoute(deps),
    ...awsExecutionRoutes(deps),
    ...awsCallbackRoutes(deps),
  ];
}

export type { AwsInvocationInputWire, AwsSessionEngine, AwsSessionOptions } from './aws-routes-session';
export { AwsCheckpointSessions, openAwsInvocation } from './aws-routes-session';
export type { CheckpointTokenClaims } from './aws-routes-token';
export { decodeCheckpointToken, encodeCheckpointToken, executionArn } from './aws-routes-token';
export { AWS_ROUTE_PREFIX, AwsRouteError } from './aws-routes-wire';
