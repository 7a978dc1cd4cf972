import { isWakeEvent, type WakeEvent, type WakeRequest } from '@durable-lambda/engine';
import type { DurableBackend, InvocationOutput } from '@durable-lambda/protocol';
import type { WakeHint } from './sqs-delay-waker';
import {
  batchResponse,
  isSqsEvent,
  plainWakeEvent,
  type SqsEventLike,
  type SqsRecordLike,
  wakeOfRecord,
  wakeTiming,
} from './wake-queue-events';

type Opened = Awaited<ReturnType<DurableBackend['open']>>;

/** What the receiving side of the wake-up queue needs. */
export interface WakeQueueReceiverOptions {
  /**
   * Sends a wake-up again (the production waker: SQS within 15 minutes, else Scheduler + hop).
   * `hint.phase` is `random` for a Scheduler hop delivered straight to the function (it fires
   * anywhere in its minute), which lets the SQS delay hold less (see `DelayRounding`).
   */
  rearm(request: WakeRequest, hint?: WakeHint): Promise<void>;
  /** Hands a due wake-up to its function's own invocation (an asynchronous Lambda invoke). */
  forward(functionName: string, event: WakeEvent): Promise<void>;
  /**
   * Whether a wake-up for `functionName` (a run's recorded name, qualifier included) opens in this
   * invocation: a run of this function recorded on the code this invocation runs (see
   * `runsElsewhere`). Any other is handed to `functionName`: the queue's event source invokes
   * one qualifier (the alias), whatever qualifier the run is on (`$LATEST`, an older version).
   */
  opensHere(functionName: string): boolean;
  /** This function's name, for a wake-up that does not say whose it is. */
  ownName(): string;
  now(): number;
  sleep(ms: number): Promise<void>;
  /**
   * A wake-up found at most this early (ms) is held in-process until due; earlier, it is re-armed.
   * Covers SQS's whole-second rounding (half a second) and clock skew between hosts. Default 2000.
   */
  holdWithinMs?: number;
}

/**
 * The receiving side of on-time wake-ups, ahead of the production backend's `open`:
 *
 * - An SQS event (the wake-up queue's event source, `ReportBatchItemFailures`): a message found
 *   early (beyond `holdWithinMs`) is re-armed for the rest; one due is handled as a wake-up: with
 *   one message (the batch size the construct deploys), in this invocation, so the wake-up costs
 *   no extra invoke; with several, each is handed to its own invocation. The answer names the
 *   messages to deliver again (a re-arm or hand-over that failed; a body that is no wake-up, so
 *   it ends in the queue's dead-letter queue).
 * - A timed wake event delivered directly (a Scheduler schedule with a final hop, which fires
 *   ahead of the due time on purpose): re-armed for the rest, or held until due.
 * - A due wake-up for a run recorded on other code (another function, or this one's `$LATEST`,
 *   older version or other alias: the queue feeds the alias whatever the run's qualifier) is
 *   handed to that code by an asynchronous invoke, never opened here. The message says the
 *   run's name when it was sent; the engine checks the run's name as stored when it opens it.
 *
 * Duplicates are harmless: opening a run takes its lease, so a second delivery finds it held, or
 * finds nothing due, and does nothing. A re-arm keeps the message's own due time, so a stale
 * wake-up (its run moved on) is consumed at that time, never re-armed again: nothing spins.
 */
export class WakeQueueReceiver {
  private readonly options: WakeQueueReceiverOptions;
  private readonly holdWithinMs: number;

  constructor(options: WakeQueueReceiverOptions) {
    this.options = options;
    this.holdWithinMs = options.holdWithinMs ?? 2_000;
  }

  /**
   * Handles `event` when it is an SQS event or a timed wake event; undefined for any other (the
   * backend opens it as usual). `open` opens a plain wake event in this invocation.
   */
  async receive(event: unknown, open: (event: WakeEvent) => Promise<Opened>): Promise<Opened | undefined> {
    if (isSqsEvent(event)) return this.receiveBatch(event, open);
    if (!isWakeEvent(event)) return undefined;
    const { at, functionName } = wakeTiming(event);
    if (at === undefined) return undefined;
    const runId = event.durableLambda.runId;
    // Delivered straight to the function, not by the queue: a Scheduler hop, at a random phase.
    if (await this.rearmedIfEarly(event, at, 'random')) {
      return { response: { Status: 'PENDING', runId, rearmed: true } };
    }
    if (functionName !== undefined && !this.options.opensHere(functionName)) {
      await this.options.forward(functionName, plainWakeEvent(event));
      return { response: { Status: 'PENDING', runId, handedTo: functionName } };
    }
    return open(plainWakeEvent(event));
  }

  private async receiveBatch(event: SqsEventLike, open: (event: WakeEvent) => Promise<Opened>): Promise<Opened> {
    const [only, ...others] = event.Records;
    if (only && others.length === 0) return this.receiveOne(only, open);
    const failed: string[] = [];
    await Promise.all(
      event.Records.map(async (record) => {
        try {
          const wake = wakeOfRecord(record);
          if (!wake) throw new Error('not a wake-up');
          const { at, functionName } = wakeTiming(wake);
          if (at !== undefined && (await this.rearmedIfEarly(wake, at))) return;
          await this.options.forward(functionName ?? this.options.ownName(), plainWakeEvent(wake));
        } catch {
          failed.push(record.messageId);
        }
      }),
    );
    return { response: batchResponse(failed) };
  }

  private async receiveOne(record: SqsRecordLike, open: (event: WakeEvent) => Promise<Opened>): Promise<Opened> {
    const wake = wakeOfRecord(record);
    // Never deliverable: delivered again until the queue's redrive policy dead-letters it.
    if (!wake) return { response: batchResponse([record.messageId]) };
    const { at, functionName } = wakeTiming(wake);
    try {
      if (at !== undefined && (await this.rearmedIfEarly(wake, at))) return { response: batchResponse() };
      if (functionName !== undefined && !this.options.opensHere(functionName)) {
        await this.options.forward(functionName, plainWakeEvent(wake));
        return { response: batchResponse() };
      }
    } catch {
      return { response: batchResponse([record.messageId]) };
    }
    // A failure to open is thrown: the message is delivered again after its visibility timeout
    // (until the redrive policy dead-letters it), and the run, due in the store, is the
    // reconciler's meanwhile. Never re-armed here, so a fault that persists cannot spin.
    const opened = await open(plainWakeEvent(wake));
    if (!opened.opened) return { response: batchResponse() };
    const invocation = opened.opened;
    return {
      opened: {
        invocation: invocation.invocation,
        abort: (error: unknown) => invocation.abort(error),
        async close(output: InvocationOutput) {
          await invocation.close(output);
          return batchResponse();
        },
      },
    };
  }

  /**
   * Re-arms a wake-up found more than `holdWithinMs` early (true); holds one less early until due.
   * `phase`: where its re-arm's send falls against its due time (a hop's: random).
   */
  private async rearmedIfEarly(wake: WakeEvent, at: number, phase?: 'random'): Promise<boolean> {
    const early = at - this.options.now();
    if (early > this.holdWithinMs) {
      const request = this.request(wake, at);
      await (phase ? this.options.rearm(request, { phase }) : this.options.rearm(request));
      return true;
    }
    if (early > 0) await this.options.sleep(early);
    return false;
  }

  private request(wake: WakeEvent, at: number): WakeRequest {
    const { functionName } = wakeTiming(wake);
    return { runId: wake.durableLambda.runId, functionName: functionName ?? this.options.ownName(), at, reason: 'due' };
  }
}
