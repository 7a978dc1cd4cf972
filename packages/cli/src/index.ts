/**
 * `@durable-lambda/cli`: the `durable` CLI of durable-lambda (its binary is `bin/durable.mjs`).
 * It talks to a control API through `@durable-lambda/api`'s client, runs the dev server and the
 * console of `@durable-lambda/local`, signs requests and reads DynamoDB tables with
 * `@durable-lambda/aws`. Its programmatic entry is {@link runCli}.
 */

export { DEFAULT_API_URL } from '@durable-lambda/api';
export type { CliErrorCode } from './cli-error';
export { CLI_ERROR_CODES, CliError } from './cli-error';
export type { DevCommandOptions } from './dev-options';
export type { CliIo } from './io';
export { EXIT, runCli } from './main';
export { DEFAULT_REPLAY_LAST, REPLAY_DIVERGED_EXIT } from './replay-command';
export { SigningSetupError } from './signing';
export { USAGE, UsageError } from './usage';
