import { EngineInputError } from './errors';
import type { RunRecord } from './ports';

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

/** The page size of a run query, validated (1-100, default 20). */
export function runQueryLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new EngineInputError('limit', `must be a whole number from 1 to ${MAX_LIMIT}`);
  }
  return limit;
}

/** An opaque cursor after `run` in newest-first order. */
export function encodeRunCursor(run: Pick<RunRecord, 'createdAt' | 'runId'>): string {
  return Buffer.from(JSON.stringify([run.createdAt, run.runId]), 'utf8').toString('base64url');
}

/** Reads a cursor made by {@link encodeRunCursor}; a malformed one is bad input. */
export function decodeRunCursor(cursor: string): { createdAt: number; runId: string } {
  try {
    const [createdAt, runId] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [unknown, unknown];
    if (typeof createdAt === 'number' && typeof runId === 'string') return { createdAt, runId };
  } catch {
    // falls through to the error below
  }
  throw new EngineInputError('cursor', 'is not a cursor this API returned');
}
