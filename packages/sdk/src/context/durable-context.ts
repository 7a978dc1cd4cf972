import type { LambdaContextLike } from '@durable-lambda/protocol';
import { parseConfigObject } from '../config';
import { describe } from '../duration';
import { ErrorCode } from '../errors/codes';
import { InvalidArgumentError } from '../errors/invalid-argument';
import { DurableRuntimeFault } from '../errors/runtime-errors';
import { modeAwareLogger } from '../logger';
import { runMap } from '../operations/batch/map';
import { runParallel } from '../operations/batch/parallel';
import { runCreateCallback, runWaitForCallback } from '../operations/callback';
import { runChildContext } from '../operations/child-context';
import { runInvoke } from '../operations/invoke';
import { runDeprecatePatch, runPatched } from '../operations/patch';
import { createPromiseCombinators } from '../operations/promise-combinators';
import { runPublish } from '../operations/publish';
import { runWaitForSignal } from '../operations/signal';
import { runStep } from '../operations/step';
import { runTag } from '../operations/tag';
import { runWait } from '../operations/wait';
import { runWaitForCondition } from '../operations/wait-for-condition';
import { executionArnOf } from '../runtime/execution-arn';
import type { Demand } from '../runtime/waiters';
import type { BatchResult } from '../types/batch';
import type { CreateCallbackResult } from '../types/callback';
import type { DurablePromiseCombinators } from '../types/combinators';
import type { DurableContext } from '../types/durable-context';
import { DurablePromise } from '../types/durable-promise';
import type {
  DurableContextLogger,
  DurableLogData,
  DurableLogger,
  DurableLoggingContext,
  LoggerConfig,
} from '../types/logger';
import type { CompensationReport } from '../types/saga';
import type { SerdesConfig } from '../types/serdes';
import { activeContext } from './active-context';
import type { Scope } from './scope';

const noop = () => {};
const LOGGER_KEYS = ['customLogger', 'modeAware'] as const;
const SERDES_KEYS = ['defaultSerdes', 'defaultCallbackDeserializer'] as const;
const LOG_METHODS = ['error', 'warn', 'info', 'debug'] as const;

/**
 * The `DurableContext` handed to handlers and child-context functions. Every operation starts
 * at the call and returns a {@link DurablePromise} of its outcome (AWS's two phases).
 */
export class DurableContextImpl implements DurableContext {
  private combinators: DurablePromiseCombinators | undefined;
  private contextLogger: DurableContextLogger | undefined;

  constructor(private readonly scope: Scope) {}

  get runId(): string {
    return this.scope.runtime.invocation.runId;
  }

  get executionContext(): { readonly durableExecutionArn: string } {
    return { durableExecutionArn: executionArnOf(this.scope.runtime.invocation) };
  }

  get lambdaContext(): LambdaContextLike {
    return this.scope.lambdaContext;
  }

  get logger(): DurableContextLogger {
    const { scope } = this;
    this.contextLogger ??= modeAwareLogger(
      () => scope.customLogger ?? scope.runtime.logger,
      () => !scope.modeAware || (!scope.runtime.replaying && !scope.rebuilding),
    );
    return this.contextLogger;
  }

  get [Symbol.toStringTag](): string {
    return 'DurableContext';
  }

  step<T>(...args: unknown[]): DurablePromise<T> {
    return this.start('step', () => runStep<T>(this.scope, args));
  }

  compensate(): DurablePromise<CompensationReport> {
    return this.start('compensate', () => this.scope.services.saga.compensate(this.scope));
  }

  wait(...args: unknown[]): DurablePromise<void> {
    // AWS's: a wait nobody awaits does not end the invocation (see `Demand`).
    const demand: Demand = { awaited: false };
    return this.start(
      'wait',
      () => runWait(this.scope, args, demand),
      () => this.scope.runtime.demand(demand),
    );
  }

  runInChildContext<T>(...args: unknown[]): DurablePromise<T> {
    return this.start('runInChildContext', () => runChildContext<T>(this.scope, args));
  }

  createCallback<T = string>(...args: unknown[]): DurablePromise<CreateCallbackResult<T>> {
    return this.start('createCallback', () => runCreateCallback<T>(this.scope, args));
  }

  waitForCallback<T = string>(...args: unknown[]): DurablePromise<T> {
    return this.start('waitForCallback', () => runWaitForCallback<T>(this.scope, args));
  }

  waitForSignal<T = unknown>(...args: unknown[]): DurablePromise<T> {
    return this.start('waitForSignal', () => runWaitForSignal<T>(this.scope, args));
  }

  waitForCondition<T>(...args: unknown[]): DurablePromise<T> {
    return this.start('waitForCondition', () => runWaitForCondition<T>(this.scope, args));
  }

  invoke<TInput, TOutput>(...args: unknown[]): DurablePromise<TOutput> {
    return this.start('invoke', () => runInvoke<TInput, TOutput>(this.scope, args));
  }

  map<TInput, TOutput>(...args: unknown[]): DurablePromise<BatchResult<TOutput>> {
    return this.start('map', () => runMap<TInput, TOutput>(this.scope, args));
  }

  parallel<TOutput>(...args: unknown[]): DurablePromise<BatchResult<TOutput>> {
    return this.start('parallel', () => runParallel<TOutput>(this.scope, args));
  }

