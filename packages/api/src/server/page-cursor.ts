/**
 * The control API's page cursors: opaque to clients, each naming the listing it belongs to (the
 * route and the run) and a position in it, so a cursor passed to another listing, cut short or
 * made up is refused with `400 invalid_argument` naming the field (`cursor: ...`, as every bad
 * parameter) rather than read as a position.
 */
import { type ApiError, invalidArgument } from './errors';

/** Longest cursor accepted, characters (ours are far shorter). */
const MAX_CURSOR_CHARS = 2048;

/** What a cursor holds: the listing (`kind` and `scope`, e.g. a run id) and the position. */
interface CursorBody {
  v: 1;
  k: string;
  s: string;
  p: string;
}

/** The `400 invalid_argument` error of a bad cursor in `field`. */
export function invalidCursor(field: string, why: string): ApiError {
  return invalidArgument(field, why);
}

/** A cursor for position `position` of the listing `kind` over `scope`. */
export function encodePageCursor(kind: string, scope: string, position: string): string {
  const body: CursorBody = { v: 1, k: kind, s: scope, p: position };
  return Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
}

/**
 * The position a cursor made by {@link encodePageCursor} for the same listing holds; undefined
 * for no cursor. Anything else is `400 invalid_argument` naming `field`.
 */
export function decodePageCursor(
  cursor: string | undefined,
  kind: string,
  scope: string,
  field = 'cursor',
): string | undefined {
  if (cursor === undefined) return undefined;
  if (cursor.length > MAX_CURSOR_CHARS || !/^[A-Za-z0-9_-]+$/.test(cursor)) {
    throw invalidCursor(field, 'is not a cursor this API returned');
  }
  let body: Partial<CursorBody> | undefined;
  try {
    body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<CursorBody>;
  } catch {
    body = undefined;
  }
  if (!body || typeof body !== 'object' || body.v !== 1 || typeof body.p !== 'string' || body.p === '') {
    throw invalidCursor(field, 'is not a cursor this API returned');
  }
  if (body.k !== kind || body.s !== scope) {
    throw invalidCursor(field, 'belongs to another listing (pass back the cursor this listing returned)');
  }
  return body.p;
}
