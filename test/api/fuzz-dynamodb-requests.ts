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

/** One path segment: literal text (percent-encoded), raw text (as is), or a reference into the world. */
export type Segment =
  | { lit: string }
  | { raw: string }
  | { run: number }
  | { callback: number; mangle: CallbackMangle }
  | { arn: number; mangle: ArnMangle }
  /** The execution ARN of the run checkpoint token `tokenArn` was issued for. */
  | { tokenArn: number; mangle: ArnMangle };

export type CallbackMangle = 'none' | 'truncate' | 'secret' | 'otherOp' | 'longRun' | 'unicodeRun';
export type ArnMangle = 'none' | 'bare' | 'longRun' | 'unicodeRun' | 'twoSegments' | 'empty';
export type TokenMangle = 'none' | 'otherRun' | 'hugeFence' | 'longRun' | 'longLease' | 'garbage' | 'nextSeq';

/** A value that becomes a checkpoint token of the world (possibly made wrong) when sent. */
export interface TokenRef {
  token: number;
  mangle: TokenMangle;
}

/** A generated request. Values `{token}`-shaped in queries and bodies are resolved by the world. */
export interface DynamoFuzzRequest {
  /** The route it was made for (`GET /v1/runs/{runId}`), for the report. */
  route: string;
  transport: 'handle' | 'lambda' | 'node';
  method: string;
  path: Segment[];
  query: Array<[string, string | TokenRef]>;
  headers: Array<[string, string]>;
  /** JSON of a value (tokens resolved), or text as it is. */
  body?: { json: unknown } | { text: string };
}

/** Texts no field expects: control characters, unicode, number-like, prototype names, path tricks. */
const ODD_TEXT = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\n',
  '\r\n',
  '\t',
  '\u007f',
  '\u2028',
  '\uFEFF',
  '\ud800',
  '😀',
  'é',
  '..',
  '.',
  '%',
  '%00',
  '/',
  '\\',
  '__proto__',
  'constructor',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e300',
  '-1e300',
  '1e-400',
  '9007199254740993',
  '-0',
  '0x10',
  '٣',
  '-1',
  '0',
  '2147483648',
];

/** Lengths at and around every limit a store or the API has, in characters. */
const EDGE_LENGTHS = [255, 256, 257, 511, 512, 513, 1023, 1024, 1025, 2047, 2048, 2049, 4096];

/** Long text: at a limit or past it, in characters that take 1, 2, 4 bytes (or need escaping). */
const longText: fc.Arbitrary<string> = fc
  .tuple(
    fc.oneof(fc.constantFrom(...EDGE_LENGTHS), fc.integer({ min: 200, max: 6000 })),
    fc.constantFrom('x', '1', 'é', '😀', '\u0000', '%', '-'),
  )
  .map(([n, c]) => c.repeat(Math.max(1, Math.floor(n / c.length))));

/** Any text a field might be given, good or bad. */
export const nastyText: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...ODD_TEXT), weight: 4 },
  { arbitrary: longText, weight: 3 },
  { arbitrary: fc.string({ maxLength: 20 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }), weight: 1 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 20 }), weight: 1 },
);

/** Numbers at the edges of every range (JSON can carry all but the non-finite, which become null). */
const nastyNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(0, -0, 1, -1, 0.5, 1e300, -1e300, 1e-300, 2 ** 53 + 2, -(2 ** 53) - 2, 2 ** 31, 1e21, 86_400 * 367),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

