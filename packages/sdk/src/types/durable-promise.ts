/**
 * A promise that starts its work only when it is awaited or chained (AWS's class).
 *
 * Durable operations return one whose work is already under way (the operation starts at the
 * call, so its id and START do not depend on when it is awaited); awaiting it hands back that
 * work's outcome. A rejection nobody awaits is not reported as unhandled. `new DurablePromise(fn)`
 * defers `fn` itself until the first `then`, `catch`, `finally` or `await`.
 */
export class DurablePromise<T> implements Promise<T> {
  private _promise: Promise<T> | null = null;
  private readonly _executor: () => Promise<T>;
  private _isExecuted = false;

  /** @param executor - the deferred work, called once, on first use. */
  constructor(executor: () => Promise<T>) {
    this._executor = executor;
  }

  private ensureExecution(): Promise<T> {
    if (!this._promise) {
      this._isExecuted = true;
      this._promise = this._executor();
    }
    return this._promise;
  }

  // biome-ignore lint/suspicious/noThenProperty: a DurablePromise is a thenable on purpose, so durable operations can be awaited.
  then<TResult1 = T, TResult2 = never>(
    onfulfilled?: ((value: T) => TResult1 | PromiseLike<TResult1>) | null,
    onrejected?: ((reason: unknown) => TResult2 | PromiseLike<TResult2>) | null,
  ): Promise<TResult1 | TResult2> {
    return this.ensureExecution().then(onfulfilled, onrejected);
  }

  catch<TResult = never>(
    onrejected?: ((reason: unknown) => TResult | PromiseLike<TResult>) | null,
  ): Promise<T | TResult> {
    return this.ensureExecution().catch(onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<T> {
    return this.ensureExecution().finally(onfinally);
  }

  get [Symbol.toStringTag](): string {
    return 'DurablePromise';
  }

  /** True once the promise was awaited or chained. */
  get isExecuted(): boolean {
    return this._isExecuted;
  }
}
