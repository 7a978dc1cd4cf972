/**
 * What the fuzz gives a field no client should send: long text (around every limit: 256, 512,
 * 1,024 and 2,048 characters, and bytes once UTF-8 encoded), unicode, control characters, numeric
 * extremes (`1e300`, `-0`, past 2^53), the wrong JSON type, empty; and the helpers that make a
 * field, an object or a body good mostly and bad sometimes.
 */
import fc from 'fast-check';

/** A request body: JSON of a value, or text as it is. */
export type JsonBody = { json: unknown } | { text: string };

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
export const longText: fc.Arbitrary<string> = fc
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
export const nastyNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(0, -0, 1, -1, 0.5, 1e300, -1e300, 1e-300, 2 ** 53 + 2, -(2 ** 53) - 2, 2 ** 31, 1e21, 86_400 * 367),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

/** A JSON value of the wrong type for any field. */
export const wrongType: fc.Arbitrary<unknown> = fc.oneof(
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
export function sometimes<T>(arbitrary: fc.Arbitrary<T>, oneIn: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ arbitrary: fc.constant(undefined), weight: oneIn - 1 }, { arbitrary, weight: 1 });
}

/**
 * A field given a good value mostly (so a request with one bad part is common, and reaches as far
 * as that part), else bad text, the wrong type, or left out (undefined).
 */
export function field<T>(good: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof(
    { arbitrary: good, weight: 10 },
    { arbitrary: nastyText, weight: 2 },
    { arbitrary: wrongType, weight: 1 },
    { arbitrary: fc.constant(undefined), weight: 1 },
  );
}

/** An object of fields (undefined ones left out), sometimes with an unknown one more. */
export function object(fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Record<string, unknown>> {
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
export function body(good: fc.Arbitrary<unknown>): fc.Arbitrary<JsonBody | undefined> {
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
