/**
 * The run meter on AWS: what one invocation consumed, tallied while it runs and added to its run
 * by its last write (see the engine's `run-meter.ts`).
 *
 * Attribution: the production backend runs everything an invocation does (its open, each
 * checkpoint, its close) inside an `AsyncLocalStorage` scope holding the invocation's
 * {@link InvocationTally}, so the DynamoDB middleware (`consumed-capacity.ts`) and the wakers and
 * the invoker add to the tally of the invocation they work for, however many a container runs.
 *
 * Where each figure comes from:
 * - `invocations`, `billedMs`, `mbMs`: one invocation, from the backend's `open` (the handler's
 *   start) to its last write, times the function's memory (`context.memoryLimitInMB`, else
 *   `AWS_LAMBDA_FUNCTION_MEMORY_SIZE`), rounded up to the ms as Lambda bills. What runs after the
 *   last write (the wake-up request, returning) is not in it, beyond the estimate below.
 * - `wru`, `rru`: every DynamoDB request of the invocation, as DynamoDB answers it. The last write
 *   cannot carry its own capacity (known only once it is sent): it is estimated by DynamoDB's
 *   rules from what it changes (`estimateRunUpdateUnits`: the item's size as the invocation's
 *   previous `UpdateItem` of it measured, 1 KB without one, plus the index entries the patch
 *   moves, by the table's own index definitions), and its round trip as that update's. Exact on
 *   DynamoDB Local for the writes the tests make; an item that grows past a KB boundary in that
 *   write is the estimate's usual shortfall (1 WRU).
 * - `sqsRequests`, `schedulerRequests`, `schedulerInvocations`, `lambdaInvokes`: counted where the
 *   wakers and the invoker make their calls (`countConsumed`); the wake-up the last write asks for
 *   is sent after it, so it is priced beforehand by the waker's route (`OnTimeWaker.cost`) and the
 *   calls made once the tally is settled are not counted again.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';
import {
  addToMeter,
  type EngineSession,
  type InvocationMeter,
  type LastWrite,
  type RunMeter,
  type RunMeterIncrement,
  type RunPatch,
  type RunRecord,
  type WakeRequest,
} from '@durable-lambda/engine';
import type { DurableBackend } from '@durable-lambda/protocol';
import type { ConsumedCapacity } from './consumed-capacity';
import { estimateRunUpdateUnits } from './dynamodb/run-update-units';

/** Options of an {@link InvocationTally}. */
export interface InvocationTallyOptions {
  /** The function's memory, MB; without it `mbMs` is not counted. */
  memoryMb?: number;
  /** What the wake-up asked for right after the last write will cost (its route's calls). */
  wakeCost?(wake: WakeRequest): RunMeterIncrement;
  /** The last write's units, from the run and its patch (default: DynamoDB's rules for the run item). */
  estimateLastWrite?(run: RunRecord, patch: RunPatch, itemUnits: number): number;
  /** Real time, ms (default `performance.now`). */
  now?(): number;
}

/** One invocation's consumption while it runs; settled once, by its last write. */
export class InvocationTally implements InvocationMeter {
  private readonly now: () => number;
  private readonly startedAt: number;
  private counted: RunMeter = { invocations: 0, billedMs: 0 };
  /** The previous `UpdateItem` (the run item's last write): the estimate of the last write. */
  private lastUpdate: { wru: number; tableUnits: number; ms: number } | undefined;
  private settled = false;

  constructor(private readonly options: InvocationTallyOptions = {}) {
    this.now = options.now ?? (() => performance.now());
    this.startedAt = this.now();
  }

  /** Adds calls made for the invocation (ignored once settled: the last write already priced them). */
  add(increment: RunMeterIncrement): void {
    if (!this.settled) this.counted = addToMeter(this.counted, increment);
  }

  /** Adds a DynamoDB request's capacity (from `measureConsumedCapacity`). */
  addDynamoDb(consumed: ConsumedCapacity): void {
    if (this.settled) return;
    this.add({ wru: consumed.wru, rru: consumed.rru });
    if (consumed.command === 'UpdateItemCommand' && !consumed.refused) {
      this.lastUpdate = { wru: consumed.wru, tableUnits: consumed.tableUnits, ms: consumed.ms };
    }
  }

