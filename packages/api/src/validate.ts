import { ApiError, invalidArgument } from './errors';

/** A parsed JSON object body. */
export type JsonObject = Record<string, unknown>;

/** True for a plain JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Parses a request body that must be a JSON object. An absent or blank body is `undefined`
 * when `required` is false, else `400 invalid_argument`; text that is not JSON is
 * `400 invalid_json`.
 */
export function parseObjectBody(body: string | undefined, required: true): JsonObject;
export function parseObjectBody(body: string | undefined, required: boolean): JsonObject | undefined;
export function parseObjectBody(body: string | undefined, required: boolean): JsonObject | undefined {
  if (body === undefined || body.trim() === '') {
    if (required) throw invalidArgument('body', 'is required (a JSON object)');
    return undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    throw new ApiError(400, 'invalid_json', `body: not valid JSON (${(error as Error).message})`);
  }
  if (!isJsonObject(value)) throw invalidArgument('body', 'must be a JSON object');
  return value;
}

/** Refuses fields other than `allowed` (`prefix` names the enclosing field, as `error.`). */
export function rejectUnknownFields(value: JsonObject, allowed: readonly string[], prefix = ''): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      throw invalidArgument(
        `${prefix}${key}`,
        `unknown field (expected ${allowed.map((a) => prefix + a).join(', ') || 'none'})`,
      );
    }
  }
}

/** An optional string field of 1 to `max` characters. */
export function optionalString(value: unknown, field: string, max: number): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0 || value.length > max) {
    throw invalidArgument(field, `must be a string of 1-${max} characters`);
  }
  return value;
}

/** A required string field of 1 to `max` characters. */
export function requiredString(value: unknown, field: string, max: number): string {
  if (value === undefined) throw invalidArgument(field, `is required (a string of 1-${max} characters)`);
  return optionalString(value, field, max) as string;
}
