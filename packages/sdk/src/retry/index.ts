export { JitterStrategy } from './jitter';
export {
  type ResolvedRetry,
  type RetryPolicy,
  type RetrySettings,
  type RetryVerdict,
  resolveRetry,
} from './policy';
export { DEFAULT_RETRY_STRATEGY, retryPresets } from './presets';
export {
  createLinearRetryStrategy,
  createRetryStrategy,
  type LinearRetryStrategyConfig,
  type RetryDecision,
  type RetryStrategy,
  type RetryStrategyConfig,
} from './strategy';
