/**
 * Sending a signal to a run from outside (`Engine.sendSignal`), and the view of a run's signals
 * the control API shows (`Engine.runSignals`): which were sent, which a wait took, which waits
 * are open.
 */
import type { Operation } from '@durable-lambda/protocol';
import { PayloadTooLargeError, RunNotFoundError } from './errors';
import type { Clock, RunRecord, Store } from './ports';
import { checkSignalName, isSignalWait, MAX_SIGNAL_PAYLOAD_BYTES, RunEndedError, type SignalRecord } from './signals';

/** What sending a signal needs from the engine. */
export interface SignalSendDeps {
  store: Store;
  clock: Clock;
  /** The engine's payload limit; a signal's is the smaller of it and {@link MAX_SIGNAL_PAYLOAD_BYTES}. */
  maxPayloadBytes: number;
  /** Wakes a run now (best effort: the write made it due, the reconciler covers a lost wake-up). */
  wakeSoon(run: Pick<RunRecord, 'runId' | 'functionName'>): Promise<void>;
}

/** What a signal's sender is told. */
export interface SignalReceipt {
  runId: string;
  name: string;
  /** The signal's place among the run's signals. */
  seq: number;
  sentAt: number;
  /** False when the `dedupeKey` named a signal stored before: this is that one, stored once. */
  created: boolean;
}

/** Options of {@link sendSignal}. */
export interface SendSignalOptions {
  /** A signal sent again with the same key is stored once (the control API's `Idempotency-Key`). */
  dedupeKey?: string;
}

/**
 * Stores signal `name` with `payload` (JSON text, or undefined) in the run's inbox and wakes the
 * run. Refuses a bad name (`invalid_argument`, field `name`), a payload over the limit
 * (`payload_too_large`, field `payload`), a run that does not exist (`run_not_found`) or has ended
 * (`run_ended`).
 */
export async function sendSignal(
  deps: SignalSendDeps,
  runId: string,
  name: string,
  payload: string | undefined,
  options: SendSignalOptions = {},
): Promise<SignalReceipt> {
  checkSignalName(name);
  const limit = Math.min(MAX_SIGNAL_PAYLOAD_BYTES, deps.maxPayloadBytes);
  const bytes = payload === undefined ? 0 : Buffer.byteLength(payload, 'utf8');
  if (bytes > limit) throw new PayloadTooLargeError('payload', bytes, limit);
  const store = deps.store;
  if (!store.appendSignal) throw new Error('this store keeps no signals (Store.appendSignal)');
  const answer = await store.appendSignal(runId, {
    name,
    sentAt: deps.clock.now(),
    ...(payload === undefined ? {} : { payload }),
    ...(options.dedupeKey === undefined ? {} : { dedupeKey: options.dedupeKey }),
  });
  if (answer.kind === 'not_found') throw new RunNotFoundError(runId);
  if (answer.kind === 'ended') throw new RunEndedError(runId, answer.status);
  const { signal, created } = answer;
  // The write made the run due: a lost wake-up is left to the reconciler.
  if (created && answer.status === 'RUNNING') await deps.wakeSoon({ runId, functionName: answer.functionName });
  return { runId, name: signal.name, seq: signal.seq, sentAt: signal.sentAt, created };
}

/** One signal of a run as the control API shows it. */
export interface RunSignalView {
  seq: number;
  name: string;
  payload?: string;
  sentAt: number;
  /** `delivered`: a wait took it (`operationId`, when still stored); `pending`: kept for the next wait of its name. */
  state: 'delivered' | 'pending';
  operationId?: string;
}

/** A `waitForSignal` of the run still waiting. */
export interface SignalWaitView {
  operationId: string;
  name: string;
  /** When it times out (epoch ms), if it has a timeout. */
  timeoutAt?: number;
}

/** A run's signals, oldest first, and the waits still open. */
export interface RunSignals {
  signals: RunSignalView[];
  waiting: SignalWaitView[];
}

/** The signals of `run` and its open waits, from the inbox and the operations. */
export function viewSignals(
  run: RunRecord,
  signals: readonly SignalRecord[],
  operations: readonly Operation[],
): RunSignals {
  const takenBy = new Map<number, string>();
  const waiting: SignalWaitView[] = [];
  for (const op of operations) {
    if (!isSignalWait(op)) continue;
    const seq = op.CallbackDetails?.SignalSeq;
    if (seq !== undefined) takenBy.set(seq, op.Id);
    if (op.Status === 'STARTED') {
      const timeoutAt = op.CallbackDetails?.TimeoutTimestamp;
      waiting.push({ operationId: op.Id, name: op.Name ?? '', ...(timeoutAt === undefined ? {} : { timeoutAt }) });
    }
  }
  const cursor = run.signalCursor ?? {};
  return {
    signals: signals.map((s) => {
      const operationId = takenBy.get(s.seq);
      const delivered = operationId !== undefined || s.seq <= (cursor[s.name] ?? 0);
      return {
        seq: s.seq,
        name: s.name,
        ...(s.payload === undefined ? {} : { payload: s.payload }),
        sentAt: s.sentAt,
        state: delivered ? 'delivered' : 'pending',
        ...(operationId === undefined ? {} : { operationId }),
      };
    }),
    waiting,
  };
}

/** The signals view of run `runId` (`run_not_found` when it does not exist). */
export async function runSignals(store: Store, runId: string): Promise<RunSignals> {
  const run = await store.getRun(runId);
  if (!run) throw new RunNotFoundError(runId);
  const [signals, operations] = await Promise.all([store.listSignals?.(runId) ?? [], store.loadOperations(runId)]);
  return viewSignals(run, signals, operations);
}
