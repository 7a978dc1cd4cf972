import fc from 'fast-check';

/**
 * A generated control API request, kept symbolic where it names something of the world (a
 * known run or callback, a real cursor) so a replayed seed means the same request.
 */
export interface FuzzRequest {
  /** `handle`: the framework-free handler; `lambda`: the Lambda adapter; `node`: HTTP to the Node adapter. */
  transport: 'handle' | 'lambda' | 'node';
  method: string;
  path: Segment[];
  /** Query pairs; the value `{cursor}` is a real cursor. */
  query: Array<[string, string]>;
  /** Appended to the encoded query string as is (malformed escapes, stray `&`). */
  rawQuery?: string;
  headers: Array<[string, string | string[]]>;
  body?: BodySpec;
  /** Lambda: send the body base64-encoded. */
  base64?: boolean;
  /** Node: declare the body's length instead of sending it chunked. */
  declareLength?: boolean;
  /** Send it twice at once (duplicate delivery: one may see the other in progress). */
  twice?: boolean;
  /** Move the world's clock forward first, ms (callbacks and heartbeats time out). */
  advanceMs?: number;
}

/** One path segment: literal text (encoded), raw text (sent as is), a known run or callback. */
export type Segment = { lit: string } | { raw: string } | { run: number } | { callback: number; mangle: Mangle };

/** How a known callback id is made wrong, or `none`. */
export type Mangle = 'none' | 'truncate' | 'secret' | 'otherOp' | 'unknownRun' | 'upper';

/** A body: JSON of a value, any text, or generated at size (over the body or payload limit, deep). */
export type BodySpec =
  | { json: unknown }
  | { text: string }
  | { huge: number; field: string; char: string }
  | { deep: number; field: string }
  | { payload: number; field: 'input' | 'result' | 'error' };

/** Any JSON value or text-ish oddity, for a field that expects something else. */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'grapheme', maxLength: 10 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(''),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** A field present with a good value, a wrong one, or absent. */
function field<T>(good: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof(
    { arbitrary: good, weight: 4 },
    { arbitrary: anyValue, weight: 2 },
    { arbitrary: fc.constant(undefined), weight: 1 },
  );
}

/** An object body with the given fields, sometimes with unknown or prototype-like extra fields. */
function objectBody(fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<unknown> {
  const extra = fc.oneof(
    { arbitrary: fc.constant({}), weight: 6 },
    { arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), anyValue, { minKeys: 1, maxKeys: 2 }), weight: 1 },
    { arbitrary: fc.constantFrom('__proto__', 'constructor', 'toString').map((k) => ({ [k]: 1 })), weight: 1 },
  );
  return fc.tuple(fc.record(fields), extra).map(([known, more]) => {
    const out: Record<string, unknown> = {};
    // defineProperty, so a `__proto__` key is an own field (as JSON.parse makes it), not the prototype.
    const put = (k: string, v: unknown) =>
      Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    for (const [k, v] of Object.entries(known)) if (v !== undefined) put(k, v);
    for (const [k, v] of Object.entries(more as Record<string, unknown>)) put(k, v);
    return out;
  });
}

/** Valid JSON that plays on prototypes and duplicate keys. */
const trickyJson = fc.constantFrom(
  '{"__proto__":{"function":"fn"}}',
  '{"function":"fn","__proto__":{"runKey":"k1"}}',
  '{"function":"fn","function":"other"}',
  '{"result":1,"result":2}',
  '{"error":{"message":"m","__proto__":{"code":"c"}}}',
  '{"function":"fn","input":1e400}',
  '{"function":"\\ud800"}',
);

const invalidJson = fc.oneof(
  fc.constantFrom(
    '{',
    '{"function":',
    '[1,',
    'NaN',
    'undefined',
    "{'a':1}",
    '\uFEFF{}',
    '{"a":1}}',
    ' ',
    '\n',
    '{"a":"\\x"}',
  ),
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
);

