import type { Engine } from '../engine';
import { RunKeyConflictError } from '../errors';
import type { Clock, Invoker, Waker } from '../ports';
import { functionBaseName } from '../run-query';
import type { RunRecord } from '../run-record';
import { kickNewRun } from './kick-new-run';
import type { TriggerBatch, TriggerInput, TriggerRecord, TriggerSource } from './trigger-events';

/**
 * The answer to a trigger batch: the partial batch response SQS's and DynamoDB Streams' event
 * source mappings and EventBridge Pipes read (each by the id it names records by).
 */
export interface TriggerBatchResponse {
  batchItemFailures: Array<{ itemIdentifier: string }>;
}

/** The answer to an EventBridge event: the run it started (or found). */
export interface TriggerStartResponse {
  runId: string;
  created: boolean;
}

/**
 * The run key of a trigger event, given by the user: a string of 1-256 characters; undefined for
 * the source's own key (the SQS message id, the EventBridge event id, the stream record's id, the
 * Kinesis record's id).
 */
export type TriggerRunKey = (input: TriggerInput, source: TriggerSource) => string | undefined;

/** What a {@link TriggerReceiver} starts runs through. */
export interface TriggerReceiverOptions {
  engine: Pick<Engine, 'startRun'>;
  /** Invokes the run's first invocation (asynchronously: never inline in the batch's). */
  invoker?: Invoker;
  /** Wakes the run now when the invoke fails (else the reconciler starts it: it is due). */
  waker: Waker;
  clock: Clock;
  runKey?: TriggerRunKey;
  /** Told of a kick that failed (the run is due: the reconciler starts it). */
  report?(error: unknown): void;
}

/**
 * Starts one run per trigger event, keyed by the event, and gets each going: the run is created
 * (or found, by its key: a redelivered event starts nothing new) through `Engine.startRun`, then
 * invoked once with its wake event through the invoker (the waker, asked to wake it now, when the
 * invoke fails; the reconciler when both fail, since the run is due from its creation). The
 * handler never runs in the batch's invocation. A start that fails (the store unreachable) is
 * named in the batch answer, so the event source delivers that record again; an EventBridge event
 * whose start fails is thrown (Lambda's asynchronous retries, then the function's failure
 * destination). A user key already naming a run of another input is that run (the key decides).
 */
export class TriggerReceiver {
  private readonly options: TriggerReceiverOptions;

  constructor(options: TriggerReceiverOptions) {
    this.options = options;
  }

  /** Starts the batch's runs for `functionName` (the function, as the control API's start names it). */
  async receive(batch: TriggerBatch, functionName: string): Promise<TriggerBatchResponse | TriggerStartResponse> {
    if (!batch.batched) {
      const only = batch.records[0] as TriggerRecord;
      const started = await this.start(only, functionName);
      return { runId: started.runId, created: started.created };
    }
    const failed: string[] = [];
    await Promise.all(
      batch.records.map(async (record) => {
        try {
          await this.start(record, functionName);
        } catch {
          if (record.itemIdentifier !== undefined) failed.push(record.itemIdentifier);
        }
      }),
    );
    // Streams retry from the lowest failed sequence number; SQS redelivers each one named.
    const order = batch.records.map((r) => r.itemIdentifier);
    failed.sort((a, b) => order.indexOf(a) - order.indexOf(b));
    return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
  }

  /**
   * The run key of `record` for `functionName`: the user's, or its source's with the function in
   * it (`sqs:<function>:<messageId>`). Run keys name runs table-wide, and one event may go to
   * several functions (an EventBridge rule's targets, a stream's consumers): each starts its own.
   */
  runKeyOf(record: TriggerRecord, functionName: string): string {
    return this.options.runKey?.(record.input, record.source) ?? scopedRunKey(functionName, record.defaultKey);
  }

  private async start(record: TriggerRecord, functionName: string): Promise<{ runId: string; created: boolean }> {
    const runKey = this.runKeyOf(record, functionName);
    let run: RunRecord;
    let created = false;
    try {
      const started = await this.options.engine.startRun({ functionName, input: JSON.stringify(record.input), runKey });
      run = started.run;
      created = started.created;
    } catch (error) {
      // A user key names one run whatever the event, and an emitted event's id one run whatever its
      // delivery (a repeat publish has another message id): the second is that run's.
      if (error instanceof RunKeyConflictError && (this.options.runKey || record.emittedId !== undefined)) {
        return { runId: error.runId, created: false };
      }
      throw error;
    }
    await this.kick(run);
    return { runId: run.runId, created };
  }

  private kick(run: RunRecord): Promise<void> {
    return kickNewRun(this.options, run);
  }
}

/** `key` (`<source>:<id>`) with the bare name of `functionName` after its source: `<source>:<function>:<id>`. */
export function scopedRunKey(functionName: string, key: string): string {
  const colon = key.indexOf(':');
  return `${key.slice(0, colon)}:${functionBaseName(functionName)}${key.slice(colon)}`;
}
