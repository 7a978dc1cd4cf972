import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  API_ERROR_CODES,
  API_ERROR_STATUS,
  ApiError,
  AwsRouteError,
  CLIENT_ERROR_CODES,
  type ClientErrorCode,
  CONTROL_API_ERROR_CODES,
  type ControlApiErrorCode,
  CostEstimateError,
  DurableApiError,
  DurableClient,
  DurableClientError,
  DurableConnectionError,
  ENGINE_ERROR_STATUS,
  isControlApiErrorCode,
  RunExportError,
} from '@durable-lambda/api';
import {
  ENGINE_ERROR_CODES,
  type EngineErrorCode,
  FunctionNotFoundError,
  RunBusyError,
  RunNotFoundError,
} from '@durable-lambda/engine';
import { CheckpointRejectedError, FencedError, PROTOCOL_ERROR_CODES } from '@durable-lambda/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toAwsRouteError } from '../../packages/api/src/aws/aws-routes-wire';
import { toApiError } from '../../packages/api/src/server/errors';

// Type-level proofs, checked by `tsc -p tsconfig.json` (which includes test/): the status map
// must name every code of every layer the API serves, and nothing else.
type StatusMap = Readonly<Record<ControlApiErrorCode, number>>;
const { run_busy: _runBusy, ...withoutRunBusy } = API_ERROR_STATUS;
// @ts-expect-error a map that forgets a code (here the engine's run_busy) is not a status map
const forgetful: StatusMap = withoutRunBusy;
// A code added to the engine's union without a status fails the same way:
type EngineWithANewCode = EngineErrorCode | 'brand_new_engine_code';
// @ts-expect-error the engine's map has no status for the new code
const outdated: Readonly<Record<EngineWithANewCode, number>> = ENGINE_ERROR_STATUS;
// @ts-expect-error ApiError takes only codes some layer declares
const undeclared = new ApiError(418, 'made_up_code', 'no such code');
// @ts-expect-error nor does AwsRouteError, an ApiError
const undeclaredAws = new AwsRouteError(400, 'InvalidParameterValueException', 'no such code', 'made_up_code');
// @ts-expect-error CostEstimateError takes only its codes of the client's union
const undeclaredCost = new CostEstimateError('made_up_code', 'no such code');

describe('the control API status map', () => {
  it('gives every code of the engine, the protocol and the API an HTTP error status', () => {
    const codes: readonly ControlApiErrorCode[] = [...ENGINE_ERROR_CODES, ...PROTOCOL_ERROR_CODES, ...API_ERROR_CODES];
    for (const code of codes) {
      const status = API_ERROR_STATUS[code];
      expect(Number.isInteger(status) && status >= 400 && status <= 599, `${code}: ${status}`).toBe(true);
      expect(CONTROL_API_ERROR_CODES).toContain(code);
      expect(isControlApiErrorCode(code)).toBe(true);
    }
    expect([...CONTROL_API_ERROR_CODES].sort()).toEqual([...new Set(codes)].sort());
    expect(Object.keys(API_ERROR_STATUS).sort()).toEqual([...new Set(codes)].sort());
    // The type-level proofs above are values too: keep them referenced.
    expect([forgetful, outdated, undeclared, undeclaredAws, undeclaredCost]).toHaveLength(5);
  });

  it('keeps the statuses users rely on', () => {
    expect(API_ERROR_STATUS.run_not_found).toBe(404);
    expect(API_ERROR_STATUS.function_not_found).toBe(404);
    expect(API_ERROR_STATUS.run_busy).toBe(409);
    expect(API_ERROR_STATUS.payload_too_large).toBe(413);
    expect(API_ERROR_STATUS.idempotency_key_reused).toBe(422);
    expect(API_ERROR_STATUS.export_incomplete).toBe(422);
    expect(API_ERROR_STATUS.internal_error).toBe(500);
  });

  it("maps an engine error to an ApiError by its code; a code that is never the caller's stays internal", () => {
    const mapped = toApiError(new RunNotFoundError('r1'));
    expect(mapped).toBeInstanceOf(ApiError);
    expect(mapped).toMatchObject({ status: 404, code: 'run_not_found', message: 'run r1 not found' });
    expect(toApiError(new FunctionNotFoundError('orders'))).toMatchObject({ status: 404, code: 'function_not_found' });
    expect(toApiError(new RunBusyError('r1'))).toMatchObject({ status: 409, code: 'run_busy' });
    expect(toApiError(new FencedError())).toBeUndefined();
    expect(toApiError(new CheckpointRejectedError('refused', 'op1'))).toBeUndefined();
    expect(toApiError(Object.assign(new Error('odd'), { code: 'constructor' }))).toBeUndefined();
  });
});

describe("the Lambda-shaped routes' errors", () => {
  it("answer every engine and protocol code that is the caller's doing with its status and a Lambda exception", () => {
    for (const code of [...ENGINE_ERROR_CODES, ...PROTOCOL_ERROR_CODES]) {
      const status = API_ERROR_STATUS[code];
      const mapped = toAwsRouteError(Object.assign(new Error(`failed with ${code}`), { code }));
      if (status >= 500) {
        expect(mapped, code).toBeUndefined();
        continue;
      }
      expect(mapped?.status, code).toBe(status);
      expect(mapped?.name, code).toMatch(/Exception$/);
    }
  });
});