/** Bodies at size, and bodies that are not objects. */
const oddBody: fc.Arbitrary<BodySpec> = fc.oneof(
  invalidJson.map((text) => ({ text })),
  trickyJson.map((text) => ({ text })),
  anyValue.map((json) => ({ json })),
  fc.record({
    huge: fc.integer({ min: -4, max: 20_000 }),
    field: fc.constantFrom('input', 'result', 'x'),
    char: fc.constantFrom('x', 'é', '😀', '\\u0000'),
  }),
  fc.record({
    deep: fc.integer({ min: 1, max: 32_000 }),
    field: fc.constantFrom('input', 'result', 'error', 'function'),
  }),
  fc.record({ payload: fc.integer({ min: -2, max: 4000 }), field: fc.constantFrom('input', 'result', 'error') }),
);

function body(good: fc.Arbitrary<unknown>): fc.Arbitrary<BodySpec | undefined> {
  return fc.oneof(
    { arbitrary: good.map((json) => ({ json })), weight: 5 },
    { arbitrary: oddBody, weight: 3 },
    { arbitrary: fc.constant(undefined), weight: 1 },
  );
}

const runKey = fc.constantFrom('k1', 'k2', 'k3');
const startBody = body(
  objectBody({
    function: field(fc.constantFrom('fn', 'other', 'nope', 'FN', 'x'.repeat(257))),
    input: field(fc.jsonValue({ maxDepth: 3 })),
    runKey: field(fc.oneof(runKey, fc.constant('x'.repeat(257)))),
  }),
);
const succeedBody = body(objectBody({ result: field(fc.jsonValue({ maxDepth: 3 })) }));
const failBody = body(
  objectBody({
    error: field(
      objectBody({
        message: field(fc.string({ maxLength: 40 })),
        code: field(fc.oneof(fc.string({ maxLength: 20 }), fc.constant('x'.repeat(257)))),
      }),
    ),
  }),
);

/** Text that is not a valid id: unicode, separators, escapes, very long. */
const junkSegment: fc.Arbitrary<Segment> = fc.oneof(
  fc.string({ maxLength: 30 }).map((lit) => ({ lit })),
  fc.string({ unit: 'grapheme', maxLength: 12 }).map((lit) => ({ lit })),
  fc
    .constantFrom('%', '%zz', '%E0%A4%A', '%00', '%2e%2e', '..', '.', '%2F', '', '__proto__', 'constructor')
    .map((raw) => ({ raw })),
  fc.integer({ min: 300, max: 6000 }).map((n) => ({ lit: 'r'.repeat(n) })),
  fc.constantFrom('rnope', 'r0', `r${'0'.repeat(26)}`).map((lit) => ({ lit })),
);

const runRef: fc.Arbitrary<Segment> = fc.oneof(
  { arbitrary: fc.nat(50).map((run) => ({ run })), weight: 3 },
  { arbitrary: junkSegment, weight: 1 },
);
const callbackRef: fc.Arbitrary<Segment> = fc.oneof(
  {
    arbitrary: fc.record({
      callback: fc.nat(5),
      mangle: fc.constantFrom<Mangle>('none', 'none', 'none', 'truncate', 'secret', 'otherOp', 'unknownRun', 'upper'),
    }),
    weight: 3,
  },
  { arbitrary: junkSegment, weight: 1 },
);

const lit = (...parts: string[]): Segment[] => parts.map((p) => ({ lit: p }));

