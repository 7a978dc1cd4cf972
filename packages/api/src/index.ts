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
} from './aws/aws-routes';
export {
  AWS_ROUTE_PREFIX,
  AwsCheckpointSessions,
  AwsRouteError,
  awsRoutes,
  decodeCheckpointToken,
  encodeCheckpointToken,
  executionArn,
  openAwsInvocation,
} from './aws/aws-routes';
export type { DurableClientOptions, ListRunsQuery, PostOptions, StartRunResult } from './client/client';
export { DEFAULT_API_URL, DurableApiError, DurableClient, DurableConnectionError } from './client/client';
export type { ClientErrorCode, CostEstimateErrorCode, DurableApiErrorCode } from './client/client-errors';
export { CLIENT_ERROR_CODES, COST_ESTIMATE_ERROR_CODES, DurableClientError } from './client/client-errors';
export type { CostEstimate, CostItem, CostOptions } from './cost/run-cost';
export { CostEstimateError, estimateCost } from './cost/run-cost';
export type { ApiErrorCode, ControlApiErrorCode } from './error-codes';
export { API_ERROR_CODES, CONTROL_API_ERROR_CODES, isControlApiErrorCode } from './error-codes';
export * from './saga-wire';
export { compensationSummary, runCompensations } from './server/compensations';
export type { ControlApi, ControlApiOptions } from './server/control-api';
export { createControlApi, DEFAULT_MAX_BODY_BYTES } from './server/control-api';
export { decodeBatchResult, errorToWire, operationToWire, parsePayload, runToWire } from './server/convert';
export type { ControlEngine } from './server/deps';
export { API_ERROR_STATUS, ApiError, ENGINE_ERROR_STATUS } from './server/errors';
export type { ApiRequest, ApiResponse, MultiValue } from './server/http';
export {
  DEFAULT_IDEMPOTENCY_TTL_MS,
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
} from './server/idempotency';
export type { LambdaHttpEvent, LambdaHttpResult } from './server/lambda-adapter';
export { toLambdaHandler } from './server/lambda-adapter';
export { answerClientErrors, toNodeListener } from './server/node-adapter';
export type {
  ApiRequestWithPrincipal,
  OperatorAnswerWire,
  RunActionsWire,
  RunActionWire,
} from './server/operator-routes';
export { ACTOR_HEADER, actorOf } from './server/operator-routes';
export type { OperationPage, RunExportClient, RunExportFile } from './server/run-export';
export { exportRunFromApi, operationFromWire, RunExportError } from './server/run-export';
export { historyToWire, waitingFor } from './server/run-history';
export type {
  RunInvocationEntry,
  RunJournal,
  RunJournalReader,
  RunLogEntry,
  RunSearcher,
} from './server/run-journal';
export type { StopRequest, StopSignalOptions } from './server/stop-signals';
export { onStopSignals } from './server/stop-signals';
export * from './signal-wire';
export * from './wire';
