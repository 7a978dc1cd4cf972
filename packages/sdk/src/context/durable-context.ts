import type { LambdaContextLike } from '@durable-lambda/protocol';
import type { ChildContextConfig, StepConfig } from '../config';
import type { Duration } from '../duration';
import type { DurableLogger } from '../logger';
import { runMap } from '../operations/batch/map';
import { runParallel } from '../operations/batch/parallel';
import type {
  BatchResult,
  MapConfig,
  MapFunction,
  NamedParallelBranch,
  ParallelConfig,
  ParallelFunction,
} from '../operations/batch/types';
import {
  type CreateCallbackConfig,
  type CreateCallbackResult,
  runCreateCallback,
  runWaitForCallback,
  type WaitForCallbackConfig,
  type WaitForCallbackSubmitter,
} from '../operations/callback';
import { runChildContext } from '../operations/child-context';
import { type InvokeConfig, runInvoke } from '../operations/invoke';
import { createPromiseCombinators, type DurablePromiseCombinators } from '../operations/promise-combinators';
import { runStep } from '../operations/step';
import { runWait } from '../operations/wait';
import {
  runWaitForCondition,
  type WaitForConditionCheck,
  type WaitForConditionConfig,
} from '../operations/wait-for-condition';
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

  createCallback<T = string>(
    name: string | undefined,
    config?: CreateCallbackConfig<T>,
  ): Promise<CreateCallbackResult<T>>;
  createCallback<T = string>(config?: CreateCallbackConfig<T>): Promise<CreateCallbackResult<T>>;
  createCallback<T = string>(...args: unknown[]): Promise<CreateCallbackResult<T>> {
    return runCreateCallback<T>(this.scope, args);
  }

  waitForCallback<T = string>(
    name: string | undefined,
    submitter: WaitForCallbackSubmitter,
    config?: WaitForCallbackConfig<T>,
  ): Promise<T>;
  waitForCallback<T = string>(submitter: WaitForCallbackSubmitter, config?: WaitForCallbackConfig<T>): Promise<T>;
  waitForCallback<T = string>(...args: unknown[]): Promise<T> {
    return runWaitForCallback<T>(this.scope, args);
  }

  waitForCondition<T>(
    name: string | undefined,
    check: WaitForConditionCheck<T>,
    config: WaitForConditionConfig<T>,
  ): Promise<T>;
  waitForCondition<T>(check: WaitForConditionCheck<T>, config: WaitForConditionConfig<T>): Promise<T>;
  waitForCondition<T>(...args: unknown[]): Promise<T> {
    return runWaitForCondition<T>(this.scope, args);
  }

  invoke<TInput, TOutput>(
    name: string,
    functionId: string,
    input?: TInput,
    config?: InvokeConfig<TInput, TOutput>,
  ): Promise<TOutput>;
  invoke<TInput, TOutput>(functionId: string, input?: TInput, config?: InvokeConfig<TInput, TOutput>): Promise<TOutput>;
  invoke<TInput, TOutput>(...args: unknown[]): Promise<TOutput> {
    return runInvoke<TInput, TOutput>(this.scope, args);
  }

  map<TInput, TOutput>(
    name: string | undefined,
    items: TInput[],
    fn: MapFunction<TInput, TOutput>,
    config?: MapConfig<TInput, TOutput>,
  ): Promise<BatchResult<TOutput>>;
  map<TInput, TOutput>(
    items: TInput[],
    fn: MapFunction<TInput, TOutput>,
    config?: MapConfig<TInput, TOutput>,
  ): Promise<BatchResult<TOutput>>;
  map<TInput, TOutput>(...args: unknown[]): Promise<BatchResult<TOutput>> {
    return runMap<TInput, TOutput>(this.scope, args);
  }

  parallel<TOutput>(
    name: string | undefined,
    branches: Array<ParallelFunction<TOutput> | NamedParallelBranch<TOutput>>,
    config?: ParallelConfig<TOutput>,
  ): Promise<BatchResult<TOutput>>;
  parallel<TOutput>(
    branches: Array<ParallelFunction<TOutput> | NamedParallelBranch<TOutput>>,
    config?: ParallelConfig<TOutput>,
  ): Promise<BatchResult<TOutput>>;
  parallel<TOutput>(...args: unknown[]): Promise<BatchResult<TOutput>> {
    return runParallel<TOutput>(this.scope, args);
  }

  private combinators: DurablePromiseCombinators | undefined;

  get promise(): DurablePromiseCombinators {
    this.combinators ??= createPromiseCombinators(this.scope);
    return this.combinators;
  }
}