/** A route-shaped path with the method and body that route takes. */
const routed: fc.Arbitrary<{ method: string; path: Segment[]; body?: BodySpec | undefined; list?: boolean }> = fc.oneof(
  fc.constant({ method: 'GET', path: lit('v1', 'functions') }),
  startBody.map((b) => ({ method: 'POST', path: lit('v1', 'runs'), body: b })),
  fc.constant({ method: 'GET', path: lit('v1', 'runs'), list: true }),
  runRef.map((r) => ({ method: 'GET', path: [...lit('v1', 'runs'), r] })),
  runRef.map((r) => ({ method: 'GET', path: [...lit('v1', 'runs'), r, ...lit('operations')] })),
  fc
    .tuple(runRef, fc.constantFrom('cancel', 'retry'), fc.option(succeedBody, { nil: undefined }))
    .map(([r, act, b]) => ({
      method: 'POST',
      path: [...lit('v1', 'runs'), r, ...lit(act)],
      body: b,
    })),
  fc.tuple(callbackRef, succeedBody).map(([c, b]) => ({
    method: 'POST',
    path: [...lit('v1', 'callbacks'), c, ...lit('succeed')],
    body: b,
  })),
  fc.tuple(callbackRef, failBody).map(([c, b]) => ({
    method: 'POST',
    path: [...lit('v1', 'callbacks'), c, ...lit('fail')],
    body: b,
  })),
  fc.tuple(callbackRef, fc.option(oddBody, { nil: undefined })).map(([c, b]) => ({
    method: 'POST',
    path: [...lit('v1', 'callbacks'), c, ...lit('heartbeat')],
    body: b,
  })),
);

/** Paths no route has: other versions, extra segments, encoded slashes, traversal. */
const unrouted = fc.record({
  method: fc.constantFrom('GET', 'POST'),
  path: fc.oneof(
    fc.array(junkSegment, { maxLength: 4 }),
    fc.tuple(fc.constantFrom('v2', 'V1', 'v1', ''), junkSegment, junkSegment).map(([v, a, b]) => [{ lit: v }, a, b]),
    fc.constantFrom(lit('v1'), lit('v1', 'runs', 'r1', 'operations', 'x'), lit('v1', 'callbacks'), lit('v1', '')),
  ),
  body: fc.option(oddBody, { nil: undefined }),
});

const httpMethods = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];
const anyMethod = fc.oneof(
  fc.constantFrom(...httpMethods, 'HEAD', 'get', 'Post', 'TRACE', 'CONNECT', ''),
  fc.string({ maxLength: 8 }),
);

const listQuery: fc.Arbitrary<Array<[string, string]>> = fc.array(
  fc.oneof(
    fc.tuple(
      fc.constant('limit'),
      fc.constantFrom('1', '20', '100', '0', '101', '-1', '1.5', '1e2', 'abc', '', ' 5', '٣', '007'),
    ),
    fc.tuple(
      fc.constant('status'),
      fc.constantFrom('RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'running', 'DONE', ''),
    ),
    fc.tuple(
      fc.constant('cursor'),
      fc.oneof(fc.constant('{cursor}'), fc.string({ maxLength: 20 }), b64('[1]'), b64('["a",1]'), b64('[1,"r"]')),
    ),
    fc.tuple(
      fc.constantFrom('createdAfter', 'createdBefore'),
      fc.constantFrom(
        '2026-01-01T00:00:00Z',
        '2026-02-30',
        '2026-13-01',
        '0000-01-01',
        '2026-01-01T25:00',
        '9999-12-31T23:59:59.999999999+99:99',
        'yesterday',
      ),
    ),
    fc.tuple(fc.constantFrom('function'), fc.constantFrom('fn', 'other', '', 'nope')),
    fc.tuple(fc.constantFrom('__proto__', 'constructor', 'hasOwnProperty', 'stauts', ''), fc.string({ maxLength: 8 })),
    fc.tuple(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 })),
  ),
  { maxLength: 4 },
);

function b64(text: string): fc.Arbitrary<string> {
  return fc.constant(Buffer.from(text, 'utf8').toString('base64url'));
}

const idempotencyKey = fc.oneof(
  { arbitrary: fc.constantFrom('k0', 'k1', 'k2'), weight: 4 },
  { arbitrary: fc.uuid(), weight: 2 },
  {
    arbitrary: fc.constantFrom(
      '',
      ' ',
      'x'.repeat(255),
      'x'.repeat(256),
      'a\u0000b',
      'tab\there',
      'line\nbreak',
      'clé',
      '😀',
      '\u007f',
    ),
    weight: 2,
  },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 20 }), weight: 1 },
  { arbitrary: fc.tuple(fc.constant('k0'), fc.constant('k1')).map((pair) => [...pair]), weight: 1 },
);

