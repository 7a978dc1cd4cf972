/**
 * `@durable-lambda/api`: the HTTP control API of durable-lambda (a framework-free handler with
 * `node:http` and Lambda adapters) and its typed client. The `durable` CLI is `@durable-lambda/cli`.
 */

export type {
  AwsInvocationInputWire,
  AwsRoutesOptions,
  AwsSessionEngine,
  AwsSessionOptions,
  CheckpointTokenClaims,
} from './aws-routes';
export {
  AWS_ROUTE_PREFIX,
  AwsCheckpointSessions,
  AwsRouteError,
  awsRoutes,
  decodeCheckpointToken,
  encodeCheckpointToken,
  executionArn,
  openAwsInvocation,
} from './aws-routes';
export type { DurableClientOptions, ListRunsQuery, PostOptions, StartRunResult } from './client';
export { DEFAULT_API_URL, DurableApiError, DurableClient, DurableConnectionError } from './client';
export type { ControlApi, ControlApiOptions } from './control-api';
export { createControlApi, DEFAULT_MAX_BODY_BYTES } from './control-api';
export { decodeBatchResult, errorToWire, operationToWire, parsePayload, runToWire } from './convert';
export type { CostEstimate, CostItem, CostOptions } from './cost/run-cost';
export { CostEstimateError, estimateCost } from './cost/run-cost';
export type { ControlEngine } from './deps';
export { API_ERROR_STATUS, ApiError, ENGINE_ERROR_STATUS } from './errors';
export type { ApiRequest, ApiResponse, MultiValue } from './http';
export {
  DEFAULT_IDEMPOTENCY_TTL_MS,
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
} from './idempotency';
export type { LambdaHttpEvent, LambdaHttpResult } from './lambda-adapter';
export { toLambdaHandler } from './lambda-adapter';
export { answerClientErrors, toNodeListener } from './node-adapter';
export type { ApiRequestWithPrincipal, OperatorAnswerWire, RunActionsWire, RunActionWire } from './operator-routes';
export { ACTOR_HEADER, actorOf } from './operator-routes';
export type { OperationPage, RunExportClient, RunExportFile } from './run-export';
export { exportRunFromApi, operationFromWire, RunExportError } from './run-export';
export { historyToWire, waitingFor } from './run-history';
export type {
  RunInvocationEntry,
  RunJournal,
  RunJournalReader,
  RunLogEntry,
  RunSearcher,
} from './run-journal';
export type { StopRequest, StopSignalOptions } from './stop-signals';
export { onStopSignals } from './stop-signals';
export * from './wire';
