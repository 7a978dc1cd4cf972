/**
 * The light client converts document values to DynamoDB's JSON attribute values and back exactly as
 * `@aws-sdk/util-dynamodb` does with the store's options (lib-dynamodb's `marshall` with
 * `removeUndefinedValues`, `unmarshall` with numbers as numbers), for any value the store could
 * write (property test), binary base64-encoded on the wire as the SDK's JSON protocol sends it.
 */
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromWire, toWire } from '../../../packages/aws/src/light-dynamodb/attribute-values';

/** The SDK's attribute value with binary as the JSON protocol sends it (base64), as ours are. */
function sdkWire(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (Array.isArray(value)) return value.map(sdkWire);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sdkWire(v)]));
  }
  return value;
}

const leaf = fc.oneof(
  fc.string(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
  fc.uint8Array({ maxLength: 8 }),
);
const document = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, leaf, tie('list'), tie('map')),
  list: fc.array(tie('value'), { maxLength: 4 }),
  map: fc.dictionary(fc.string({ maxLength: 5 }), tie('value'), { maxKeys: 4 }),
})).map as fc.Arbitrary<Record<string, unknown>>;

describe('attribute values', () => {
  it('to the wire as util-dynamodb marshalls (removeUndefinedValues), back as it unmarshalls', () => {
    fc.assert(
      fc.property(document, (item) => {
        let theirs: unknown;
        try {
          theirs = marshall(item, { removeUndefinedValues: true, convertTopLevelContainer: true }) as unknown;
        } catch (error) {
          // Refused alike (a number JavaScript cannot hold exactly, …), with the same words.
          expect(() => toWire(item)).toThrow((error as Error).message);
          return;
        }
        const ours = toWire(item);
        expect(ours).toEqual(sdkWire(theirs));
        // DynamoDB answers in the same form; the SDK decodes binary before unmarshalling.
        const answered = JSON.parse(JSON.stringify(ours));
        expect(fromWire(answered)).toEqual(unmarshall({ v: theirs } as never).v);
      }),
      { numRuns: 500 },
    );
  });

  it('sets, as util-dynamodb converts them', () => {
    for (const set of [new Set(['a', 'b']), new Set([1, 2.5]), new Set([1n, 2n]), new Set([new Uint8Array([1])])]) {
      const theirs = marshall({ s: set }, { removeUndefinedValues: true }).s;
      expect(toWire(set)).toEqual(sdkWire(theirs));
      expect(fromWire(JSON.parse(JSON.stringify(toWire(set))))).toEqual(unmarshall({ s: theirs } as never).s);
    }
  });
});