  /** What the invocation consumed, with the last write's estimate and `wake`'s cost (see the module). */
  settle(wake?: WakeRequest, last?: LastWrite): RunMeterIncrement {
    if (this.settled) return {};
    this.settled = true;
    const previous = this.lastUpdate;
    const estimate = this.options.estimateLastWrite ?? estimateRunUpdateUnits;
    const close = {
      wru: last ? estimate(last.run, last.patch, previous?.tableUnits ?? 1) : (previous?.wru ?? 1),
      ms: previous?.ms ?? 0,
    };
    const billedMs = Math.max(1, Math.ceil(this.now() - this.startedAt + close.ms));
    const memoryMb = this.options.memoryMb;
    let total = addToMeter(this.counted, {
      invocations: 1,
      billedMs,
      wru: close.wru,
      ...(memoryMb === undefined ? {} : { mbMs: billedMs * memoryMb }),
    });
    if (wake && this.options.wakeCost) total = addToMeter(total, this.options.wakeCost(wake));
    return total;
  }
}

const scope = new AsyncLocalStorage<InvocationTally>();

/** The tally of the invocation the caller works for, if any. */
export function currentTally(): InvocationTally | undefined {
  return scope.getStore();
}

/** Runs `body` for `tally`: what it (and all it awaits) consumes is added to it. */
export function withTally<T>(tally: InvocationTally, body: () => T): T {
  return scope.run(tally, body);
}

/** Counts calls made for the current invocation (nothing outside one: the reconciler, a tool). */
export function countConsumed(increment: RunMeterIncrement): void {
  scope.getStore()?.add(increment);
}

/** The function's memory, MB: Lambda's context says it (a string), else the runtime's environment. */
export function functionMemoryMb(
  context: { memoryLimitInMB?: string | number },
  env: Record<string, string | undefined> = process.env,
): number | undefined {
  for (const raw of [context.memoryLimitInMB, env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE]) {
    const mb = typeof raw === 'number' ? raw : typeof raw === 'string' ? Number(raw) : Number.NaN;
    if (Number.isInteger(mb) && mb > 0) return mb;
  }
  return undefined;
}

const proxies = new WeakMap<object, object>();

/**
 * `target` (an opened invocation, or its `invocation`) with every method run inside `tally`'s
 * scope, so what the handler's checkpoints and the close consume is the invocation's. Everything
 * else reads through unchanged (a Proxy: the engine's extra methods stay reachable).
 */
export function inTally<T extends object>(target: T, tally: InvocationTally): T {
  const known = proxies.get(target);
  if (known) return known as T;
  const proxy = new Proxy(target, {
    get(inner, property) {
      const value: unknown = Reflect.get(inner, property, inner);
      if (property === 'invocation' && typeof value === 'object' && value !== null) return inTally(value, tally);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => withTally(tally, () => (value as (...a: unknown[]) => unknown).apply(inner, args));
    },
  });
  proxies.set(target, proxy);
  return proxy;
}

type Opened = Awaited<ReturnType<DurableBackend['open']>>;

/**
 * Opens an invocation with a tally of its own (or, inside another open, the caller's: the wake-up
 * queue's receiver opens the run within the batch's invocation): `open` runs in its scope, the
 * engine's session measures with it (`meterWith`), and the invocation handed back runs its
 * checkpoints and close in it. An open that opens nothing records nothing.
 */
export async function meteredOpen(open: () => Promise<Opened>, options: InvocationTallyOptions): Promise<Opened> {
  const outer = currentTally();
  const tally = outer ?? new InvocationTally(options);
  const opened = await withTally(tally, open);
  if (!opened.opened) return opened;
  const session = opened.opened as Partial<Pick<EngineSession, 'meterWith'>>;
  if (typeof session.meterWith === 'function') session.meterWith(tally);
  return outer ? opened : { opened: inTally(opened.opened, tally) };
}
