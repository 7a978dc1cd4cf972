import { randomBytes, timingSafeEqual } from 'node:crypto';
import { InvalidCallbackIdError } from './errors';

const SECRET_BYTES = 24; // 192 random bits
const FORMAT = /^([A-Za-z0-9_-]{4,200})\.([A-Za-z0-9_-]{32})$/;

/**
 * Issues a callback id: where the callback lives (run and operation, encoded) and a random
 * secret. Knowing one callback's id reveals nothing about another's.
 */
export function issueCallbackId(runId: string, operationId: string): string {
  const where = Buffer.from(`${runId}:${operationId}`, 'utf8').toString('base64url');
  return `${where}.${randomBytes(SECRET_BYTES).toString('base64url')}`;
}

/** Reads where a callback id points; throws {@link InvalidCallbackIdError} for a malformed id. */
export function parseCallbackId(callbackId: unknown): { runId: string; operationId: string } {
  if (typeof callbackId !== 'string') throw new InvalidCallbackIdError('callback id must be a string');
  const match = FORMAT.exec(callbackId);
  if (!match?.[1]) throw new InvalidCallbackIdError();
  const where = Buffer.from(match[1], 'base64url').toString('utf8');
  const colon = where.indexOf(':');
  if (colon <= 0 || colon === where.length - 1) throw new InvalidCallbackIdError();
  return { runId: where.slice(0, colon), operationId: where.slice(colon + 1) };
}

/** Compares ids in constant time, so the secret cannot be guessed byte by byte. */
export function sameCallbackId(stored: string | undefined, given: string): boolean {
  if (stored === undefined) return false;
  const a = Buffer.from(stored);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
