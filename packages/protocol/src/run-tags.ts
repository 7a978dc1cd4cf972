/**
 * Search tags on a run (`ctx.tag`, `POST /v1/runs` with `tags`): string pairs the API, CLI and
 * dashboard find runs by. One rule for every layer that accepts them (the SDK, the engine, the
 * control API), so a tag refused in one is refused in all, with the same field named.
 */

/** The most tags one run may carry (each is an index entry on DynamoDB: one write when set). */
export const MAX_RUN_TAGS = 16;
/** The longest tag key, characters. */
export const MAX_TAG_KEY_LENGTH = 64;
/** The longest tag value, bytes (UTF-8). */
export const MAX_TAG_VALUE_BYTES = 256;

/**
 * A tag key: a letter, then letters, digits, `_`, `-`, `.`. No `:` or `=` (the API's `tag=key:value`
 * and the CLI's `--tag key=value` split there) and no `#` (the DynamoDB index key's separator).
 */
export const TAG_KEY_PATTERN = /^[A-Za-z][A-Za-z0-9_.-]*$/;

const utf8 = new TextEncoder();

/** A run's tags: key to value. */
export type RunTags = Record<string, string>;

/** What is wrong with one tag, or undefined: the field at fault (`tags.<key>`) and why. */
export function tagProblem(key: string, value: unknown): { field: string; message: string } | undefined {
  if (key.length === 0 || key.length > MAX_TAG_KEY_LENGTH || !TAG_KEY_PATTERN.test(key)) {
    return {
      field: `tags.${key}`,
      message: `a tag key must be 1-${MAX_TAG_KEY_LENGTH} characters: a letter, then letters, digits, '_', '-' or '.'`,
    };
  }
  if (typeof value !== 'string') {
    return {
      field: `tags.${key}`,
      message: `a tag value must be a string, got ${value === null ? 'null' : typeof value}`,
    };
  }
  const bytes = utf8.encode(value).length;
  // Control characters would make the CLI's and dashboard's display lie about the value.
  if (bytes === 0 || bytes > MAX_TAG_VALUE_BYTES || /\p{Cc}/u.test(value)) {
    return {
      field: `tags.${key}`,
      message: `a tag value must be 1-${MAX_TAG_VALUE_BYTES} bytes (UTF-8) without control characters`,
    };
  }
  return undefined;
}

/**
 * What is wrong with a set of tags, or undefined: not a plain object, a bad tag (the first, by
 * {@link tagProblem}), or more than {@link MAX_RUN_TAGS} once merged over `existing` (a key
 * already there is replaced, not added).
 */
export function tagsProblem(tags: unknown, existing?: RunTags): { field: string; message: string } | undefined {
  if (typeof tags !== 'object' || tags === null || Array.isArray(tags)) {
    return { field: 'tags', message: 'must be an object of string values' };
  }
  for (const [key, value] of Object.entries(tags)) {
    const problem = tagProblem(key, value);
    if (problem) return problem;
  }
  const keys = new Set([...Object.keys(existing ?? {}), ...Object.keys(tags)]);
  if (keys.size > MAX_RUN_TAGS) {
    return { field: 'tags', message: `a run may carry at most ${MAX_RUN_TAGS} tags (this would make ${keys.size})` };
  }
  return undefined;
}
