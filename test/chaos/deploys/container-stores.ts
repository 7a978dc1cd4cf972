/**
 * The stores of the deploy world. Every invocation (container) gets a store of its own, as a
 * Lambda container builds its backend: it pins the runs it leases where its code runs, and its
 * calls fail as the container's faults say (a throttled or lost call, a process killed between two
 * calls). They share one table: a `MemoryStore`, or a table of DynamoDB Local.
 */
import {
  DynamoDbStore,
  type DynamoDbStoreOptions,
  type PinnedRunStore,
  PinningStore,
  pinnedGrant,
  type RunningCode,
  type VersionPinning,
} from '@durable-lambda/aws';
import { type LeaseGrant, MemoryStore, type RunRecord, type Store } from '@durable-lambda/engine';
import type { VirtualClock } from '@durable-lambda/local';
import { ProcessKilled } from './sim-functions';

/** A store call that failed by injection: refused (`throw`), or done with its answer lost (`lost`). */
export class InjectedStoreFault extends Error {
  override readonly name = 'InjectedStoreFault';
}

/** What a container's calls meet. */
export interface ContainerFaults {
  /** False once the container's process was killed: every call fails from then on. */
  alive(): boolean;
  /** Called before each store call: may kill the process (then the call fails). */
  beforeCall(method: string): void;
  /** A store call's fault, if any. */
  storeFault(method: string): 'throw' | 'lost' | undefined;
  /** The pin write's fault, if any (the rename a first lease makes). */
  pinWriteFault(): 'throw' | 'lost' | undefined;
}

/** No faults: the control API, the reconciler, the checks. */
export const NO_FAULTS: ContainerFaults = {
  alive: () => true,
  beforeCall: () => {},
  storeFault: () => undefined,
  pinWriteFault: () => undefined,
};

/** The stores of one world. */
export interface StoreKit {
  /** The table as the control API and the checks read it (no faults, no pinning). */
  readonly shared: Store;
  /** A container's store: pins with `pinning`, fails by `faults`. */
  container(pinning: VersionPinning, faults: ContainerFaults): PinnedRunStore;
}

const STORE_METHODS = new Set([
  'createRun',
  'getRun',
  'acquireLease',
  'findDueRuns',
  'loadOperations',
  'loadReplayOperations',
  'getOperation',
  'loadOperationPage',
  'listRuns',
  'reviseRun',
  'claimIdempotencyKey',
  'completeIdempotencyKey',
  'releaseIdempotencyKey',
  'writeOutsideEvent',
  'commit',
  'readAhead',
]);

/** `store` with `faults` at its boundary (the engine's calls; the store's own inner calls are not). */
export function faultyStore(store: PinnedRunStore, faults: ContainerFaults): PinnedRunStore {
  return new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      if (typeof prop !== 'string' || !STORE_METHODS.has(prop)) return method.bind(target);
      return async (...args: unknown[]) => {
        faults.beforeCall(prop);
        if (!faults.alive()) throw new ProcessKilled();
        const fault = faults.storeFault(prop);
        if (fault === 'throw') throw new InjectedStoreFault(`${prop} throttled`);
        const answer = await method.apply(target, args);
        if (!faults.alive()) throw new ProcessKilled();
        if (fault === 'lost') throw new InjectedStoreFault(`${prop} answer lost`);
        return answer;
      };
    },
  });
}

/** One `MemoryStore`; each container's view pins runs by renaming them in place, as DynamoDB's conditional write would. */
export function memoryKit(clock: VirtualClock): StoreKit {
  const shared = new MemoryStore(clock);
  // The memory store keeps its records in a map and changes them in place; the rename is one
  // synchronous check-and-set on the record, as atomic as DynamoDB's conditional update.
  const records = (shared as unknown as { runs: Map<string, RunRecord> }).runs;
  if (!(records instanceof Map)) throw new Error('memoryKit: MemoryStore no longer keeps its runs in `runs`');
  return {
    shared,
    container(pinning, faults) {
      let code: RunningCode | undefined;
      let primed: RunRecord | undefined;
      const rename = async (runId: string, from: string, to: string, token: string) => {
        const fault = faults.pinWriteFault();
        if (fault === 'throw') throw new InjectedStoreFault('pin write throttled');
        const run = records.get(runId);
        if (run?.functionName === from && run.leaseToken === token && run.status === 'RUNNING') run.functionName = to;
        const renamed = records.get(runId)?.functionName === to;
        if (fault === 'lost') throw new InjectedStoreFault('pin write answer lost');
        return renamed;
      };
      const own: Partial<PinnedRunStore> = {
        runningOn(running: RunningCode) {
          code = running;
          primed = undefined;
        },
        async readAhead(runId: string) {
          primed = await shared.getRun(runId);
          return primed;
        },
        async getRun(runId: string) {
          const read = primed;
          primed = undefined;
          return read?.runId === runId ? read : shared.getRun(runId);
        },
        async acquireLease(runId: string, now: number, leaseExpiresAt: number, leaseToken: string) {
          primed = undefined;
          const grant: LeaseGrant | undefined = await shared.acquireLease(runId, now, leaseExpiresAt, leaseToken);
          if (!grant || !code) return grant;
          return pinnedGrant(grant, leaseToken, code, pinning, rename);
        },
      };
      return new Proxy(shared, {
        get(target, prop) {
          if (typeof prop === 'string' && Object.hasOwn(own, prop)) return own[prop as keyof PinnedRunStore];
          const value = Reflect.get(target, prop, target) as unknown;
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      }) as unknown as PinnedRunStore;
    },
  };
}

/**
 * One table of DynamoDB Local; each container's store is the production `PinningStore` (through
 * `client`: the light client, as deployed, or the AWS SDK's document client), its pin write (the
 * rename of its first lease) failing by the container's faults.
 */
export function dynamoDbKit(client: DynamoDbStoreOptions['client'], tableName: string, clock: VirtualClock): StoreKit {
  return {
    shared: new DynamoDbStore({ client, tableName, clock }),
    container(pinning, faults) {
      const faulty = new Proxy(client, {
        get(target, prop) {
          const value = Reflect.get(target, prop, target) as unknown;
          if (prop !== 'send') {
            return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
          }
          return async (command: { input?: { UpdateExpression?: unknown } }, ...rest: unknown[]) => {
            const pinWrite =
              typeof command.input?.UpdateExpression === 'string' &&
              command.input.UpdateExpression.startsWith('SET #fn');
            const fault = pinWrite ? faults.pinWriteFault() : undefined;
            if (fault === 'throw') throw new InjectedStoreFault('pin write throttled');
            const answer = await (target.send as (...a: unknown[]) => Promise<unknown>).call(target, command, ...rest);
            if (fault === 'lost') throw new InjectedStoreFault('pin write answer lost');
            return answer;
          };
        },
      });
      return new PinningStore({ client: faulty, tableName, clock }, pinning);
    },
  };
}
