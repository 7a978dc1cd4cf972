import type { LambdaContextLike } from '@durable-lambda/protocol';
import type { ChildContextConfig, StepConfig } from '../config';
import type { Duration } from '../duration';
import type { DurableLogger } from '../logger';
import { runChildContext } from '../operations/child-context';
import { runStep } from '../operations/step';
import { runWait } from '../operations/wait';
import type { Scope } from './scope';
import type { ChildFunction, DurableContext, StepFunction } from './types';

/** The `DurableContext` handed to handlers and child-context functions. */
export class DurableContextImpl implements DurableContext {
  constructor(private readonly scope: Scope) {}

  get runId(): string {
    return this.scope.runtime.invocation.runId;
  }

  get lambdaContext(): LambdaContextLike {
    return this.scope.lambdaContext;
  }

  get logger(): DurableLogger {
    return this.scope.runtime.logger;
  }

  step<T>(name: string | undefined, fn: StepFunction<T>, config?: StepConfig<T>): Promise<T>;
  step<T>(fn: StepFunction<T>, config?: StepConfig<T>): Promise<T>;
  step<T>(...args: unknown[]): Promise<T> {
    return runStep<T>(this.scope, args);
  }

  wait(name: string | undefined, duration: Duration): Promise<void>;
  wait(duration: Duration): Promise<void>;
  wait(...args: unknown[]): Promise<void> {
    return runWait(this.scope, args);
  }

  runInChildContext<T>(name: string | undefined, fn: ChildFunction<T>, config?: ChildContextConfig<T>): Promise<T>;
  runInChildContext<T>(fn: ChildFunction<T>, config?: ChildContextConfig<T>): Promise<T>;
  runInChildContext<T>(...args: unknown[]): Promise<T> {
    return runChildContext<T>(this.scope, args);
  }
}
