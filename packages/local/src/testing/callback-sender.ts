import { CallbackAlreadyCompletedError, type Engine } from '@durable-lambda/engine';
import type { ErrorObject } from '@durable-lambda/protocol';
import { isInjectedFault } from '../faults/injected-errors';

/** How the completions of one callback sent through the driver fared. */
export interface CallbackCompletions {
  /** Completions the engine accepted. */
  accepted: number;
  /** Completions refused as `callback_already_completed`. */
  refused: number;
  /** Completions whose outcome was lost to an injected fault (the write happened). */
  lost: number;
}

/**
 * Sends callback completions as outside code would, through the engine, and tallies how each
 * fared. With faults, a completion may be sent twice; the second must be refused.
 */
export class CallbackSender {
  readonly completions = new Map<string, CallbackCompletions>();

  constructor(
    private readonly engine: Engine,
    /** Whether to send this completion a second time (the `callbackTwice` fault). */
    private readonly twice: (callbackId: string) => boolean,
    private readonly describeFaults: () => string | undefined,
    /** Called after every send: outside activity the driver may be waiting for. */
    private readonly sent: () => void,
  ) {}

  success(callbackId: string, result?: string): Promise<void> {
    return this.complete(callbackId, () => this.engine.sendCallbackSuccess(callbackId, result));
  }

  failure(callbackId: string, error: ErrorObject): Promise<void> {
    return this.complete(callbackId, () => this.engine.sendCallbackFailure(callbackId, error));
  }

  async heartbeat(callbackId: string): Promise<void> {
    try {
      await this.engine.sendCallbackHeartbeat(callbackId);
    } catch (error) {
      if (!isInjectedFault(error)) throw error;
    } finally {
      this.sent();
    }
  }

  private async complete(callbackId: string, send: () => Promise<void>): Promise<void> {
    const tally = this.completions.get(callbackId) ?? { accepted: 0, refused: 0, lost: 0 };
    this.completions.set(callbackId, tally);
    try {
      await this.once(tally, send);
      if (!this.twice(callbackId)) return;
      const accepted = tally.accepted;
      await this.once(tally, send).catch((error: unknown) => {
        if (!(error instanceof CallbackAlreadyCompletedError)) throw error;
      });
      if (tally.accepted > accepted) {
        throw new Error(
          `a duplicate completion of callback ${callbackId} was accepted; a callback accepts one completion\n${this.describeFaults()}`,
        );
      }
    } finally {
      this.sent();
    }
  }

  /**
   * One send. An injected fault that loses its response is absorbed: the write happened, and if
   * the wake-up was lost with it, the run is left to the reconciler (as a caller that gave up).
   */
  private async once(tally: CallbackCompletions, send: () => Promise<void>): Promise<void> {
    try {
      await send();
      tally.accepted += 1;
    } catch (error) {
      if (isInjectedFault(error)) {
        tally.lost += 1;
        return;
      }
      if (error instanceof CallbackAlreadyCompletedError) tally.refused += 1;
      throw error;
    }
  }
}
