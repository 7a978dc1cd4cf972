/**
 * The CLI's own errors share one base and one list of codes. Each ends the command with its exit
 * code and one line; what it meets of the control API keeps the api package's classes
 * (`DurableApiError`, `DurableConnectionError`, `CostEstimateError`: the client side's base).
 */

/** Every stable code a {@link CliError} carries. A code never changes its meaning. */
export const CLI_ERROR_CODES = [
  // UsageError: a command line the CLI cannot run (exit 2).
  'invalid_usage',
  // SigningSetupError: signing cannot be set up (no credentials, @durable-lambda/aws missing; exit 2).
  'signing_unavailable',
] as const;

/** One of {@link CLI_ERROR_CODES}. */
export type CliErrorCode = (typeof CLI_ERROR_CODES)[number];

/** Base of the CLI's errors: each carries one stable {@link CliErrorCode}. */
export abstract class CliError<C extends CliErrorCode = CliErrorCode> extends Error {
  /** Stable code. */
  abstract readonly code: C;
}
