/** What the invocation's decision to suspend knows of the handler's blocked parts. */

/** A part of the handler blocked until a time (or, undefined, an outside event). */
export interface Waiter {
  dueAt: number | undefined;
  resolve: () => void;
  /** Set for a wait: it counts once its promise is awaited. */
  demand: Demand | undefined;
  /** The callback or invoke waited for, when it may end from outside during the invocation. */
  opId?: string | undefined;
}

/**
 * Whether the handler awaits an operation's promise. A wait nobody awaits does not end the
 * invocation (AWS's: its lifecycle stays "idle, not awaited"), so a handler that starts one and
 * returns later, after non-durable work, finishes in this invocation with the wait left STARTED.
 */
export interface Demand {
  awaited: boolean;
}
