/**
 * Document values to DynamoDB's JSON attribute values and back, as `@aws-sdk/lib-dynamodb` does
 * them with the store's options (`removeUndefinedValues: true`, numbers as numbers): the same
 * types, the same refusals, the same input and output fields converted per operation. Binary
 * travels base64-encoded, as DynamoDB's JSON protocol has it, and comes back as `Uint8Array`.
 *
 * Our own ~150 lines rather than `@aws-sdk/util-dynamodb`: that package is small, but it is the
 * only part of the AWS SDK the light client would load, and it works on the SDK's attribute-value
 * objects (binary as bytes), which the JSON protocol then needs another pass to encode.
 */
import type { DynamoDbOperation } from '../dynamodb/commands';

/** One attribute value as DynamoDB's JSON protocol writes it. */
export type WireValue =
  | { S: string }
  | { N: string }
  | { B: string }
  | { BOOL: boolean }
  | { NULL: true }
  | { M: Record<string, WireValue> }
  | { L: WireValue[] }
  | { SS: string[] }
  | { NS: string[] }
  | { BS: string[] };

/** Where attribute values sit in a request or an answer (lib-dynamodb's key nodes). */
type Node = 'value' | 'values' | { readonly [key: string]: Node };
/** Every entry of an object, or every element of an array. */
const EACH = '*';

const KEY_NODES: Record<DynamoDbOperation, { input: Node; output: Node }> = {
  GetItem: { input: { Key: 'values' }, output: { Item: 'values' } },
  PutItem: {
    input: {
      Item: 'values',
      Expected: { [EACH]: { Value: 'value', AttributeValueList: 'values' } },
      ExpressionAttributeValues: 'values',
    },
    output: { Attributes: 'values', ItemCollectionMetrics: { ItemCollectionKey: 'values' } },
  },
  UpdateItem: {
    input: {
      Key: 'values',
      AttributeUpdates: { [EACH]: { Value: 'value' } },
      Expected: { [EACH]: { Value: 'value', AttributeValueList: 'values' } },
      ExpressionAttributeValues: 'values',
    },
    output: { Attributes: 'values', ItemCollectionMetrics: { ItemCollectionKey: 'values' } },
  },
  DeleteItem: {
    input: {
      Key: 'values',
      Expected: { [EACH]: { Value: 'value', AttributeValueList: 'values' } },
      ExpressionAttributeValues: 'values',
    },
    output: { Attributes: 'values', ItemCollectionMetrics: { ItemCollectionKey: 'values' } },
  },
  Query: {
    input: {
      KeyConditions: { [EACH]: { AttributeValueList: 'values' } },
      QueryFilter: { [EACH]: { AttributeValueList: 'values' } },
      ExclusiveStartKey: 'values',
      ExpressionAttributeValues: 'values',
    },
    output: { Items: { [EACH]: 'values' }, LastEvaluatedKey: 'values' },
  },
  BatchGetItem: {
    input: { RequestItems: { [EACH]: { Keys: { [EACH]: 'values' } } } },
    output: {
      Responses: { [EACH]: { [EACH]: 'values' } },
      UnprocessedKeys: { [EACH]: { Keys: { [EACH]: 'values' } } },
    },
  },
  BatchWriteItem: {
    input: {
      RequestItems: { [EACH]: { [EACH]: { PutRequest: { Item: 'values' }, DeleteRequest: { Key: 'values' } } } },
    },
    output: {
      UnprocessedItems: { [EACH]: { [EACH]: { PutRequest: { Item: 'values' }, DeleteRequest: { Key: 'values' } } } },
      ItemCollectionMetrics: { [EACH]: { [EACH]: { ItemCollectionKey: 'values' } } },
    },
  },
  TransactWriteItems: {
    input: {
      TransactItems: {
        [EACH]: {
          ConditionCheck: { Key: 'values', ExpressionAttributeValues: 'values' },
          Put: { Item: 'values', ExpressionAttributeValues: 'values' },
          Delete: { Key: 'values', ExpressionAttributeValues: 'values' },
          Update: { Key: 'values', ExpressionAttributeValues: 'values' },
        },
      },
    },
    output: { ItemCollectionMetrics: { [EACH]: { [EACH]: { ItemCollectionKey: 'values' } } } },
  },
};