/** A JSON value of the wrong type for any field. */
const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  nastyNumber,
  fc.boolean(),
  fc.constant(null),
  fc.constant([]),
  fc.constant({}),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
  fc.integer({ min: 200, max: 400 }).map((depth) => JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`)),
);

/** `arbitrary`'s value one time in `oneIn`, else undefined (`fc.option`'s `freq` counts the other way). */
function sometimes<T>(arbitrary: fc.Arbitrary<T>, oneIn: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ arbitrary: fc.constant(undefined), weight: oneIn - 1 }, { arbitrary, weight: 1 });
}

/**
 * A field given a good value mostly (so a request with one bad part is common, and reaches as far
 * as that part), else bad text, the wrong type, or left out (undefined).
 */
function field<T>(good: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof(
    { arbitrary: good, weight: 10 },
    { arbitrary: nastyText, weight: 2 },
    { arbitrary: wrongType, weight: 1 },
    { arbitrary: fc.constant(undefined), weight: 1 },
  );
}

/** An object of fields (undefined ones left out), sometimes with an unknown one more. */
function object(fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Record<string, unknown>> {
  return fc.tuple(fc.record(fields), sometimes(fc.tuple(nastyText, wrongType), 8)).map(([known, extra]) => {
    const out: Record<string, unknown> = {};
    const put = (k: string, v: unknown) =>
      Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    for (const [k, v] of Object.entries(known)) if (v !== undefined) put(k, v);
    if (extra) put(extra[0], extra[1]);
    return out;
  });
}

/** A JSON body of `good` mostly; otherwise text that is not JSON, a value that is not an object, or none. */
function body(good: fc.Arbitrary<unknown>): fc.Arbitrary<DynamoFuzzRequest['body']> {
  return fc.oneof(
    { arbitrary: good.map((json) => ({ json })), weight: 12 },
    {
      arbitrary: fc.oneof(nastyText, fc.constantFrom('{', '[1,', '{"a":1}}', '{"x":1e400}')).map((text) => ({ text })),
      weight: 1,
    },
    { arbitrary: wrongType.map((json) => ({ json })), weight: 1 },
    { arbitrary: fc.constant(undefined), weight: 1 },
  );
}

const lit = (...parts: string[]): Segment[] => parts.map((p) => ({ lit: p }));
const nastySegment: fc.Arbitrary<Segment> = fc.oneof(
  { arbitrary: nastyText.map((text) => ({ lit: text })), weight: 4 },
  { arbitrary: fc.constantFrom('%', '%zz', '%E0%A4%A', '%00', '%2F', '..').map((raw) => ({ raw })), weight: 1 },
);
/** A reference to something of the world (`good`) mostly, else a nasty segment. */
const orNasty = (good: fc.Arbitrary<Segment>): fc.Arbitrary<Segment> =>
  fc.oneof({ arbitrary: good, weight: 6 }, { arbitrary: nastySegment, weight: 1 });
/** `none` (kept as the world has it) half the time, else one of the ways to make it wrong. */
const mangled = <T extends string>(...ways: T[]): fc.Arbitrary<T | 'none'> =>
  fc.oneof(
    { arbitrary: fc.constant('none' as const), weight: ways.length },
    { arbitrary: fc.constantFrom(...ways), weight: ways.length },
  );

const runRef = orNasty(fc.nat(30).map((run) => ({ run })));
const operationRef = orNasty(
  fc.constantFrom('0', '1', '2', '3', '1-1', '2-1', '99', '01').map((text) => ({ lit: text })),
);
const callbackRef = orNasty(
  fc.record({
    callback: fc.nat(5),
    mangle: mangled<CallbackMangle>('truncate', 'secret', 'otherOp', 'longRun', 'unicodeRun'),
  }),
);
const arnRef = orNasty(
  fc.record({ arn: fc.nat(30), mangle: mangled<ArnMangle>('bare', 'longRun', 'unicodeRun', 'twoSegments', 'empty') }),
);
/** The ARN a checkpoint token of the world belongs to, mostly (else another, or made wrong). */
const heldArnRef = fc.oneof(
  {
    arbitrary: orNasty(
      fc.record({ tokenArn: fc.nat(5), mangle: mangled<ArnMangle>('bare', 'longRun', 'twoSegments') }),
    ),
    weight: 4,
  },
  { arbitrary: arnRef, weight: 1 },
);
const tokenRef: fc.Arbitrary<TokenRef> = fc.record({
  token: fc.nat(5),
  mangle: mangled<TokenMangle>('nextSeq', 'otherRun', 'hugeFence', 'longRun', 'longLease', 'garbage'),
});
const fieldRef = fc.oneof(fc.constantFrom('input', 'result', 'error'), nastyText);
const functionName = fc.oneof(
  {
    arbitrary: fc.constantFrom('fn', 'other', 'nope', 'fn:1', 'arn:aws:lambda:us-east-1:123456789012:function:fn'),
    weight: 3,
  },
  { arbitrary: nastyText, weight: 2 },
);

const startBody = body(
  object({
    function: field(fc.constantFrom('fn', 'other')),
    input: field(fc.jsonValue({ maxDepth: 3 })),
    runKey: field(fc.constantFrom('k1', 'k2', 'order-42')),
    executionTimeout: field(fc.constantFrom(1, 60, 31_622_400)),
  }),
);

/** Lambda-shaped operation updates AWS's SDK sends, each valid on its own. */
const UPDATE_TEMPLATES: ReadonlyArray<Record<string, unknown>> = [
  { Id: '1', Type: 'STEP', SubType: 'Step', Action: 'START', Name: 'charge' },
  { Id: '1', Type: 'STEP', SubType: 'Step', Action: 'SUCCEED', Name: 'charge', Payload: '"ok"' },
  { Id: '1', Type: 'STEP', Action: 'RETRY', Error: { ErrorMessage: 'm' }, StepOptions: { NextAttemptDelaySeconds: 5 } },
  { Id: '2', Type: 'STEP', Action: 'FAIL', Error: { ErrorMessage: 'm', ErrorType: 'E', StackTrace: ['a'] } },
  { Id: '3', Type: 'WAIT', SubType: 'Wait', Action: 'START', WaitOptions: { WaitSeconds: 60 } },
  { Id: '4', Type: 'CALLBACK', Action: 'START', CallbackOptions: { TimeoutSeconds: 60, HeartbeatTimeoutSeconds: 30 } },
  { Id: '5', Type: 'CONTEXT', SubType: 'RunInChildContext', Action: 'START', Name: 'block' },
  { Id: '5-1', ParentId: '5', Type: 'STEP', Action: 'SUCCEED', Payload: '1' },
  { Id: '5', Type: 'CONTEXT', Action: 'SUCCEED', Payload: '2', ContextOptions: { ReplayChildren: false } },
  { Id: '6', Type: 'CHAINED_INVOKE', Action: 'START', Payload: '{}', ChainedInvokeOptions: { FunctionName: 'other' } },
  { Id: '0', Type: 'EXECUTION', Action: 'SUCCEED', Payload: '"done"' },
];

/** A dotted path into an update, and a value to put there instead. */
const UPDATE_FIELDS = [
  'Id',
  'ParentId',
  'Name',
  'Type',
  'SubType',
  'Action',
  'Payload',
  'Error',
  'Error.ErrorMessage',
  'Error.StackTrace',
  'StepOptions.NextAttemptDelaySeconds',
  'WaitOptions.WaitSeconds',
  'CallbackOptions.TimeoutSeconds',
  'CallbackOptions.HeartbeatTimeoutSeconds',
  'ChainedInvokeOptions.FunctionName',
  'ContextOptions',
];

/** One update: a valid one, or a valid one with one field given bad text, a numeric extreme or the wrong type. */
const awsUpdate: fc.Arbitrary<Record<string, unknown>> = fc
  .tuple(
    fc.constantFrom(...UPDATE_TEMPLATES),
    sometimes(fc.tuple(fc.constantFrom(...UPDATE_FIELDS), fc.oneof(nastyText, nastyNumber, wrongType)), 2),
  )
  .map(([template, change]) => {
    const update = structuredClone(template);
    if (!change) return update;
    const [path, value] = change;
    const [head, tail] = path.split('.') as [string, string | undefined];
    if (tail === undefined) update[head] = value;
    else update[head] = { ...((update[head] as Record<string, unknown> | undefined) ?? {}), [tail]: value };
    return update;
  });

/**
 * Query pairs: each of a route's parameters present or not (always, for those in `required`), its
 * value good mostly or bad text; sometimes one repeated, sometimes an unknown one.
 */
function queryOf(
  params: Record<string, fc.Arbitrary<string | TokenRef>>,
  required: readonly string[] = [],
): fc.Arbitrary<Array<[string, string | TokenRef]>> {
  const names = Object.keys(params);
  const valueFor = (name: string): fc.Arbitrary<string | TokenRef> =>
    fc.oneof(
      { arbitrary: params[name] as fc.Arbitrary<string | TokenRef>, weight: 5 },
      { arbitrary: nastyText, weight: 1 },
    );
  const each = names.map((name) => (required.includes(name) ? valueFor(name) : sometimes(valueFor(name), 2)));
  return fc
    .tuple(fc.tuple(...each), sometimes(fc.constantFrom(...names), 10), sometimes(fc.tuple(nastyText, nastyText), 10))
    .chain(([values, repeated, unknown]) => {
      const pairs: Array<[string, string | TokenRef]> = [];
      values.forEach((value, i) => {
        if (value !== undefined) pairs.push([names[i] as string, value]);
      });
      if (unknown) pairs.push(unknown);
      if (repeated === undefined) return fc.constant(pairs);
      return valueFor(repeated).map((value) => [...pairs, [repeated, value] as [string, string | TokenRef]]);
    });
}

/** A run-list cursor: base64url of JSON of anything, as a client could make one up. */
const runCursor = fc
  .oneof(
    fc.tuple(nastyNumber, fc.oneof(fc.constantFrom('r1', 'k1'), nastyText)),
    fc.tuple(fc.constantFrom(Date.now()), longText),
    wrongType,
  )
  .map((value) => Buffer.from(JSON.stringify(value) ?? 'null', 'utf8').toString('base64url'));

/** A history cursor made up with the right shape: the listing's kind and a position of any text. */
const historyCursor = fc
  .tuple(
    fc.constantFrom('history', 'operations', 'x'),
    fc.oneof(fc.constant('{run}'), nastyText),
    fc.oneof(nastyText, fc.constantFrom('1', '0', '2-1')),
  )
  .map(([k, s, p]) => Buffer.from(JSON.stringify({ v: 1, k, s, p }), 'utf8').toString('base64url'));

const iso = fc.constantFrom(
  '2026-01-01T00:00:00Z',
  '0000-01-01',
  '9999-12-31T23:59:59.999999999Z',
  '+275760-09-13T00:00:00Z',
  '2026-02-30',
);
const marker = fc.oneof(
  fc.constantFrom('0', '1', '5', '1000', '-1', '1.5', '1e300', '9007199254740993', ''),
  nastyText,
);
const flag = fc.constantFrom('true', 'false', 'TRUE', '1', '');

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
