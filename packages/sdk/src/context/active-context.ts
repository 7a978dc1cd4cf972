import { AsyncLocalStorage } from 'node:async_hooks';

/** The context whose code is running: the handler (`root`), a child context, a step or a check. */
export interface ActiveContext {
  /** `root`, or the id of the child context, step or check whose code runs. */
  readonly contextId: string;
  /** The running operation's name, if it has one. */
  readonly operationName?: string;
  /** The running attempt of a step or check. */
  readonly attempt?: number;
}

// One store for every copy of this module in a process would be nicer, but a second copy of the
// SDK has its own contexts anyway: what matters is that each copy tracks its own.
const storage = new AsyncLocalStorage<ActiveContext>();

/** Runs `fn` with `active` as the running context, through every await inside it. */
export function runInContext<T>(active: ActiveContext, fn: () => T): T {
  return storage.run(active, fn);
}

/** The running context, or undefined outside any handler. */
export function activeContext(): ActiveContext | undefined {
  return storage.getStore();
}
