/**
 * Requests for every route of the control API, the `/v1` routes and the Lambda-shaped ones
 * (`/2025-12-01/...`, `/2015-03-31/.../invocations`), with every path id, query parameter, cursor,
 * marker, token, header and body field sometimes replaced by what no client should send: long
 * (around every limit: 256, 512, 1,024 and 2,048 characters, and bytes once UTF-8 encoded),
 * unicode, control characters, numeric extremes (`1e300`, `-0`, past 2^53), the wrong JSON type,
 * empty. Kept symbolic where they name something of the world (a run, a callback, an execution
 * ARN, a checkpoint token), so a seed means the same requests whatever ids the world got.
 */
import fc from 'fast-check';
import {
  arnRef,
  awsUpdate,
  callbackRef,
  type DynamoFuzzRequest,
  fieldRef,
  flag,
  functionName,
  heldArnRef,
  historyCursor,
  iso,
  lit,
  marker,
  operationRef,
  queryOf,
  runCursor,
  runRef,
  type Segment,
  startBody,
  tokenRef,
} from './fuzz-dynamodb-parts';
import { body, field, nastyText, object } from './fuzz-values';

export type {
  ArnMangle,
  CallbackMangle,
  DynamoFuzzRequest,
  Segment,
  TokenMangle,
  TokenRef,
} from './fuzz-dynamodb-parts';

type Shape = Pick<DynamoFuzzRequest, 'method' | 'path' | 'query' | 'body'> & { headers?: Array<[string, string]> };

const V1 = 'v1';
const AWS = '2025-12-01';

