/**
 * Named signals (`ctx.waitForSignal(name)`, `POST /v1/runs/{id}/signals/{name}`): the shapes a
 * store keeps in a run's signal inbox, the rules a signal's name and payload follow, and which
 * signal a waiting operation takes.
 *
 * A signal is stored once, with the next `seq` of its run, in the same atomic write that grows
 * the run's `eventSeq` (so the run is due, and an invocation running meanwhile re-runs). A wait
 * takes the oldest signal of its name past the run's `signalCursor` for that name; the wait's
 * own write records what it took (its `CallbackDetails.SignalSeq`) and moves the cursor, in one
 * write. Nothing else is written: a death between two writes leaves the signal untaken, and the
 * replay takes it again.
 */
import type { Operation } from '@durable-lambda/protocol';
import { EngineError } from './engine-error';
import { EngineInputError } from './errors';
import type { RunStatus } from './run-record';

/** The SubType of the CALLBACK operation a `ctx.waitForSignal` records (its `Name` is the signal's name). */
export const SIGNAL_WAIT_SUBTYPE = 'WaitForSignal';

/** The longest signal name, in characters. */
export const MAX_SIGNAL_NAME_LENGTH = 128;

/** The largest signal payload (its JSON, UTF-8 bytes): a signal is a message, not a document. */
export const MAX_SIGNAL_PAYLOAD_BYTES = 64 * 1024;

/** What a signal's name may hold: a letter or digit, then letters, digits, `_ . : -`. */
const SIGNAL_NAME = /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/;

/** One signal in a run's inbox. */
export interface SignalRecord {
  runId: string;
  /** Its place among the run's signals (1, 2, ...): delivery order within a name. */
  seq: number;
  name: string;
  /** The payload as JSON text; absent when the signal carried none. */
  payload?: string;
  /** When it was stored (epoch ms). */
  sentAt: number;
  /** The sender's idempotency key: a second signal with the same key is the first one. */
  dedupeKey?: string;
}

/** A signal to store (the store gives it its `seq`). */
export interface SignalSend {
  name: string;
  payload?: string;
  sentAt: number;
  dedupeKey?: string;
}

/**
 * What {@link Store.appendSignal} did: stored the signal (`created` false when a signal with the
 * same `dedupeKey` was there already: that one is returned), or refused it.
 */
export type SignalAppend =
  | { kind: 'stored'; signal: SignalRecord; created: boolean; status: RunStatus; functionName: string }
  | { kind: 'not_found' }
  | { kind: 'ended'; status: RunStatus };

/** A signal sent to a run that has ended: nothing can take it. */
export class RunEndedError extends EngineError<'run_ended'> {
  /** Stable code. */
  readonly code = 'run_ended';
  constructor(
    readonly runId: string,
    readonly status: string,
  ) {
    super(`run ${runId} has ended (${status}); it takes no more signals`);
    this.name = 'RunEndedError';
  }
}

/** Refuses a signal name that is not 1 to 128 characters of `A-Z a-z 0-9 _ . : -` (starting with a letter or digit). */
export function checkSignalName(name: unknown, field = 'name'): string {
  if (typeof name !== 'string' || name.length === 0) throw new EngineInputError(field, 'must be a non-empty string');
  if (name.length > MAX_SIGNAL_NAME_LENGTH) {
    throw new EngineInputError(field, `must be at most ${MAX_SIGNAL_NAME_LENGTH} characters, got ${name.length}`);
  }
  if (!SIGNAL_NAME.test(name)) {
    throw new EngineInputError(field, 'must start with a letter or digit and hold only letters, digits and _ . : -');
  }
  return name;
}

/** Whether `op` is a `waitForSignal`'s operation. */
export function isSignalWait(op: Pick<Operation, 'Type' | 'SubType'> | undefined): boolean {
  return op?.Type === 'CALLBACK' && op.SubType === SIGNAL_WAIT_SUBTYPE;
}

/**
 * The signals of one run as one invocation sees them: which are taken (the run's cursor, plus
 * what this invocation delivered, written or not), and the next for a name.
 */
export class SignalDelivery {
  /** Per name, the last seq taken by a written delivery. */
  private readonly cursor: Record<string, number>;
  /** Deliveries not yet written, by operation id: retried writes deliver the same signal again. */
  private readonly pending = new Map<string, { name: string; seq: number }>();
  private signals: readonly SignalRecord[] = [];

  constructor(cursor: Record<string, number> | undefined) {
    this.cursor = { ...cursor };
  }

  /** Takes in the run's inbox as read. */
  load(signals: readonly SignalRecord[]): void {
    this.signals = signals;
  }

  /** `op` (a STARTED signal wait) ended by the next signal of its name at `now`, or undefined when none waits. */
  deliver(op: Operation, now: number): Operation | undefined {
    const name = op.Name ?? '';
    const signal = this.pending.has(op.Id) ? this.byPending(op.Id) : this.next(name);
    if (!signal) return undefined;
    this.pending.set(op.Id, { name, seq: signal.seq });
    const details = op.CallbackDetails ?? { CallbackId: '' };
    return {
      ...op,
      Status: 'SUCCEEDED',
      EndTimestamp: now,
      CallbackDetails: {
        ...details,
        ...(signal.payload === undefined ? {} : { Result: signal.payload }),
        SignalSeq: signal.seq,
      },
    };
  }

  /** The run's cursor with every pending delivery, for the write that carries them; undefined with none. */
  patch(): Record<string, number> | undefined {
    if (this.pending.size === 0) return undefined;
    const next = { ...this.cursor };
    for (const { name, seq } of this.pending.values()) next[name] = Math.max(next[name] ?? 0, seq);
    return next;
  }

  /** The write carrying {@link patch} succeeded: its deliveries are the run's. */
  written(cursor: Record<string, number> | undefined): void {
    if (!cursor) return;
    Object.assign(this.cursor, cursor);
    this.pending.clear();
  }

  private byPending(opId: string): SignalRecord | undefined {
    const seq = this.pending.get(opId)?.seq;
    return this.signals.find((s) => s.seq === seq);
  }

  private next(name: string): SignalRecord | undefined {
    const taken = new Set<number>();
    for (const p of this.pending.values()) if (p.name === name) taken.add(p.seq);
    const after = this.cursor[name] ?? 0;
    return this.signals.find((s) => s.name === name && s.seq > after && !taken.has(s.seq));
  }
}
