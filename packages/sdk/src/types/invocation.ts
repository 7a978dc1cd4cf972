import type { DurableLogger } from './logger';
import type { InvocationStatus } from './operation-enums';
import type {
  CheckpointDurableExecutionRequest,
  CheckpointDurableExecutionResponse,
  ErrorObject,
  GetDurableExecutionStateRequest,
  GetDurableExecutionStateResponse,
  WireOperation,
} from './wire';

/** What Lambda's durable functions hand a handler on each invocation (AWS's shape). */
export interface DurableExecutionInvocationInput {
  /** The execution's ARN. */
  DurableExecutionArn: string;
  /** The token of the next checkpoint. */
  CheckpointToken: string;
  /** Operations (hashed ids) changed from outside since the previous invocation. */
  UpdatedOperationIds?: string[];
  /** The operations so far, possibly paginated. */
  InitialExecutionState: {
    Operations: WireOperation[];
    NextMarker?: string | undefined;
  };
}

/** What a durable handler returns to Lambda's durable functions (AWS's shape). */
export type DurableExecutionInvocationOutput =
  | { Status: InvocationStatus.SUCCEEDED; Result?: string }
  | { Status: InvocationStatus.FAILED; Error: ErrorObject }
  | { Status: InvocationStatus.PENDING };

/**
 * The two calls AWS's SDK makes to its backend (AWS's interface): a transport such as
 * `DurableExecutionApiClient` (Lambda's API) or one that talks to another engine.
 */
export interface DurableExecutionClient {
  getExecutionState(
    params: GetDurableExecutionStateRequest,
    logger?: DurableLogger,
  ): Promise<GetDurableExecutionStateResponse>;
  checkpoint(
    params: CheckpointDurableExecutionRequest,
    logger?: DurableLogger,
  ): Promise<CheckpointDurableExecutionResponse>;
}