/** Every route, with its method, its path ids, query and body. */
const routed: fc.Arbitrary<Shape> = fc.oneof(
  fc.constant<Shape>({ method: 'GET', path: lit(V1, 'functions'), query: [] }),
  startBody.map((b): Shape => ({ method: 'POST', path: lit(V1, 'runs'), query: [], body: b })),
  queryOf({
    function: functionName,
    status: fc.constantFrom('RUNNING', 'SUCCEEDED', 'FAILED', 'running'),
    limit: fc.constantFrom('1', '20', '100', '0', '101', '1e2'),
    cursor: runCursor,
    createdAfter: iso,
    createdBefore: iso,
    search: fc.oneof(fc.constantFrom('k1', 'order-42'), nastyText),
    include: fc.constantFrom('waitingFor', 'x', 'waitingFor,waitingFor'),
  }).map((query): Shape => ({ method: 'GET', path: lit(V1, 'runs'), query })),
  runRef.map((r): Shape => ({ method: 'GET', path: [...lit(V1, 'runs'), r], query: [] })),
  fc
    .tuple(runRef, queryOf({ limit: fc.constantFrom('1', '100', '1000', '1001', '0'), cursor: historyCursor }))
    .map(([r, query]): Shape => ({ method: 'GET', path: [...lit(V1, 'runs'), r, ...lit('operations')], query })),
  fc
    .tuple(runRef, operationRef)
    .map(([r, op]): Shape => ({ method: 'GET', path: [...lit(V1, 'runs'), r, ...lit('operations'), op], query: [] })),
  fc.tuple(runRef, operationRef, fieldRef, queryOf({ offset: marker })).map(
    ([r, op, f, query]): Shape => ({
      method: 'GET',
      path: [...lit(V1, 'runs'), r, ...lit('operations'), op, ...lit('payloads'), { lit: f }],
      query,
    }),
  ),
  fc.tuple(runRef, fieldRef, queryOf({ offset: marker })).map(
    ([r, f, query]): Shape => ({
      method: 'GET',
      path: [...lit(V1, 'runs'), r, ...lit('payloads'), { lit: f }],
      query,
    }),
  ),
  fc
    .tuple(runRef, body(object({ tree: field(fc.boolean()) })))
    .map(([r, b]): Shape => ({ method: 'POST', path: [...lit(V1, 'runs'), r, ...lit('cancel')], query: [], body: b })),
  fc
    .tuple(runRef, body(object({ fromOperation: field(fc.constantFrom('1', '2', '1-1')) })))
    .map(([r, b]): Shape => ({ method: 'POST', path: [...lit(V1, 'runs'), r, ...lit('retry')], query: [], body: b })),
  fc.tuple(runRef, operationRef, body(object({ result: field(fc.jsonValue({ maxDepth: 2 })) }))).map(
    ([r, op, b]): Shape => ({
      method: 'POST',
      path: [...lit(V1, 'runs'), r, ...lit('operations'), op, ...lit('skip')],
      query: [],
      body: b,
    }),
  ),
  runRef.map((r): Shape => ({ method: 'GET', path: [...lit(V1, 'runs'), r, ...lit('actions')], query: [] })),
  runRef.map((r): Shape => ({ method: 'GET', path: [...lit(V1, 'runs'), r, ...lit('compensations')], query: [] })),
  fc
    .tuple(runRef, body(object({ operationId: field(fc.constantFrom('1', '2')) })))
    .map(([r, b]): Shape => ({ method: 'POST', path: [...lit(V1, 'runs'), r, ...lit('wake')], query: [], body: b })),
  fc.tuple(callbackRef, body(object({ result: field(fc.jsonValue({ maxDepth: 2 })) }))).map(
    ([c, b]): Shape => ({
      method: 'POST',
      path: [...lit(V1, 'callbacks'), c, ...lit('succeed')],
      query: [],
      body: b,
    }),
  ),
  fc
    .tuple(
      callbackRef,
      body(
        object({ error: field(object({ message: field(fc.constant('declined')), code: field(fc.constant('no')) })) }),
      ),
    )
    .map(
      ([c, b]): Shape => ({ method: 'POST', path: [...lit(V1, 'callbacks'), c, ...lit('fail')], query: [], body: b }),
    ),
  fc.tuple(callbackRef, fc.option(body(object({})), { nil: undefined })).map(
    ([c, b]): Shape => ({
      method: 'POST',
      path: [...lit(V1, 'callbacks'), c, ...lit('heartbeat')],
      query: [],
      body: b,
    }),
  ),
  // The Lambda-shaped routes.
  fc
    .tuple(heldArnRef, queryOf({ CheckpointToken: tokenRef, Marker: marker, MaxItems: marker }, ['CheckpointToken']))
    .map(
      ([a, query]): Shape => ({ method: 'GET', path: [...lit(AWS, 'durable-executions'), a, ...lit('state')], query }),
    ),
  fc
    .tuple(
      heldArnRef,
      body(
        object({
          // Mostly a token of the world's held invocation and updates it can take: the store's writes are reached.
          CheckpointToken: fc.oneof({ arbitrary: tokenRef, weight: 6 }, { arbitrary: field(tokenRef), weight: 2 }),
          Updates: fc.oneof(
            { arbitrary: fc.array(awsUpdate, { minLength: 1, maxLength: 3 }), weight: 6 },
            { arbitrary: field(fc.constant([])), weight: 2 },
          ),
          ClientToken: field(fc.uuid()),
        }),
      ),
    )
    .map(
      ([a, b]): Shape => ({
        method: 'POST',
        path: [...lit(AWS, 'durable-executions'), a, ...lit('checkpoint')],
        query: [],
        body: b,
      }),
    ),
  fc
    .tuple(arnRef, queryOf({ IncludeExecutionData: flag }))
    .map(([a, query]): Shape => ({ method: 'GET', path: [...lit(AWS, 'durable-executions'), a], query })),
  fc.tuple(arnRef, queryOf({ IncludeExecutionData: flag, ReverseOrder: flag, Marker: marker, MaxItems: marker })).map(
    ([a, query]): Shape => ({
      method: 'GET',
      path: [...lit(AWS, 'durable-executions'), a, ...lit('history')],
      query,
    }),
  ),
  fc.tuple(callbackRef, fc.oneof(nastyText, fc.constantFrom('"ok"', '{"a":1}'))).map(
    ([c, text]): Shape => ({
      method: 'POST',
      path: [...lit(AWS, 'durable-execution-callbacks'), c, ...lit('succeed')],
      query: [],
      body: { text },
    }),
  ),
  fc
    .tuple(
      callbackRef,
      body(
        object({
          ErrorMessage: field(fc.constant('m')),
          ErrorType: field(fc.constant('E')),
          ErrorData: field(fc.constant('d')),
          StackTrace: field(fc.constant(['a'])),
        }),
      ),
    )
    .map(
      ([c, b]): Shape => ({
        method: 'POST',
        path: [...lit(AWS, 'durable-execution-callbacks'), c, ...lit('fail')],
        query: [],
        body: b,
      }),
    ),
  callbackRef.map(
    (c): Shape => ({
      method: 'POST',
      path: [...lit(AWS, 'durable-execution-callbacks'), c, ...lit('heartbeat')],
      query: [],
    }),
  ),
  fc
    .tuple(
      functionName,
      fc.option(fc.oneof(fc.constantFrom('RequestResponse', 'Event', 'DryRun'), nastyText), { nil: undefined }),
      fc.option(fc.oneof(fc.constantFrom('k1', 'order-42'), nastyText), { nil: undefined }),
      fc.oneof(
        fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
        nastyText,
      ),
    )
    .map(
      ([name, type, executionName, text]): Shape => ({
        method: 'POST',
        path: [...lit('2015-03-31', 'functions'), { lit: name }, ...lit('invocations')],
        query: [],
        body: { text },
        headers: [
          ...(type === undefined ? [] : ([['x-amz-invocation-type', type]] as Array<[string, string]>)),
          ...(executionName === undefined
            ? []
            : ([['x-amz-durable-execution-name', executionName]] as Array<[string, string]>)),
        ],
      }),
    ),
);

