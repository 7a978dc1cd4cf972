import type { CallbackAckWire } from '../wire';
import type { RouteDeps } from './deps';
import { afterDurableWrite, callbackCompletedAs } from './durable-outcome';
import { invalidArgument } from './errors';
import { jsonResponse } from './http';
import type { Route } from './router';
import { isJsonObject, optionalString, parseObjectBody, rejectUnknownFields } from './validate';

/** Longest error code (and error type) accepted for a failed callback. */
const MAX_CODE = 256;
/** Longest error data accepted for a failed callback (the payload limit bounds the whole write). */
const MAX_DATA = 256 * 1024;

const ack = (callbackId: string, outcome: CallbackAckWire['outcome']) =>
  jsonResponse(200, { callbackId, outcome } satisfies CallbackAckWire);

/** The callback routes: succeed `{result?}`, fail `{error: {message, code?, type?, data?}}`, heartbeat. */
export function callbackRoutes(deps: RouteDeps): Route[] {
  return [
    {
      method: 'POST',
      pattern: '/v1/callbacks/{callbackId}/succeed',
      handle: async ({ request, params }) => {
        const callbackId = params.callbackId as string;
        const body = parseObjectBody(request.body, false) ?? {};
        rejectUnknownFields(body, ['result']);
        // Any JSON value; the callback receives its JSON text.
        const result = body.result === undefined ? undefined : JSON.stringify(body.result);
        // A completion stored whose wake-up failed is done: the run is due (its event is
        // unhandled), so the wake-up is left to the reconciler.
        await afterDurableWrite(
          deps,
          () => deps.engine.sendCallbackSuccess(callbackId, result).then(() => true as const),
          () =>
            callbackCompletedAs(deps, callbackId, {
              status: 'SUCCEEDED',
              ...(result === undefined ? {} : { result }),
            }),
        );
        return ack(callbackId, 'succeeded');
      },
    },
    {
      method: 'POST',
      pattern: '/v1/callbacks/{callbackId}/fail',
      handle: async ({ request, params }) => {
        const callbackId = params.callbackId as string;
        const body = parseObjectBody(request.body, true);
        rejectUnknownFields(body, ['error']);
        const error = body.error;
        if (!isJsonObject(error))
          throw invalidArgument('error', 'is required (an object {message, code?, type?, data?})');
        rejectUnknownFields(error, ['code', 'message', 'type', 'data'], 'error.');
        if (typeof error.message !== 'string') throw invalidArgument('error.message', 'is required (a string)');
        const code = optionalString(error.code, 'error.code', MAX_CODE);
        const type = optionalString(error.type, 'error.type', MAX_CODE);
        const data = optionalString(error.data, 'error.data', MAX_DATA);
        // The callback's waiter sees these as AWS's ErrorObject (ErrorType, ErrorData).
        const failure = {
          ErrorMessage: error.message,
          ...(code === undefined ? {} : { ErrorCode: code }),
          ...(type === undefined ? {} : { ErrorType: type }),
          ...(data === undefined ? {} : { ErrorData: data }),
        };
        // As for succeed: once the failure is stored, a failed wake-up is left to the reconciler.
        await afterDurableWrite(
          deps,
          () => deps.engine.sendCallbackFailure(callbackId, failure).then(() => true as const),
          () => callbackCompletedAs(deps, callbackId, { status: 'FAILED', error: failure }),
        );
        return ack(callbackId, 'failed');
      },
    },
    {
      method: 'POST',
      pattern: '/v1/callbacks/{callbackId}/heartbeat',
      handle: async ({ request, params }) => {
        const callbackId = params.callbackId as string;
        const body = parseObjectBody(request.body, false);
        if (body) rejectUnknownFields(body, []);
        await deps.engine.sendCallbackHeartbeat(callbackId);
        return ack(callbackId, 'heartbeat');
      },
    },
  ];
}
