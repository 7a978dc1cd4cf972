/**
 * Optional store capabilities the control API uses when the store has them (the embedded SQLite
 * store of the dev server does): a run's journal (its log lines, its invocations, its retries)
 * and a search of runs by id or key. They are not `Store` methods: a store without them (DynamoDB)
 * serves every route, with no logs and durations taken from the operations alone.
 */
import type { RunRecord, Store } from '@durable-lambda/engine';

/** One log line a handler wrote while running (the SDK's logger), as the store keeps it. */
export interface RunLogEntry {
  /** Epoch ms. */
  at: number;
  level: string;
  message: string;
  /** The operation that logged (a step's logger); absent for the context's logger. */
  operationId?: string;
  /** The step attempt that logged, 1-based. */
  attempt?: number;
  data?: unknown;
}

/** One invocation of a run: from taking its lease to releasing it (or losing it). */
export interface RunInvocationEntry {
  /** The fence the invocation held: grows by one per invocation. */
  fence: number;
  startedAt: number;
  /** When it released the lease; absent while it runs, or when it was lost. */
  endedAt?: number;
  /** It lost its lease without releasing it (a crash, a timeout). */
  lost?: boolean;
}

/** What the store kept of a run besides its record and operations. */
export interface RunJournal {
  /** Oldest first, within the store's size cap. */
  logs: RunLogEntry[];
  /** Log lines dropped (the oldest) to keep the run within the cap. */
  logsDropped: number;
  /** Oldest first. */
  invocations: RunInvocationEntry[];
  /** When the run was retried after it failed (epoch ms), oldest first. */
  retriedAt: number[];
}

/** A store that keeps run journals. */
export interface RunJournalReader {
  readRunJournal(runId: string): RunJournal | Promise<RunJournal>;
}

/** A store that can search runs by a part of their id or run key. */
export interface RunSearcher {
  /** Runs whose id or run key contains `text` (case-insensitive), newest first, at most `limit`. */
  searchRuns(text: string, limit: number): RunRecord[] | Promise<RunRecord[]>;
}

/** The store's journal capability, if it has one. */
export function journalOf(store: Store): RunJournalReader | undefined {
  const candidate = store as Partial<RunJournalReader>;
  return typeof candidate.readRunJournal === 'function' ? (candidate as RunJournalReader) : undefined;
}

/** The store's search capability, if it has one. */
export function searcherOf(store: Store): RunSearcher | undefined {
  const candidate = store as Partial<RunSearcher>;
  return typeof candidate.searchRuns === 'function' ? (candidate as RunSearcher) : undefined;
}

/** An empty journal: what a store without the capability shows. */
export const EMPTY_JOURNAL: RunJournal = Object.freeze({
  logs: [],
  logsDropped: 0,
  invocations: [],
  retriedAt: [],
}) as RunJournal;