/** An operation's document-shaped input as DynamoDB's JSON protocol takes it. */
export function inputToWire(operation: DynamoDbOperation, input: object): Record<string, unknown> {
  return convert(input, KEY_NODES[operation].input, toWire) as Record<string, unknown>;
}

/** An operation's JSON answer, document-shaped. */
export function outputFromWire(operation: DynamoDbOperation, output: object): Record<string, unknown> {
  return convert(output, KEY_NODES[operation].output, fromWire) as Record<string, unknown>;
}

/** Applies `convert` to the attribute values at `node` of `data` (a copy; functions dropped). */
function convert(data: unknown, node: Node, value: (v: unknown) => unknown): unknown {
  if (data === undefined) return undefined;
  if (data === null || typeof data !== 'object') return node === 'value' ? value(data) : data;
  if (node === 'value') return value(data);
  const each = node === 'values' ? undefined : (node as Record<string, Node>)[EACH];
  if (Array.isArray(data)) {
    const members = data.filter((member) => typeof member !== 'function' && member !== undefined);
    if (node === 'values') return members.map(value);
    return each === undefined ? members : members.map((member) => convert(member, each, value));
  }
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(data)) {
    if (typeof member === 'function' || member === undefined) continue;
    const child = node === 'values' ? 'value' : (each ?? (node as Record<string, Node>)[key]);
    out[key] = child === undefined ? member : convert(member, child, value);
  }
  return out;
}

/** Names of the binary types lib-dynamodb takes as `B`. */
const BINARY = new Set([
  'ArrayBuffer',
  'Buffer',
  'DataView',
  'Int8Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'Float32Array',
  'Float64Array',
  'BigInt64Array',
  'BigUint64Array',
]);

const constructorName = (data: unknown): string | undefined =>
  (data as { constructor?: { name?: string } } | null)?.constructor?.name;

/** One document value as a JSON attribute value (lib-dynamodb's `convertToAttr`). */
export function toWire(data: unknown): WireValue {
  if (data === undefined) {
    throw new Error('Pass options.removeUndefinedValues=true to remove undefined values from map/array/set.');
  }
  if (data === null) return { NULL: true };
  if (Array.isArray(data)) {
    return { L: data.filter((item) => typeof item !== 'function' && item !== undefined).map(toWire) };
  }
  const type = constructorName(data);
  if (type === 'Set') return setToWire(data as Set<unknown>);
  if (type === 'Map') return { M: mapToWire((data as Map<string, unknown>).entries()) };
  if (type === 'Object' || (typeof data === 'object' && type === undefined)) {
    return { M: mapToWire(Object.entries(data as object)) };
  }
  if (type !== undefined && BINARY.has(type)) return { B: base64(data as ArrayBuffer | ArrayBufferView) };
  if (typeof data === 'boolean' || type === 'Boolean') return { BOOL: (data as boolean).valueOf() };
  if (typeof data === 'number' || type === 'Number') return { N: numberText(data as number) };
  if (type === 'NumberValue') return { N: String((data as { value: unknown }).value) };
  if (typeof data === 'bigint') return { N: data.toString() };
  if (typeof data === 'string' || type === 'String') return { S: String(data) };
  throw new Error(
    `Unsupported type passed: ${String(data)}. Pass options.convertClassInstanceToMap=true to marshall typeof object as map attribute.`,
  );
}

function mapToWire(entries: Iterable<[string, unknown]>): Record<string, WireValue> {
  const map: Record<string, WireValue> = {};
  for (const [key, value] of entries) {
    if (typeof value !== 'function' && value !== undefined) map[key] = toWire(value);
  }
  return map;
}