/** Headers any request may carry: the POSTs' `Idempotency-Key`, the operator's actor, others. */
const header: fc.Arbitrary<[string, string]> = fc.oneof(
  {
    arbitrary: fc.tuple(
      fc.constant('idempotency-key'),
      fc.oneof(
        { arbitrary: fc.constantFrom('k0', 'k1'), weight: 4 },
        { arbitrary: fc.uuid(), weight: 4 },
        { arbitrary: nastyText, weight: 2 },
      ),
    ),
    weight: 4,
  },
  {
    arbitrary: fc.tuple(fc.constant('x-durable-actor'), fc.oneof(fc.constant('ops@example.com'), nastyText)),
    weight: 1,
  },
  { arbitrary: fc.tuple(fc.constantFrom('accept', 'x-forwarded-for', 'x-amz-date'), nastyText), weight: 1 },
);

/** Every route's pattern, to name the route a request was made for. */
export const ROUTE_PATTERNS = [
  'GET /v1/functions',
  'POST /v1/runs',
  'GET /v1/runs',
  'GET /v1/runs/{runId}',
  'GET /v1/runs/{runId}/operations',
  'GET /v1/runs/{runId}/operations/{operationId}',
  'GET /v1/runs/{runId}/operations/{operationId}/payloads/{field}',
  'GET /v1/runs/{runId}/payloads/{field}',
  'POST /v1/runs/{runId}/cancel',
  'POST /v1/runs/{runId}/retry',
  'POST /v1/runs/{runId}/operations/{operationId}/skip',
  'GET /v1/runs/{runId}/actions',
  'GET /v1/runs/{runId}/compensations',
  'POST /v1/runs/{runId}/wake',
  'POST /v1/callbacks/{callbackId}/succeed',
  'POST /v1/callbacks/{callbackId}/fail',
  'POST /v1/callbacks/{callbackId}/heartbeat',
  'GET /2025-12-01/durable-executions/{DurableExecutionArn}/state',
  'POST /2025-12-01/durable-executions/{DurableExecutionArn}/checkpoint',
  'GET /2025-12-01/durable-executions/{DurableExecutionArn}',
  'GET /2025-12-01/durable-executions/{DurableExecutionArn}/history',
  'POST /2025-12-01/durable-execution-callbacks/{CallbackId}/succeed',
  'POST /2025-12-01/durable-execution-callbacks/{CallbackId}/fail',
  'POST /2025-12-01/durable-execution-callbacks/{CallbackId}/heartbeat',
  'POST /2015-03-31/functions/{FunctionName}/invocations',
] as const;

/** The pattern whose fixed segments the path has where the pattern has them. */
function routeOf(method: string, path: readonly Segment[]): string {
  for (const pattern of ROUTE_PATTERNS) {
    const [verb, template = ''] = pattern.split(' ');
    const parts = template.split('/').slice(1);
    if (verb !== method || parts.length !== path.length) continue;
    const fits = parts.every((part, i) => {
      const segment = path[i] as Segment;
      return part.startsWith('{') || ('lit' in segment && segment.lit === part);
    });
    if (fits) return pattern;
  }
  return `${method} (no route)`;
}

/** Any request: a route with every part sometimes wrong. POSTs say JSON (the API requires it of `/v1`). */
export const dynamoFuzzRequest: fc.Arbitrary<DynamoFuzzRequest> = fc
  .record({
    transport: fc.constantFrom<DynamoFuzzRequest['transport']>('handle', 'handle', 'handle', 'lambda', 'node'),
    shape: routed,
    headers: fc.array(header, { maxLength: 3 }),
  })
  .map(({ transport, shape, headers }) => ({
    route: routeOf(shape.method, shape.path),
    transport,
    method: shape.method,
    path: shape.path,
    query: shape.query,
    headers: [
      ...(shape.method === 'POST' ? ([['content-type', 'application/json']] as Array<[string, string]>) : []),
      ...(shape.headers ?? []),
      ...headers,
    ],
    ...(shape.body === undefined ? {} : { body: shape.body }),
  }));