const header: fc.Arbitrary<[string, string | string[]]> = fc.oneof(
  fc.tuple(fc.constantFrom('Idempotency-Key', 'idempotency-key', 'IDEMPOTENCY-KEY'), idempotencyKey),
  fc.tuple(
    fc.constantFrom('content-type', 'Content-Type'),
    fc.oneof(
      fc.constantFrom(
        'application/json',
        'text/plain',
        '',
        'application/json; charset=latin1',
        'multipart/form-data; boundary=x',
      ),
      fc.string({ maxLength: 20 }),
    ),
  ),
  fc.tuple(
    fc.constantFrom('content-length', 'transfer-encoding', 'accept', 'x-forwarded-for'),
    fc.string({ maxLength: 10 }),
  ),
  fc.tuple(fc.string({ minLength: 1, maxLength: 10 }), fc.string({ unit: 'binary', maxLength: 20 })),
);

/** Any request: mostly route-shaped, with every part sometimes wrong. */
export const fuzzRequest: fc.Arbitrary<FuzzRequest> = fc
  .record({
    transport: fc.constantFrom<FuzzRequest['transport']>('handle', 'handle', 'handle', 'lambda', 'node'),
    shape: fc.oneof({ arbitrary: routed, weight: 6 }, { arbitrary: unrouted, weight: 1 }),
    otherMethod: fc.oneof({ arbitrary: fc.constant(undefined), weight: 9 }, { arbitrary: anyMethod, weight: 1 }),
    trailingSlash: fc.boolean(),
    query: fc.oneof(
      { arbitrary: fc.constant([] as Array<[string, string]>), weight: 2 },
      { arbitrary: listQuery, weight: 1 },
    ),
    listQuery,
    rawQuery: fc.oneof(
      { arbitrary: fc.constant(undefined), weight: 9 },
      { arbitrary: fc.constantFrom('&', '%zz', '&&limit', 'limit', '=x', '%E0%A4%A', '+'), weight: 1 },
    ),
    headers: fc.array(header, { maxLength: 4 }),
    // Most POSTs say JSON, as clients do, so they reach their route (the others get 415).
    jsonType: fc.oneof({ arbitrary: fc.constant(true), weight: 9 }, { arbitrary: fc.constant(false), weight: 1 }),
    base64: fc.boolean(),
    declareLength: fc.boolean(),
    twice: fc.oneof({ arbitrary: fc.constant(false), weight: 15 }, { arbitrary: fc.constant(true), weight: 1 }),
    advanceMs: fc.oneof(
      { arbitrary: fc.constant(0), weight: 15 },
      { arbitrary: fc.integer({ min: 1, max: 120_000 }), weight: 1 },
    ),
  })
  .map((r) => {
    const method =
      r.otherMethod === undefined
        ? r.shape.method
        : r.transport === 'node'
          ? (httpMethods[r.otherMethod.length % httpMethods.length] as string)
          : r.otherMethod;
    const path = r.trailingSlash ? [...r.shape.path, { lit: '' }] : r.shape.path;
    return {
      transport: r.transport,
      method,
      path,
      query: 'list' in r.shape && r.shape.list ? r.listQuery : r.query,
      ...(r.rawQuery === undefined ? {} : { rawQuery: r.rawQuery }),
      headers:
        r.jsonType && method === 'POST'
          ? [['content-type', 'application/json'] as [string, string], ...r.headers]
          : r.headers,
      ...(r.shape.body === undefined ? {} : { body: r.shape.body }),
      base64: r.base64,
      declareLength: r.declareLength,
      twice: r.twice,
      advanceMs: r.advanceMs,
    };
  });