function setToWire(set: Set<unknown>): WireValue {
  const members = [...set].filter((member) => member !== undefined);
  const first = members[0];
  if (first === undefined) throw new Error('Pass a non-empty set, or options.convertEmptyValues=true.');
  if (constructorName(first) === 'NumberValue')
    return { NS: members.map((m) => String((m as { value: unknown }).value)) };
  if (typeof first === 'number') return { NS: members.map((m) => numberText(m as number)) };
  if (typeof first === 'bigint') return { NS: members.map((m) => (m as bigint).toString()) };
  if (typeof first === 'string') return { SS: members.map(String) };
  const type = constructorName(first);
  if (type !== undefined && BINARY.has(type)) {
    return { BS: members.map((m) => base64(m as ArrayBuffer | ArrayBufferView)) };
  }
  throw new Error('Only Number Set (NS), Binary Set (BS) or String Set (SS) are allowed.');
}

/** A number as `N`, refusing what DynamoDB or JavaScript cannot hold exactly (as lib-dynamodb does). */
function numberText(num: number): string {
  const text = num.toString();
  if (text === 'NaN' || text === 'Infinity' || text === '-Infinity') {
    throw new Error(`Special numeric value ${text} is not allowed`);
  }
  if (Number(num) > Number.MAX_SAFE_INTEGER) {
    throw new Error(
      `Number ${text} is greater than Number.MAX_SAFE_INTEGER. Use NumberValue from @aws-sdk/lib-dynamodb.`,
    );
  }
  if (Number(num) < Number.MIN_SAFE_INTEGER) {
    throw new Error(
      `Number ${text} is lesser than Number.MIN_SAFE_INTEGER. Use NumberValue from @aws-sdk/lib-dynamodb.`,
    );
  }
  return text;
}

function base64(data: ArrayBuffer | ArrayBufferView): string {
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64');
  return Buffer.from(data).toString('base64');
}

/** Base64 as the `Uint8Array` the AWS SDK hands back (a plain view, not a `Buffer`). */
export function bytesOf(text: string): Uint8Array {
  const buffer = Buffer.from(text, 'base64');
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

/** One JSON attribute value as a document value (lib-dynamodb's `convertToNative`). */
export function fromWire(data: unknown): unknown {
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    if (value === undefined) continue;
    switch (key) {
      case 'NULL':
        return null;
      case 'BOOL':
        return Boolean(value);
      case 'N':
        return nativeNumber(value as string);
      case 'B':
        return bytesOf(value as string);
      case 'S':
        return value;
      case 'L':
        return (value as unknown[]).map(fromWire);
      case 'M': {
        const map: Record<string, unknown> = {};
        for (const [name, member] of Object.entries(value as Record<string, unknown>)) map[name] = fromWire(member);
        return map;
      }
      case 'NS':
        return new Set((value as string[]).map(nativeNumber));
      case 'BS':
        return new Set((value as string[]).map(bytesOf));
      case 'SS':
        return new Set(value as string[]);
      default:
        throw new Error(`Unsupported type passed: ${key}`);
    }
  }
  throw new Error(`No value defined: ${JSON.stringify(data)}`);
}

/** `N` as a number, or a bigint beyond the safe integers (as lib-dynamodb reads it). */
function nativeNumber(text: string): number | bigint {
  const num = Number(text);
  if ((num > Number.MAX_SAFE_INTEGER || num < Number.MIN_SAFE_INTEGER) && Number.isFinite(num)) {
    try {
      return BigInt(text);
    } catch {
      throw new Error(`${text} can't be converted to BigInt. Set options.wrapNumbers to get string value.`);
    }
  }
  return num;
}

/**
 * An attribute map of an error (a refused write's `Item`) as the AWS SDK deserializes it: still
 * attribute values (lib-dynamodb converts none in errors), binary decoded to bytes.
 */
export function wireItemWithBytes(item: unknown): unknown {
  if (item === null || typeof item !== 'object') return item;
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(item as Record<string, unknown>)) out[name] = valueWithBytes(value);
  return out;
}

function valueWithBytes(value: unknown): unknown {
  const v = value as Record<string, unknown>;
  if (typeof v.B === 'string') return { B: bytesOf(v.B) };
  if (Array.isArray(v.BS)) return { BS: (v.BS as string[]).map(bytesOf) };
  if (Array.isArray(v.L)) return { L: v.L.map(valueWithBytes) };
  if (v.M !== null && typeof v.M === 'object') return { M: wireItemWithBytes(v.M) };
  return value;
}
