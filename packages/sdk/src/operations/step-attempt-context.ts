/**
 * What a step's code is handed for one attempt (`StepContext`): its idempotency key, an abort
 * signal made on first read (the step's timeout aborts it), a logger made on first read, the
 * events it emits (the outbox) and its transactional writer.
 */
import {
  incarnationId,
  MAX_OUTBOX_EVENTS,
  type OutboxEvent,
  type StoredOutboxEvent,
  storedOutboxEvent,
} from '@durable-lambda/protocol';
import type { Scope } from '../context/scope';
import { InvalidArgumentError } from '../errors/invalid-argument';
import { createLogger, requestIdOf } from '../logger';
import { executionArnOf } from '../runtime/execution-arn';
import type { StepContext, TransactWriter } from '../types/step';

/**
 * The {@link StepContext} of one attempt. Its signal and logger are made when the step's code
 * first reads them: most steps never do, and each cost more than the rest of a short step's own
 * work (a class, not an object literal with getters, which costs as much again to create).
 */
export class AttemptContext implements StepContext {
  readonly idempotencyKey: string;
  // #private: logging or serialising the context shows only its own fields, never the scope.
  readonly #scope: Scope;
  readonly #name: string | undefined;
  readonly #id: string;
  readonly #controller: LazyAbort;
  #logger: StepContext['logger'] | undefined;
  readonly #emitted: StoredOutboxEvent[] = [];

  constructor(
    scope: Scope,
    name: string | undefined,
    id: string,
    readonly attempt: number,
    controller: LazyAbort,
    /** The step's writes to the user's tables (`{ transact: true }`), committed with its outcome. */
    readonly tx: TransactWriter,
  ) {
    // The run's incarnation too: a run key reused after retention makes a new run under the same id.
    const { runId, incarnation } = scope.runtime.invocation;
    this.idempotencyKey = `${incarnationId(runId, incarnation)}:${id}:${attempt}`;
    this.#scope = scope;
    this.#name = name;
    this.#id = id;
    this.#controller = controller;
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  emit(event: OutboxEvent): void {
    const index = this.#emitted.length;
    if (index >= MAX_OUTBOX_EVENTS) {
      throw new InvalidArgumentError(`emit[${index}]`, `at most ${MAX_OUTBOX_EVENTS} events per step`);
    }
    this.#emitted.push(storedOutboxEvent(event, `emit[${index}]`, this.#id));
  }

  /** The events this attempt emitted, stored form. */
  emitted(): StoredOutboxEvent[] {
    return this.#emitted;
  }

  /** A custom logger (configureLogger) gets the step's lines as they are, as in AWS's SDK. */
  get logger(): StepContext['logger'] {
    const scope = this.#scope;
    this.#logger ??=
      scope.customLogger ??
      createLogger(
        scope.runtime.settings.logSink,
        {
          runId: scope.runtime.invocation.runId,
          executionArn: executionArnOf(scope.runtime.invocation),
          ...requestIdOf(scope.lambdaContext),
          operationId: this.#id,
          ...(this.#name === undefined ? {} : { operationName: this.#name }),
          attempt: this.attempt,
        },
        () => true,
        () => scope.plugin.enrichLogContext(),
      );
    return this.#logger;
  }
}

/** An AbortController made on first use: `abort` before anyone read the signal still aborts it. */
export class LazyAbort {
  private controller: AbortController | undefined;
  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    return this.controller.signal;
  }
  abort(reason: unknown): void {
    this.controller ??= new AbortController();
    this.controller.abort(reason);
  }
}
