import type { DurableClient, DurableClientOptions } from '@durable-lambda/api';
import type { AwsErrorObject } from '@durable-lambda/engine';

/** How the cloud runner completes callbacks. */
export interface CloudCallbacks {
  /** `result` is the exact text the callback receives (AWS's `Result`), or none. */
  success(callbackId: string, result: string | undefined): Promise<void>;
  failure(callbackId: string, error: AwsErrorObject | undefined): Promise<void>;
  heartbeat(callbackId: string): Promise<void>;
}

const RETRIES = 3;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Through the control API's Lambda-shaped callback routes (`SendDurableExecutionCallback*`),
 * which keep what AWS's runner sends exactly: the result's text, the error's type and data. A
 * `429`, a `503` or a network error is retried (a completion is accepted once; a retry of one
 * that landed answers `409`, taken as done only when the first attempt's answer was lost). An API
 * that does not serve those routes (a `404` that is not Lambda's, as from a dev server that
 * forwards only `/v1`) is answered through `fallback` from then on.
 */
export function lambdaShapedCallbacks(options: DurableClientOptions, fallback: CloudCallbacks): CloudCallbacks {
  const base = options.baseUrl.replace(/\/+$/, '');
  const fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
  let served = true;
  /** True when sent; false when the API does not serve the route. */
  const send = async (callbackId: string, action: string, body: string | undefined, type: string) => {
    const url = `${base}/2025-12-01/durable-execution-callbacks/${encodeURIComponent(callbackId)}/${action}`;
    let lost = false;
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await fetchImpl(url, {
          method: 'POST',
          headers: { ...options.headers, 'content-type': type },
          ...(body === undefined ? {} : { body }),
        });
      } catch (error) {
        if (attempt >= RETRIES) throw new Error(`cannot reach ${url}`, { cause: error });
        lost = true;
        await sleep(100 * 2 ** attempt);
        continue;
      }
      const text = await response.text();
      if (response.ok) return true;
      const errorType = response.headers.get('x-amzn-errortype');
      if (response.status === 404 && errorType === null) {
        served = false;
        return false;
      }
      if ((response.status === 429 || response.status === 503) && attempt < RETRIES) {
        await sleep(100 * 2 ** attempt);
        continue;
      }
      if (response.status === 409 && lost) return true;
      const name = errorType ?? `HTTP ${response.status}`;
      let message = text;
      try {
        message = (JSON.parse(text) as { message?: string }).message ?? text;
      } catch {
        // Not JSON: the text itself.
      }
      const error = new Error(`${name}: ${message}`);
      error.name = name;
      throw error;
    }
  };
  return {
    success: async (callbackId, result) => {
      if (!served || !(await send(callbackId, 'succeed', result, 'application/octet-stream'))) {
        await fallback.success(callbackId, result);
      }
    },
    failure: async (callbackId, error) => {
      if (!served || !(await send(callbackId, 'fail', JSON.stringify(error ?? {}), 'application/json'))) {
        await fallback.failure(callbackId, error);
      }
    },
    heartbeat: async (callbackId) => {
      if (!served || !(await send(callbackId, 'heartbeat', undefined, 'application/json'))) {
        await fallback.heartbeat(callbackId);
      }
    },
  };
}

/**
 * Through the typed client's `/v1/callbacks` routes, for a runner given only a `client`: those
 * store JSON, so a result that is JSON text is sent as its value and any other text as a JSON
 * string (the callback then receives it quoted), and only an error's message is kept.
 */
export function controlApiCallbacks(client: DurableClient): CloudCallbacks {
  return {
    success: async (callbackId, result) => {
      if (result === undefined) {
        await client.succeedCallback(callbackId);
        return;
      }
      let value: unknown = result;
      try {
        value = JSON.parse(result);
      } catch {
        // Not JSON: sent as a string.
      }
      await client.succeedCallback(callbackId, value);
    },
    failure: async (callbackId, error) => {
      await client.failCallback(callbackId, { message: error?.ErrorMessage ?? '' });
    },
    heartbeat: async (callbackId) => {
      await client.heartbeatCallback(callbackId);
    },
  };
}
