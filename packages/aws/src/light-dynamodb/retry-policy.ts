/**
 * The AWS SDK's standard retry mode as `@aws-sdk/client-dynamodb` configures it (the version this
 * package depends on): up to 4 attempts (`AWS_MAX_ATTEMPTS` overrides), only throttling and
 * transient errors retried (`service-errors.ts`: never a refused condition or a cancelled
 * transaction), exponential backoff with full jitter from 25 ms (1 s for throttling) capped at
 * 20 s, at least a service's `x-amz-retry-after` hint, and a retry quota shared by a client's
 * requests (500 tokens; a retry costs 14, 5 after throttling; a success gives back what its retry
 * cost, or 1), so a failing dependency is not hammered by every request at once.
 */
import { type ErrorKind, errorKind } from './service-errors';

/** Attempts per request by default (`@aws-sdk/client-dynamodb`'s `defaultMaxAttempts`). */
export const DEFAULT_MAX_ATTEMPTS = 4;
/** Backoff base of transient errors, ms (`@aws-sdk/client-dynamodb`'s `defaultBaseDelay`). */
export const BASE_DELAY_MS = 25;
/** Backoff base after throttling, ms (`@smithy/core`'s throttling delay). */
export const THROTTLING_BASE_DELAY_MS = 1_000;
/** Longest backoff, ms. */
export const MAX_DELAY_MS = 20_000;
const QUOTA = 500;
const COST = { transient: 14, throttling: 5 } as const;

/** The attempts setting: `AWS_MAX_ATTEMPTS` when it is a positive integer, else {@link DEFAULT_MAX_ATTEMPTS}. */
export function maxAttemptsFrom(env: Readonly<Record<string, string | undefined>>): number {
  const value = Number.parseInt(env.AWS_MAX_ATTEMPTS ?? '', 10);
  return Number.isInteger(value) && value >= 1 ? value : DEFAULT_MAX_ATTEMPTS;
}

/** One client's retry decisions (its quota is shared by its requests). */
export class RetryPolicy {
  private capacity = QUOTA;

  constructor(
    readonly maxAttempts: number,
    private readonly random: () => number = Math.random,
  ) {}

  /**
   * The delay before attempt `attempt + 1` after `error` ended attempt `attempt` (1-based), or
   * undefined when it must not be retried (its kind, the attempts, or the quota). Takes the retry's
   * cost from the quota.
   */
  retryDelay(error: unknown, attempt: number, retryAfterMs?: number): { delayMs: number; cost: number } | undefined {
    const kind: ErrorKind = errorKind(error);
    if (kind === 'other' || attempt >= this.maxAttempts) return undefined;
    const cost = COST[kind];
    if (this.capacity < cost) return undefined;
    this.capacity -= cost;
    const base = kind === 'throttling' ? THROTTLING_BASE_DELAY_MS : BASE_DELAY_MS;
    let delayMs = Math.floor(this.random() * Math.min(base * 2 ** (attempt - 1), MAX_DELAY_MS));
    if (retryAfterMs !== undefined && Number.isFinite(retryAfterMs)) {
      delayMs = Math.max(delayMs, Math.min(retryAfterMs, delayMs + 5_000));
    }
    return { delayMs: Math.min(delayMs, MAX_DELAY_MS), cost };
  }

  /** A request succeeded: gives back what its last retry cost (1 when it was not retried). */
  succeeded(lastRetryCost: number | undefined): void {
    this.capacity = Math.min(QUOTA, this.capacity + (lastRetryCost ?? 1));
  }
}
