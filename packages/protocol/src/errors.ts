/**
 * The protocol's errors: what a backend's `checkpoint` rejects with. One base, one list of codes,
 * so a consumer (the engine's AWS transport, the control API's status map) can check it handles
 * every one of them at compile time.
 */

/** Every stable code a protocol error carries. A code never changes its meaning. */
export const PROTOCOL_ERROR_CODES = [
  'fenced',
  'checkpoint_rejected',
  // A transactional step's writes (`transact-writes.ts`).
  'transact_condition_failed',
  'transact_rejected',
] as const;

/** One of {@link PROTOCOL_ERROR_CODES}. */
export type ProtocolErrorCode = (typeof PROTOCOL_ERROR_CODES)[number];

/** Base of the protocol's errors: each carries one stable {@link ProtocolErrorCode}. */
export abstract class DurableProtocolError<C extends ProtocolErrorCode = ProtocolErrorCode> extends Error {
  /** Stable code. */
  abstract readonly code: C;
}

/** A checkpoint was refused because a newer invocation owns the run: stop quietly. */
export class FencedError extends DurableProtocolError<'fenced'> {
  /** Stable code. */
  readonly code = 'fenced';
  constructor(message = 'a newer invocation owns this run') {
    super(message);
    this.name = 'FencedError';
  }
}

/** The engine refused an update as invalid for the operation's type or state. */
export class CheckpointRejectedError extends DurableProtocolError<'checkpoint_rejected'> {
  /** Stable code. */
  readonly code = 'checkpoint_rejected';
  constructor(
    message: string,
    /** The operation the refused update named. */
    readonly operationId: string,
  ) {
    super(message);
    this.name = 'CheckpointRejectedError';
  }
}
