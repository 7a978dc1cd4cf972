/**
 * The `VersionPolicy` port: which code a run runs on. The engine asks it at the three points where
 * a run meets code (a run starts, an invocation reads the run it is to open, an invocation has just
 * leased it) and enforces its answers; a backend without code versions (memory, SQLite, the test
 * runner, the dev server) uses {@link noVersionPinning}, and the AWS package gives Lambda's
 * version/alias policy. Where a wake-up, retry or child invoke of a recorded name is delivered is
 * the invoker's and waker's business (they target the name the run is recorded under).
 */
import type { LeaseGrant, Store } from './ports';

/**
 * Who starts a run: `event`, the invocation whose code runs it at once (a Lambda start event,
 * `Engine.open`); `request`, anyone else (the control API, a parent's chained invoke).
 */
export type RunStartOrigin = 'event' | 'request';

/**
 * Where runs run. Every method is synchronous and reads nothing: the policy judges the names the
 * engine hands it (a run's recorded `functionName`, which may carry a qualifier the policy gives
 * it, as `orders:7`), with what it knows of the invocation running now.
 */
export interface VersionPolicy {
  /** The name a run asked for as `functionName` is recorded under when `origin` starts it. */
  nameAtStart(functionName: string, origin: RunStartOrigin): string;
  /**
   * Whether a run recorded as `recorded` is the run a start asking for `asked` names, as far as
   * its function goes: a run key reused by a start that differs only in where the run is pinned
   * (asked `orders` or `orders:live`, recorded `orders:7` since its first invocation) finds it.
   */
  sameFunction(recorded: string, asked: string): boolean;
  /**
   * The name to hand a run recorded as `recorded` to (an asynchronous invoke with its wake-up
   * event) instead of opening it in this invocation, or undefined: it may run here.
   */
  runsElsewhere(recorded: string): string | undefined;
  /**
   * The name a run recorded as `recorded`, just leased by this invocation, is re-recorded under
   * before anything of it runs ({@link Store.pinRun}), or undefined to keep it. A run whose pin
   * is not written is released unrun, so it never runs unpinned.
   */
  pinAtLease(recorded: string): string | undefined;
}

/** No pinning: runs are recorded as asked and run wherever they are opened. */
export const noVersionPinning: VersionPolicy = {
  nameAtStart: (functionName) => functionName,
  sameFunction: (recorded, asked) => recorded === asked,
  runsElsewhere: () => undefined,
  pinAtLease: () => undefined,
};

/**
 * `grant` pinned where `policy` wants a run leased here: re-recorded by the store's conditional
 * {@link Store.pinRun} when the policy names a pin, the grant's run renamed once written. A store
 * without `pinRun`, or a pin write that fails or throws, leaves the name as it was (the engine then
 * finds it still to pin and releases the run unrun).
 */
export async function pinLeased(
  store: Store,
  policy: VersionPolicy,
  grant: LeaseGrant,
  leaseToken: string,
): Promise<LeaseGrant> {
  const from = grant.run.functionName;
  const to = policy.pinAtLease(from);
  if (to === undefined || !store.pinRun) return grant;
  const pinned = await store.pinRun(grant.run.runId, from, to, leaseToken).catch(() => false);
  return pinned ? { ...grant, run: { ...grant.run, functionName: to } } : grant;
}
