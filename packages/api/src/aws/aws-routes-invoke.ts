/**
 * Lambda's `Invoke` of a durable function, shaped as Lambda answers it: the run starts and its
 * execution ARN comes back in `X-Amz-Durable-Execution-Arn`. With it, a tool written for Lambda's
 * durable functions (AWS's own `CloudDurableTestRunner`) starts and follows runs on this API.
 */

import type { RouteDeps } from '../server/deps';
import { headerValue } from '../server/http';
import { startRunGoing } from '../server/kick';
import type { Route } from '../server/router';
import { executionArn } from './aws-routes-token';
import { AwsRouteError, awsRoute } from './aws-routes-wire';

/** Lambda's `Invoke` path (its own API version, older than the durable-execution calls). */
export const AWS_INVOKE_PATTERN = '/2015-03-31/functions/{FunctionName}/invocations';

/** Longest run key accepted (the engine's limit; Lambda's execution names are shorter). */
const MAX_NAME = 256;

/** A function's name from what Lambda accepts: a name, `name:qualifier`, or a function ARN. */
function functionNameOf(given: string): string {
  const marker = ':function:';
  const at = given.indexOf(marker);
  const rest = at === -1 ? given : given.slice(at + marker.length);
  return rest.split(':')[0] ?? rest;
}

function header(request: Parameters<Route['handle']>[0]['request'], name: string) {
  const value = headerValue(request.headers, name);
  if (Array.isArray(value))
    throw new AwsRouteError(400, 'InvalidParameterValueException', `${name}: sent more than once`);
  return value as string | undefined;
}

/**
 * `Invoke`: starts a run of the function with the payload (`{}` when empty, as Lambda hands it),
 * keyed by `X-Amz-Durable-Execution-Name` when given (the same name finds the same run). It
 * answers at once, whatever `X-Amz-Invocation-Type` says (`202` for `Event`, `204` for `DryRun`
 * without starting anything, `200` with an empty payload for `RequestResponse`): the run's
 * outcome is read from `GetDurableExecution` or its history, as for an asynchronous invoke.
 */
export function awsInvokeRoute(deps: RouteDeps): Route {
  return awsRoute(deps, 'POST', AWS_INVOKE_PATTERN, async ({ request, params }) => {
    const functionName = functionNameOf(params.FunctionName as string);
    if (!deps.functions().includes(functionName)) {
      throw new AwsRouteError(404, 'ResourceNotFoundException', `Function not found: ${functionName}`);
    }
    const type = header(request, 'x-amz-invocation-type') ?? 'RequestResponse';
    if (!['RequestResponse', 'Event', 'DryRun'].includes(type)) {
      throw new AwsRouteError(400, 'InvalidParameterValueException', `X-Amz-Invocation-Type: unknown type ${type}`);
    }
    const input = request.body === undefined || request.body.trim() === '' ? '{}' : request.body;
    try {
      JSON.parse(input);
    } catch {
      throw new AwsRouteError(400, 'InvalidRequestContentException', 'Could not parse request body into json');
    }
    if (type === 'DryRun') return { status: 204, headers: {}, body: '' };
    const runKey = header(request, 'x-amz-durable-execution-name');
    if (runKey !== undefined && (runKey === '' || runKey.length > MAX_NAME)) {
      throw new AwsRouteError(
        400,
        'InvalidParameterValueException',
        'X-Amz-Durable-Execution-Name: 1 to 256 characters',
      );
    }
    // A run never invoked (new, or found again after its first start failed) is started now.
    const { run } = await startRunGoing(deps, { functionName, input, ...(runKey === undefined ? {} : { runKey }) });
    return {
      status: type === 'Event' ? 202 : 200,
      headers: {
        'x-amz-durable-execution-arn': executionArn(run.functionName, run.runId, run.incarnation),
        'x-amz-executed-version': '$LATEST',
        ...(type === 'Event' ? {} : { 'content-type': 'application/json' }),
      },
      body: '',
    };
  });
}
