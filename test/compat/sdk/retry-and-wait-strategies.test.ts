import * as oursSdk from '@durable-lambda/sdk';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type AwsDurableSdk, importAwsSdk } from '../../support/aws-sdk';

/**
 * AWS's retry and wait strategies, called directly on both SDKs with the same errors, attempts
 * and states: the same decisions (retry or not, delay in seconds), with `Math.random` pinned so
 * jittered delays are comparable.
 */

const ours = oursSdk as unknown as AwsDurableSdk;
let aws: AwsDurableSdk;
beforeAll(async () => {
  aws = await importAwsSdk();
});
afterEach(() => {
  vi.restoreAllMocks();
});

type Decision = { shouldRetry: boolean; delay?: unknown };
type Strategy = (error: Error, attempt: number) => Decision;
const ATTEMPTS = [1, 2, 3, 4, 5, 6, 7, 10, 11];
class Custom extends Error {
  override name = 'Custom';
}
const ERRORS = [new Error('plain'), new TypeError('type'), new Custom('custom'), new Error('timeout while connecting')];

/** Every decision of a strategy over the attempts and errors, at three values of Math.random. */
function decisions(strategy: Strategy): unknown[] {
  const out: unknown[] = [];
  for (const random of [0, 0.37, 0.999]) {
    vi.spyOn(Math, 'random').mockReturnValue(random);
    for (const error of ERRORS)
      for (const attempt of ATTEMPTS) out.push([random, error.message, attempt, strategy(error, attempt)]);
    vi.restoreAllMocks();
  }
  return out;
}

describe('retry strategies decide as AWS’s', () => {
  it('retryPresets: default, linear and noRetry', () => {
    for (const name of ['default', 'linear', 'noRetry'] as const) {
      const theirs = (aws.retryPresets as Record<string, Strategy>)[name];
      const mine = (ours.retryPresets as Record<string, Strategy>)[name] as Strategy;
      expect(decisions(mine), name).toEqual(decisions(theirs as Strategy));
    }
    // The default preset's shape, read off AWS: 6 attempts, no delay past the last.
    const last = (aws.retryPresets.default as Strategy)(new Error('x'), 6);
    expect(last.shouldRetry).toBe(false);
  });

  it('createRetryStrategy: defaults and each setting', () => {
    const configs: Record<string, unknown>[] = [
      {},
      { maxAttempts: 3 },
      { initialDelay: { seconds: 2 }, backoffRate: 3, maxDelay: { seconds: 20 } },
      { jitter: 'NONE' },
      { jitter: 'HALF', initialDelay: { minutes: 1 } },
      { retryableErrors: ['timeout'] },
      { retryableErrors: [/connect/] },
      { retryableErrorTypes: [TypeError] },
      { retryableErrorTypes: [Custom], retryableErrors: ['plain'] },
      { maxAttempts: 1 },
    ];
    for (const config of configs) {
      const mine = ours.createRetryStrategy(config as never) as Strategy;
      const theirs = aws.createRetryStrategy(config as never) as Strategy;
      expect(decisions(mine), JSON.stringify(config)).toEqual(decisions(theirs));
    }
  });

  it('createLinearRetryStrategy, where AWS 2.4.0 exports it', () => {
    const theirs = (aws as unknown as Record<string, unknown>).createLinearRetryStrategy as
      | ((c?: object) => Strategy)
      | undefined;
    const mine = (ours as unknown as Record<string, unknown>).createLinearRetryStrategy as
      | ((c?: object) => Strategy)
      | undefined;
    if (theirs === undefined) return expect(typeof mine).toMatch(/function|undefined/);
    for (const config of [{}, { maxAttempts: 3, initialDelay: { seconds: 2 }, increment: { seconds: 3 } }]) {
      expect(decisions((mine as (c?: object) => Strategy)(config))).toEqual(decisions(theirs(config)));
    }
  });
});

describe('wait strategies decide as AWS’s', () => {
  type WaitDecision = { shouldContinue: boolean; delay?: unknown };
  type WaitStrategy = (state: number, attempt: number) => WaitDecision;
  const wait = (m: AwsDurableSdk, config: object) => m.createWaitStrategy(config as never) as unknown as WaitStrategy;
  const run = (strategy: WaitStrategy) => {
    const out: unknown[] = [];
    for (const random of [0, 0.5, 0.999]) {
      vi.spyOn(Math, 'random').mockReturnValue(random);
      for (const state of [0, 5, 10]) {
        for (const attempt of [1, 2, 5, 59, 60, 61]) {
          try {
            out.push([random, state, attempt, strategy(state, attempt)]);
          } catch (error) {
            out.push([random, state, attempt, 'threw', (error as Error).name, (error as Error).message]);
          }
        }
      }
      vi.restoreAllMocks();
    }
    return out;
  };

  it('createWaitStrategy: defaults and each setting', () => {
    const configs = [
      { shouldContinuePolling: (s: number) => s < 10 },
      { shouldContinuePolling: (s: number) => s < 10, maxAttempts: 5 },
      { shouldContinuePolling: () => true, initialDelay: { seconds: 3 }, maxDelay: { seconds: 30 }, backoffRate: 2 },
      { shouldContinuePolling: () => true, jitter: 'NONE' },
      { shouldContinuePolling: () => true, jitter: 'HALF', initialDelay: { minutes: 2 } },
    ];
    for (const config of configs) expect(run(wait(ours, config))).toEqual(run(wait(aws, config)));
  });
});
