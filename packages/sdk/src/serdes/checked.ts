import { ErrorCode } from '../errors/codes';
import { AttemptFailure } from '../errors/runtime-errors';
import type { Serdes, SerdesContext } from '../types/serdes';

function rejectUnserializable(this: unknown, key: string, value: unknown): unknown {
  // JSON.stringify drops functions and symbols silently; a value that changes on replay is worse
  // than an error, so refuse them.
  if (typeof value === 'function' || typeof value === 'symbol') {
    throw new TypeError(`cannot serialize a ${typeof value} at ${key === '' ? 'the top level' : `"${key}"`}`);
  }
  return value;
}

/** The default serdes: JSON, refusing BigInt, cycles, functions and symbols. */
export const defaultSerdes: Serdes<unknown> = {
  serialize(value) {
    if (value === undefined) return undefined;
    // A primitive has nothing to refuse inside it: no replacer call (a step's result, hot path).
    if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') {
      return JSON.stringify(value);
    }
    return JSON.stringify(value, rejectUnserializable);
  },
  deserialize(data) {
    return data === undefined ? undefined : JSON.parse(data);
  },
};

/** Serializes through `serdes`, turning failures into `serdes_failed` and checking the size limit. */
export async function serializeChecked<T>(
  serdes: Serdes<T>,
  value: T | undefined,
  context: SerdesContext,
  maxBytes: number,
): Promise<string | undefined> {
  let data: string | undefined;
  try {
    data = await serdes.serialize(value, context);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new AttemptFailure(
      ErrorCode.SERDES_FAILED,
      `result of ${context.entityId} could not be serialized: ${reason}`,
      false,
      {
        cause: error,
      },
    );
  }
  if (data !== undefined && typeof data !== 'string') {
    throw new AttemptFailure(
      ErrorCode.SERDES_FAILED,
      `serdes for ${context.entityId} returned ${typeof data}, not a string`,
      false,
    );
  }
  // A UTF-16 code unit is at most 3 bytes of UTF-8: a short result is not measured (hot path).
  if (data !== undefined && data.length * 3 > maxBytes) {
    const bytes = Buffer.byteLength(data, 'utf8');
    if (bytes > maxBytes) {
      throw new AttemptFailure(
        ErrorCode.PAYLOAD_TOO_LARGE,
        `result of ${context.entityId} is ${bytes} bytes, over the limit of ${maxBytes}`,
        false,
      );
    }
  }
  return data;
}

/** Deserializes through `serdes`, turning failures into `serdes_failed`. */
export async function deserializeChecked<T>(
  serdes: Serdes<T>,
  data: string | undefined,
  context: SerdesContext,
): Promise<T> {
  try {
    return (await serdes.deserialize(data, context)) as T;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new AttemptFailure(
      ErrorCode.SERDES_FAILED,
      `stored value of ${context.entityId} could not be read: ${reason}`,
      false,
      {
        cause: error,
      },
    );
  }
}
