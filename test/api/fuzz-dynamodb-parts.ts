/**
 * The parts of the DynamoDB fuzz's requests: references into the world (runs, operations,
 * callbacks, execution ARNs, checkpoint tokens, each sometimes made wrong), Lambda-shaped
 * operation updates, query parameters, made-up cursors and markers.
 */
import fc from 'fast-check';
import { body, field, longText, nastyNumber, nastyText, object, sometimes, wrongType } from './fuzz-values';

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

export const lit = (...parts: string[]): Segment[] => parts.map((p) => ({ lit: p }));
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

export const runRef = orNasty(fc.nat(30).map((run) => ({ run })));
export const operationRef = orNasty(
  fc.constantFrom('0', '1', '2', '3', '1-1', '2-1', '99', '01').map((text) => ({ lit: text })),
);
export const callbackRef = orNasty(
  fc.record({
    callback: fc.nat(5),
    mangle: mangled<CallbackMangle>('truncate', 'secret', 'otherOp', 'longRun', 'unicodeRun'),
  }),
);
export const arnRef = orNasty(
  fc.record({ arn: fc.nat(30), mangle: mangled<ArnMangle>('bare', 'longRun', 'unicodeRun', 'twoSegments', 'empty') }),
);
/** The ARN a checkpoint token of the world belongs to, mostly (else another, or made wrong). */
export const heldArnRef = fc.oneof(
  {
    arbitrary: orNasty(
      fc.record({ tokenArn: fc.nat(5), mangle: mangled<ArnMangle>('bare', 'longRun', 'twoSegments') }),
    ),
    weight: 4,
  },
  { arbitrary: arnRef, weight: 1 },
);
export const tokenRef: fc.Arbitrary<TokenRef> = fc.record({
  token: fc.nat(5),
  mangle: mangled<TokenMangle>('nextSeq', 'otherRun', 'hugeFence', 'longRun', 'longLease', 'garbage'),
});
export const fieldRef = fc.oneof(fc.constantFrom('input', 'result', 'error'), nastyText);
export const functionName = fc.oneof(
  {
    arbitrary: fc.constantFrom('fn', 'other', 'nope', 'fn:1', 'arn:aws:lambda:us-east-1:123456789012:function:fn'),
    weight: 3,
  },
  { arbitrary: nastyText, weight: 2 },
);

export const startBody = body(
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
export const awsUpdate: fc.Arbitrary<Record<string, unknown>> = fc
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
export function queryOf(
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
export const runCursor = fc
  .oneof(
    fc.tuple(nastyNumber, fc.oneof(fc.constantFrom('r1', 'k1'), nastyText)),
    fc.tuple(fc.constantFrom(Date.now()), longText),
    wrongType,
  )
  .map((value) => Buffer.from(JSON.stringify(value) ?? 'null', 'utf8').toString('base64url'));

/** A history cursor made up with the right shape: the listing's kind and a position of any text. */
export const historyCursor = fc
  .tuple(
    fc.constantFrom('history', 'operations', 'x'),
    fc.oneof(fc.constant('{run}'), nastyText),
    fc.oneof(nastyText, fc.constantFrom('1', '0', '2-1')),
  )
  .map(([k, s, p]) => Buffer.from(JSON.stringify({ v: 1, k, s, p }), 'utf8').toString('base64url'));

export const iso = fc.constantFrom(
  '2026-01-01T00:00:00Z',
  '0000-01-01',
  '9999-12-31T23:59:59.999999999Z',
  '+275760-09-13T00:00:00Z',
  '2026-02-30',
);
export const marker = fc.oneof(
  fc.constantFrom('0', '1', '5', '1000', '-1', '1.5', '1e300', '9007199254740993', ''),
  nastyText,
);
export const flag = fc.constantFrom('true', 'false', 'TRUE', '1', '');
