/**
 * The stores of the deploy world. Every invocation (container) gets a store of its own, as a
 * Lambda container builds its backend: its calls fail as the container's faults say (a throttled
 * or lost call, a process killed between two calls), its pin write (`Store.pinRun`, which the
 * engine's version policy asks for at a run's first lease) too. They share one table: a
 * `MemoryStore`, or a table of DynamoDB Local.
 */
import { DynamoDbStore, type DynamoDbStoreOptions } from '@durable-lambda/aws';
import { MemoryStore, type Store } from '@durable-lambda/engine';
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
  /** A container's store: its pin writes fail by `faults` (its other calls: see {@link faultyStore}). */
  container(faults: ContainerFaults): Store;
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
]);

/** `store` with `faults` at its boundary (the engine's calls; the store's own inner calls are not). */
export function faultyStore(store: Store, faults: ContainerFaults): Store {
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

/** One `MemoryStore`; each container's view fails its pin writes by the container's faults. */
export function memoryKit(clock: VirtualClock): StoreKit {
  const shared = new MemoryStore(clock);
  return {
    shared,
    container(faults) {
      // The memory store's pin is one synchronous check-and-set on the record, as atomic as
      // DynamoDB's conditional update; a lost answer is the write done, its answer thrown away.
      const pinRun = async (runId: string, from: string, to: string, token: string) => {
        const fault = faults.pinWriteFault();
        if (fault === 'throw') throw new InjectedStoreFault('pin write throttled');
        const pinned = await shared.pinRun(runId, from, to, token);
        if (fault === 'lost') throw new InjectedStoreFault('pin write answer lost');
        return pinned;
      };
      return new Proxy(shared, {
        get(target, prop) {
          if (prop === 'pinRun') return pinRun;
          const value = Reflect.get(target, prop, target) as unknown;
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
    },
  };
}

/**
 * One table of DynamoDB Local; each container's store is the production `DynamoDbStore` (through
 * `client`: the light client, as deployed, or the AWS SDK's document client), its pin write (the
 * rename of a first lease, `pinRun`) failing by the container's faults.
 */
export function dynamoDbKit(client: DynamoDbStoreOptions['client'], tableName: string, clock: VirtualClock): StoreKit {
  return {
    shared: new DynamoDbStore({ client, tableName, clock }),
    container(faults) {
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
      return new DynamoDbStore({ client: faulty, tableName, clock });
    },
  };
}
