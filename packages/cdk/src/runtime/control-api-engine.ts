/**
 * The engine of the control API's Lambda entry (`control-api-entry.ts`), apart from the entry's
 * environment so the chaos suite's deploy world runs the very same one.
 */
import { LambdaVersionPolicy } from '@durable-lambda/aws';
import {
  type Clock,
  Engine,
  type EngineOptions,
  type Invoker,
  systemClock,
  type WakeRequest,
  type Waker,
  wakeEvent,
} from '@durable-lambda/engine';

/** How far ahead a wake-up may be asked for: the API only ever wakes runs now. */
const IMMEDIATE_WITHIN_MS = 2_000;

/**
 * The API's waker. The control API wakes a run only to have it act now (a callback completed, a
 * retry, a child run cancelled), so a wake-up is an asynchronous invoke of the run's function
 * (its recorded name: `orders:7` reaches version 7, `orders:$LATEST` the unqualified function).
 * Scheduling later wake-ups is the functions' own business (their schedule groups); one asked of
 * the API is an error rather than an early wake-up that would find nothing due.
 */
export function immediateInvokeWaker(
  invoker: Invoker,
  clock: Clock = systemClock,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Waker {
  return {
    async wakeAt(request: WakeRequest) {
      const delay = request.at - clock.now();
      if (delay > IMMEDIATE_WITHIN_MS) {
        throw new Error(
          `durable-lambda control API: cannot schedule a wake-up ${delay} ms ahead (run ${request.runId})`,
        );
      }
      if (delay > 0) await sleep(delay);
      await invoker.invoke(request.functionName, wakeEvent(request.runId));
    },
  };
}

/** Options of {@link controlApiEngine}: the engine's, less its version policy, and the aliases. */
export interface ControlApiEngineOptions extends Omit<EngineOptions, 'versions'> {
  /** Function name to the alias its runs start on (`DURABLE_API_ALIASES`). */
  aliases: Readonly<Record<string, string>>;
}

/**
 * The control API's engine: it starts runs on their function's alias, so a run started as
 * `orders` is recorded as `orders:live` (its first invocation, on the version the alias points
 * at, pins it there). A run that opted into `$LATEST` (`orders:$LATEST`) or names a qualifier is
 * started as asked; a start repeated after the run was pinned finds it. It runs no code, so its
 * version policy hands nothing over and pins nothing (see `LambdaVersionPolicy`).
 */
export function controlApiEngine(options: ControlApiEngineOptions): Engine {
  const { aliases, ...engine } = options;
  return new Engine({ ...engine, versions: new LambdaVersionPolicy({ pinning: 'version', startOnAliases: aliases }) });
}
