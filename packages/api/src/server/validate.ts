import { ApiError, invalidArgument } from './errors';

/**
 * Deepest nesting of arrays and objects a body may have. Deeper JSON parses, but serializing it
 * again (to store an input, to answer a run) overflows the stack: it is refused up front.
 */
export const MAX_JSON_DEPTH = 256;

/** A parsed JSON object body. */
export type JsonObject = Record<string, unknown>;

/** True for a plain JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Parses a request body that must be a JSON object. An absent or blank body is `undefined`
 * when `required` is false, else `400 invalid_argument`; text that is not JSON is
 * `400 invalid_json`; a field nested deeper than {@link MAX_JSON_DEPTH} is `400 invalid_argument`
 * naming it.
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
  for (const [name, field] of Object.entries(value)) {
    if (nestedDeeperThan(field, MAX_JSON_DEPTH - 1)) {
      throw invalidArgument(name, `nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels (the body included)`);
    }
  }
  return value;
}

/** True when a parsed JSON value nests arrays and objects deeper than `limit` (walked without recursion). */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 1]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, depth] = next;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > limit) return true;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return false;
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
