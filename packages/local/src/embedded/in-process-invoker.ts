import { randomUUID } from 'node:crypto';
import { setImmediate } from 'node:timers';
import { FunctionNotFoundError, type Invoker } from '@durable-lambda/engine';
import type { DurableLambdaHandler } from '@durable-lambda/sdk';

// The invoker port's error, the same class the Lambda invoker throws: exported here as before.
export { FunctionNotFoundError };

/** The error for an invoke of a name not in the registry (code `function_not_found`). */
export function unregisteredFunction(functionName: string): FunctionNotFoundError {
  return new FunctionNotFoundError(functionName, {
    message: `no durable function registered as ${JSON.stringify(functionName)}`,
  });
}

/** Options of an {@link InProcessInvoker}. */
export interface InProcessInvokerOptions {
  /** The durable functions this process runs, by name. */
  functions: ReadonlyMap<string, DurableLambdaHandler>;
  /**
   * Runs one queued invocation. Default: calls the handler as Lambda would, `handler(event,
   * { functionName, awsRequestId })` (it then uses its own configured backend). The
   * `LocalRuntime` gives its own, which runs the invocation on its engine.
   */
  dispatch?(functionName: string, event: unknown): Promise<unknown>;
  /** Where failures of an invocation go. Default: `console.error`. */
  onError?(error: unknown, functionName: string): void;
}

/**
 * The in-process {@link Invoker}: an asynchronous invoke of a registered durable function. The
 * event is copied as JSON (as Lambda would serialize it), queued, and run on a later turn of the
 * event loop, never inside the caller's stack; `invoke` resolves once it is queued. An unknown
 * function is refused at once with a {@link FunctionNotFoundError}. The queue is in memory: an
 * invocation lost to a crash is left to the reconciler (the run it would have run is due in the
 * store, and `LocalRuntime` reconciles at its next start).
 */
export class InProcessInvoker implements Invoker {
  private readonly functions: ReadonlyMap<string, DurableLambdaHandler>;
  private readonly dispatch: (functionName: string, event: unknown) => Promise<unknown>;
  private readonly onError: (error: unknown, functionName: string) => void;
  private readonly queued = new Set<Promise<void>>();

  constructor(options: InProcessInvokerOptions) {
    this.functions = options.functions;
    this.dispatch =
      options.dispatch ??
      ((name, event) => {
        const handler = this.functions.get(name) as DurableLambdaHandler;
        return handler(event, { functionName: name, awsRequestId: randomUUID() });
      });
    this.onError =
      options.onError ?? ((error, name) => console.error(`durable-lambda: invocation of ${name} failed`, error));
  }

  /** Whether `functionName` is registered. */
  knows(functionName: string): boolean {
    return this.functions.has(functionName);
  }

  /** Queues an invocation of `functionName` with a JSON copy of `event`. */
  async invoke(functionName: string, event: unknown): Promise<void> {
    if (!this.knows(functionName)) throw unregisteredFunction(functionName);
    const json = JSON.stringify(event);
    const payload: unknown = json === undefined ? undefined : JSON.parse(json);
    const run = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.dispatch(functionName, payload))
      .then(
        () => undefined,
        (error: unknown) => this.report(error, functionName),
      );
    this.queued.add(run);
    void run.finally(() => this.queued.delete(run));
  }

  private report(error: unknown, functionName: string): void {
    try {
      this.onError(error, functionName);
    } catch (failure) {
      console.error('durable-lambda: an onError handler failed', failure, error);
    }
  }

  /** Resolves once every invocation queued so far (and any queued meanwhile) has finished. */
  async idle(): Promise<void> {
    while (this.queued.size > 0) await Promise.allSettled([...this.queued]);
  }
}
