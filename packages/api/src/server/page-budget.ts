/**
 * How big a control-API answer may grow. Behind a Lambda Function URL or API Gateway a response
 * travels as a string inside Lambda's JSON response, whose limit is 6 MB (buffered invoke): so a
 * body is measured as it travels (escaped once more), pages stop at a byte budget well within the
 * limit, and a payload (a result, an error, an input, a list of failed attempts or log lines)
 * above a threshold is left out of a listing, to be read on its own.
 */

/** Lambda's response limit for a buffered invoke (Function URL, API Gateway proxy), bytes. */
export const LAMBDA_RESPONSE_LIMIT_BYTES = 6 * 1024 * 1024;

/** Budget of one page of a listing, bytes as it travels (a sixth of Lambda's limit). */
export const PAGE_BUDGET_BYTES = 1024 * 1024;

/**
 * Budget of one answer holding a single record with its payloads (an operation, a run), bytes:
 * payloads beyond it stay references, read in slices of {@link PAYLOAD_SLICE_CHARS}.
 */
export const RECORD_BUDGET_BYTES = 4 * 1024 * 1024;

/** A payload larger than this (bytes of its JSON) is left out of a listing. */
export const INLINE_PAYLOAD_BYTES = 16 * 1024;

/**
 * Characters of a payload's JSON per slice of the payload routes. A character of JSON text takes
 * at most 4 bytes as it travels (a quote or backslash escaped in the body and again in Lambda's
 * envelope; other characters at most 3 in UTF-8, control characters being spelled in ASCII
 * already): 4 MB at most, within the limit.
 */
export const PAYLOAD_SLICE_CHARS = 1024 * 1024;

/** Default and largest page size of the history routes. */
export const DEFAULT_PAGE_ITEMS = 100;
export const MAX_PAGE_ITEMS = 1000;

/**
 * The bytes `value` takes in a response as Lambda carries it: its JSON, escaped again as the
 * string body of Lambda's response (quotes and backslashes doubled, control characters spelled).
 */
export function travelBytes(value: unknown): number {
  const json = JSON.stringify(value) ?? '';
  return Buffer.byteLength(JSON.stringify(json), 'utf8') - 2;
}