  patched(...args: unknown[]): boolean {
    this.refuseMisuse('patched');
    return runPatched(this.scope, args);
  }

  deprecatePatch(...args: unknown[]): void {
    this.refuseMisuse('deprecatePatch');
    runDeprecatePatch(this.scope, args);
  }

  publish(...args: unknown[]): Promise<void> {
    try {
      this.refuseMisuse('publish');
      // Handed over now, not in a later turn: it keeps its order with the checkpoints after it.
      runPublish(this.scope, args);
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  tag(...args: unknown[]): Promise<void> {
    try {
      this.refuseMisuse('tag');
      // Handed over now, as publish: it keeps its order with the checkpoints after it.
      runTag(this.scope, args);
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  get promise(): DurablePromiseCombinators {
    // AWS's combinators run through runInChildContext, so misuse is reported under that name.
    this.combinators ??= createPromiseCombinators(this.scope, (run) => this.start('runInChildContext', run));
    return this.combinators;
  }

  configureLogger(config: LoggerConfig<DurableLogger>): void {
    parseConfigObject(config, 'config', LOGGER_KEYS);
    const { customLogger, modeAware } = config;
    if (customLogger !== undefined) {
      const missing = LOG_METHODS.filter(
        (m) => typeof (customLogger as unknown as Record<string, unknown>)?.[m] !== 'function',
      );
      if (customLogger === null || typeof customLogger !== 'object' || missing.length > 0) {
        throw new InvalidArgumentError(
          'config.customLogger',
          `must be a logger with error, warn, info and debug functions, got ${describe(customLogger)}`,
        );
      }
      this.scope.customLogger = customLogger;
      customLogger.configureDurableLoggingContext?.(this.loggingContext());
    }
    if (modeAware !== undefined) {
      if (typeof modeAware !== 'boolean') {
        throw new InvalidArgumentError('config.modeAware', `must be a boolean, got ${describe(modeAware)}`);
      }
      this.scope.modeAware = modeAware;
    }
  }

  configureSerdes(config: SerdesConfig): void {
    parseConfigObject(config, 'config', SERDES_KEYS);
    const { defaultSerdes, defaultCallbackDeserializer } = config;
    if (defaultSerdes !== undefined) {
      if (typeof defaultSerdes?.serialize !== 'function' || typeof defaultSerdes?.deserialize !== 'function') {
        throw new InvalidArgumentError('config.defaultSerdes', 'must have serialize and deserialize functions');
      }
      this.scope.defaultSerdes = defaultSerdes;
    }
    if (defaultCallbackDeserializer !== undefined) {
      if (typeof defaultCallbackDeserializer?.deserialize !== 'function') {
        throw new InvalidArgumentError('config.defaultCallbackDeserializer', 'must have a deserialize function');
      }
      this.scope.callbackDeserializer = defaultCallbackDeserializer;
    }
  }

  /**
   * Starts an operation unless this context is used where another one runs (AWS's refusal: a
   * parent context inside a child context, a step or a check). Misuse fails the run with AWS's
   * message; the operation never settles, as the invocation has ended.
   */
  private start<T>(operation: string, run: () => Promise<T>, awaited?: () => void): DurablePromise<T> {
    if (this.misuse(operation)) return new DurablePromise(() => new Promise<T>(noop));
    const started = run();
    // The outcome reaches whoever awaits the DurablePromise; an operation nobody awaits must
    // not surface as an unhandled rejection.
    started.catch(noop);
    if (!awaited) return new DurablePromise(() => started);
    return new DurablePromise(() => {
      awaited();
      return started;
    });
  }

  /** The misuse fault (the run is failing with it), or undefined when this context may be used here. */
  private misuse(operation: string): DurableRuntimeFault | undefined {
    const active = activeContext();
    const own = this.scope.parentId ?? 'root';
    if (!active || active.contextId === own) return undefined;
    return this.scope.runtime.failAfterQueued(
      new DurableRuntimeFault(
        ErrorCode.CONTEXT_MISUSE,
        `Context usage error in "${operation}": You are using a parent or sibling context instead of the current child context. Expected context ID: "${active.contextId}", but got: "${this.scope.parentId}". When inside runInChildContext(), you must use the child context parameter, not the parent context.`,
      ),
    );
  }

  /** For the synchronous operations: misuse throws, as there is no promise to leave unsettled. */
  private refuseMisuse(operation: string): void {
    const fault = this.misuse(operation);
    if (fault) throw fault;
  }

  private loggingContext(): DurableLoggingContext {
    const runtime = this.scope.runtime;
    const lambdaContext: LambdaContextLike & { tenantId?: string } = this.scope.lambdaContext;
    const requestId = lambdaContext.awsRequestId ?? '';
    return {
      getDurableLogData: (): DurableLogData => {
        const active = activeContext();
        const inOperation = active !== undefined && active.contextId !== 'root';
        // AWS's keys: these four are always there (undefined when unknown), so a custom
        // logger's `toEqual` on them holds on both SDKs.
        const data: DurableLogData = {
          executionArn: executionArnOf(runtime.invocation),
          requestId,
          tenantId: lambdaContext.tenantId,
          operationId: inOperation ? active.contextId : undefined,
        };
        if (inOperation && active.operationName !== undefined) data.operationName = active.operationName;
        if (active?.attempt !== undefined) data.attempt = active.attempt;
        return data;
      },
    };
  }
}
