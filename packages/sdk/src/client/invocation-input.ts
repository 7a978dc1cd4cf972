import type { DurableExecutionClient, DurableExecutionInvocationInput } from '../types/invocation';
import type { WireOperation } from '../types/wire';

/**
 * AWS's invocation input that carries its own transport: a test runner or another backend hands
 * it to a handler wrapped by AWS's SDK, which then checkpoints through `durableExecutionClient`
 * instead of Lambda's API. Recognised by {@link DurableExecutionInvocationInputWithClient.isInstance}
 * also across copies of the class.
 */
export class DurableExecutionInvocationInputWithClient implements DurableExecutionInvocationInput {
  readonly durableExecutionClient: DurableExecutionClient;
  readonly InitialExecutionState: { Operations: WireOperation[]; NextMarker?: string | undefined };
  readonly DurableExecutionArn: string;
  readonly CheckpointToken: string;

  constructor(params: DurableExecutionInvocationInput, durableExecutionClient: DurableExecutionClient) {
    this.durableExecutionClient = durableExecutionClient;
    this.InitialExecutionState = params.InitialExecutionState;
    this.DurableExecutionArn = params.DurableExecutionArn;
    this.CheckpointToken = params.CheckpointToken;
  }

  /** True for an instance of this class or of a copy of it (AWS's check, by tag and name). */
  static isInstance(event: unknown): event is DurableExecutionInvocationInputWithClient {
    if (event instanceof DurableExecutionInvocationInputWithClient) return true;
    return (
      typeof event === 'object' &&
      event !== null &&
      Object.prototype.toString.call(event) === '[object DurableExecutionInvocationInputWithClient]' &&
      'durableExecutionClient' in event &&
      event.constructor.name === 'DurableExecutionInvocationInputWithClient'
    );
  }

  get [Symbol.toStringTag](): string {
    return 'DurableExecutionInvocationInputWithClient';
  }
}
