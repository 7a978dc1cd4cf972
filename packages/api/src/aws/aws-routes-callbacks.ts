/**
 * The Lambda-shaped `SendDurableExecutionCallback{Success,Failure,Heartbeat}` routes: what a tool
 * written for Lambda's API sends to complete a callback.
 */
import { fromAwsError } from '@durable-lambda/engine';
import type { RouteDeps } from '../server/deps';
import { afterDurableWrite, callbackCompletedAs } from '../server/durable-outcome';
import type { Route } from '../server/router';
import { AWS_ROUTE_PREFIX, awsJson, awsObjectBody, awsRoute } from './aws-routes-wire';

/** The Lambda-shaped callback routes. */
export function awsCallbackRoutes(deps: RouteDeps): Route[] {
  const callbacks = `${AWS_ROUTE_PREFIX}/durable-execution-callbacks/{CallbackId}`;
  return [
    awsRoute(deps, 'POST', `${callbacks}/succeed`, async ({ request, params }) => {
      const callbackId = params.CallbackId as string;
      // The body is the result itself (Lambda's binary payload): the callback receives this text.
      const result = request.body === undefined || request.body === '' ? undefined : request.body;
      await afterDurableWrite(
        deps,
        () => deps.engine.sendCallbackSuccess(callbackId, result).then(() => true as const),
        () =>
          callbackCompletedAs(deps, callbackId, { status: 'SUCCEEDED', ...(result === undefined ? {} : { result }) }),
      );
      return awsJson(200, {});
    }),
    awsRoute(deps, 'POST', `${callbacks}/fail`, async ({ request, params }) => {
      const callbackId = params.CallbackId as string;
      // The body is AWS's `ErrorObject` itself.
      const given = fromAwsError(awsObjectBody(request.body), 'Error') ?? {};
      const failure = {
        ErrorMessage: given.ErrorMessage ?? '',
        ...(given.ErrorType === undefined ? {} : { ErrorType: given.ErrorType }),
        ...(given.ErrorData === undefined ? {} : { ErrorData: given.ErrorData }),
      };
      await afterDurableWrite(
        deps,
        () => deps.engine.sendCallbackFailure(callbackId, failure).then(() => true as const),
        () => callbackCompletedAs(deps, callbackId, { status: 'FAILED', error: failure }),
      );
      return awsJson(200, {});
    }),
    awsRoute(deps, 'POST', `${callbacks}/heartbeat`, async ({ params }) => {
      await deps.engine.sendCallbackHeartbeat(params.CallbackId as string);
      return awsJson(200, {});
    }),
  ];
}