describe("the server side's errors", () => {
  it('RunExportError is an ApiError answered with its status in the map', () => {
    const error = new RunExportError('run r1: the API left out its input (too large): export from the table');
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toBeInstanceOf(RunExportError);
    expect(error.name).toBe('RunExportError');
    expect(error.code).toBe('export_incomplete');
    expect(error.status).toBe(API_ERROR_STATUS.export_incomplete);
    expect(toApiError(error)).toBe(error);
    const answer = error.toResponse();
    expect(answer.status).toBe(422);
    expect(JSON.parse(answer.body ?? '')).toMatchObject({
      error: { code: 'export_incomplete', message: error.message },
    });
  });

  it('AwsRouteError is an ApiError carrying a code of the union, answered as Lambda answers', () => {
    const direct = new AwsRouteError(400, 'InvalidParameterValueException', 'MaxItems: must be a non-negative integer');
    expect(direct).toBeInstanceOf(ApiError);
    expect(direct.name).toBe('InvalidParameterValueException');
    expect(direct.code).toBe('invalid_argument');
    expect(direct.message).toBe('MaxItems: must be a non-negative integer');
    const answer = direct.toResponse();
    expect(answer.status).toBe(400);
    expect(answer.headers['x-amzn-errortype']).toBe('InvalidParameterValueException');
    expect(JSON.parse(answer.body ?? '')).toEqual({ Type: 'User', message: direct.message });
    expect(new AwsRouteError(500, 'ServiceException', 'internal error').code).toBe('internal_error');
    expect(new AwsRouteError(429, 'TooManyRequestsException', 'in progress').code).toBe('idempotency_in_progress');
    // Mapped from an engine error: the engine's code is kept.
    const mapped = toAwsRouteError(new RunBusyError('r1'));
    expect(mapped).toBeInstanceOf(AwsRouteError);
    expect(mapped).toMatchObject({ status: 409, name: 'ResourceConflictException', code: 'run_busy' });
    for (const error of [direct, mapped]) expect(CONTROL_API_ERROR_CODES).toContain(error?.code);
  });
});

describe("the client side's errors", () => {
  /** One instance of every error class of the client side, with the name and code users see. */
  const ERRORS: readonly [DurableClientError, string, ClientErrorCode][] = [
    [
      new DurableApiError(502, 'invalid_response', 'GET /v1/runs/r1: the answer is not JSON'),
      'DurableApiError',
      'invalid_response',
    ],
    [
      new DurableConnectionError('http://127.0.0.1:1', { cause: new Error('connect ECONNREFUSED') }),
      'DurableConnectionError',
      'unreachable',
    ],
    [
      new CostEstimateError('invalid_option', '--memory: must be positive', 'memory'),
      'CostEstimateError',
      'invalid_option',
    ],
    [
      new CostEstimateError('unknown_function', 'no runs of a function named "x"'),
      'CostEstimateError',
      'unknown_function',
    ],
    [new CostEstimateError('no_metered_runs', 'no ended run has a meter'), 'CostEstimateError', 'no_metered_runs'],
  ];

  it('share one base, DurableClientError, each keeping its name and a code from CLIENT_ERROR_CODES', () => {
    for (const [error, name, code] of ERRORS) {
      expect(error).toBeInstanceOf(DurableClientError);
      expect(error).toBeInstanceOf(Error);
      expect(error.name).toBe(name);
      expect(error.code).toBe(code);
      expect(CLIENT_ERROR_CODES).toContain(error.code);
    }
    expect(new DurableConnectionError('http://h', { cause: new Error('down') }).message).toBe(
      'cannot reach http://h: down',
    );
  });

  it('every code of CLIENT_ERROR_CODES is carried by some client error, and none is answered by the API', () => {
    const carried = new Set(ERRORS.map(([error]) => error.code));
    expect(CLIENT_ERROR_CODES.filter((code) => !carried.has(code))).toEqual([]);
    for (const code of CLIENT_ERROR_CODES) expect(isControlApiErrorCode(code), code).toBe(false);
  });

  it("a DurableApiError keeps the API's code, under the same base", () => {
    const error = new DurableApiError(404, 'run_not_found', 'run r1 not found');
    expect(error).toBeInstanceOf(DurableClientError);
    expect(error.code).toBe('run_not_found');
  });
});

describe('the client', () => {
  let server: Server;
  let answer: ControlApiErrorCode = 'internal_error';
  let baseUrl = '';

  beforeAll(async () => {
    // Answers every request with the current code, through the API's own error answer.
    server = createServer((_req, res) => {
      const response = new ApiError(API_ERROR_STATUS[answer], answer, `answered ${answer}`).toResponse();
      res.writeHead(response.status, response.headers);
      res.end(response.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('turns every answered code back into a DurableApiError with its code and status', async () => {
    const client = new DurableClient({ baseUrl, retries: 0 });
    for (const code of CONTROL_API_ERROR_CODES) {
      answer = code;
      const error = await client.getRun('r1').then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error, code).toBeInstanceOf(DurableApiError);
      const apiError = error as DurableApiError;
      expect(apiError.code).toBe(code);
      expect(apiError.status).toBe(API_ERROR_STATUS[code]);
      expect(apiError.message).toBe(`answered ${code}`);
      expect(isControlApiErrorCode(apiError.code)).toBe(true);
    }
  });
});
