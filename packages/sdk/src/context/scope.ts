import type { LambdaContextLike } from '@durable-lambda/protocol';
import type { StepSemantics } from '../config';
import type { RetrySettings } from '../retry';
import type { InvocationRuntime } from '../runtime/invocation-runtime';

/** The function-level defaults every step falls back to, validated once. */
export interface FunctionDefaults {
  retry: RetrySettings | undefined;
  timeoutMs: number | undefined;
  semantics: StepSemantics | undefined;
}

/**
 * Where an operation runs: the invocation, the id prefix of its context, and the defaults.
 * Ids are positional per context ("3", child "3-1", grandchild "3-1-2"), so the same code
 * produces the same ids on every replay.
 */
export class Scope {
  private counter = 0;

  constructor(
    readonly runtime: InvocationRuntime,
    readonly defaults: FunctionDefaults,
    readonly lambdaContext: LambdaContextLike,
    /** The id of the context operation this scope belongs to; undefined at the root. */
    readonly parentId: string | undefined,
  ) {}

  /** The id of the next operation started in this scope. */
  nextId(): string {
    this.counter++;
    return this.parentId === undefined ? String(this.counter) : `${this.parentId}-${this.counter}`;
  }

  /** A scope for the children of the context operation `id`. */
  child(id: string): Scope {
    return new Scope(this.runtime, this.defaults, this.lambdaContext, id);
  }
}
