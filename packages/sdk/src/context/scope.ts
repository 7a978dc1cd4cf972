import type { LambdaContextLike } from '@durable-lambda/protocol';
import type { PluginRunner } from '../plugins/runner';
import type { RetrySettings } from '../retry';
import type { InvocationRuntime } from '../runtime/invocation-runtime';
import type { PlannedCompensation } from '../saga/compensation-config';
import type { DurableContext } from '../types/durable-context';
import type { DurableLogger } from '../types/logger';
import type { CompensationReport } from '../types/saga';
import type { AnySerdesDeserializer, Serdes } from '../types/serdes';
import type { StepSemantics } from '../types/step';

/** The function-level defaults every step falls back to, validated once. */
export interface FunctionDefaults {
  retry: RetrySettings | undefined;
  timeoutMs: number | undefined;
  semantics: StepSemantics | undefined;
}

/** What every scope of one invocation shares. */
export interface ScopeServices {
  readonly runtime: InvocationRuntime;
  readonly defaults: FunctionDefaults;
  readonly lambdaContext: LambdaContextLike;
  readonly plugin: PluginRunner;
  /** Builds the `DurableContext` of a scope; injected so operations never import the context class. */
  readonly makeContext: (scope: Scope) => DurableContext;
  /** The run's compensations, shared by all its contexts (see `context.compensate`). */
  readonly saga: CompensationRegistry;
}

/** The run's compensations (see `saga/saga.ts`), as the operations use them. */
export interface CompensationRegistry {
  /** Registers the undo of step `id`, to run once `outcome` has succeeded. */
  register(id: string, name: string | undefined, compensation: PlannedCompensation, outcome: Promise<unknown>): void;
  /** Whether a step of context `id` (or of a context within it) registered a compensation. */
  registeredUnder(id: string): boolean;
  /**
   * Runs, in `scope`, the compensations not run yet (only those of steps under context `under`
   * when given); returns what the run has undone so far.
   */
  compensate(scope: Scope, under?: string): Promise<CompensationReport>;
}

/** What a child scope takes over from its parent when it is created (AWS's inheritance). */
interface Inherited {
  logger: DurableLogger | undefined;
  serdes: Serdes<unknown> | undefined;
  callbackDeserializer: AnySerdesDeserializer | undefined;
  rebuilding: boolean;
  compensable: boolean;
}

/**
 * Where an operation runs: the invocation, the id prefix of its context, and the defaults.
 * Ids are positional per context ("3", child "3-1", grandchild "3-1-2"), so the same code
 * produces the same ids on every replay.
 */
export class Scope {
  private counter = 0;
  /** The custom logger set by `configureLogger` (here or on an ancestor before this scope began). */
  customLogger: DurableLogger | undefined;
  /** Whether the context logger is silent while replaying (`configureLogger({ modeAware })`). */
  modeAware = true;
  /** The default serdes set by `configureSerdes`. */
  defaultSerdes: Serdes<unknown> | undefined;
  /** The default callback deserializer set by `configureSerdes`. */
  callbackDeserializer: AnySerdesDeserializer | undefined;
  /**
   * True inside a finished context run again to rebuild a result too large to store (AWS's
   * ReplaySucceededContext): all of it is replay, so mode-aware loggers stay silent.
   */
  rebuilding = false;
  /**
   * Whether a step here may register a compensation: only where a finished context's body runs
   * again on replay (the root, `runInChildContext`), so the undo is registered again. A map,
   * parallel or waitForCallback context, or one storing its large result, replays from its
   * stored result alone.
   */
  compensable = true;

  /**
   * The `ParentId` its operations are recorded under: `parentId`, except in a virtual scope
   * (a FLAT map item or parallel branch), which records nothing of its own, so its operations
   * belong directly to the batch's context while their ids keep the item's prefix (AWS's).
   */
  readonly recordParentId: string | undefined;

  constructor(
    readonly services: ScopeServices,
    /** The id of the context operation this scope belongs to; undefined at the root. */
    readonly parentId: string | undefined,
    inherited?: Inherited,
    recordParentId: string | undefined = parentId,
  ) {
    this.recordParentId = recordParentId;
    this.customLogger = inherited?.logger;
    this.defaultSerdes = inherited?.serdes;
    this.callbackDeserializer = inherited?.callbackDeserializer;
    this.rebuilding = inherited?.rebuilding ?? false;
    this.compensable = inherited?.compensable ?? true;
  }

  get runtime(): InvocationRuntime {
    return this.services.runtime;
  }

  get defaults(): FunctionDefaults {
    return this.services.defaults;
  }

  get lambdaContext(): LambdaContextLike {
    return this.services.lambdaContext;
  }

  get plugin(): PluginRunner {
    return this.services.plugin;
  }

  /** The id of the next operation started in this scope. */
  nextId(): string {
    const id = this.peekId();
    this.counter++;
    return id;
  }

  /**
   * The id the next operation of this scope will get, without taking it: a patch check that
   * finds an older run's operation there must leave the id to it (see `context.patched`).
   */
  peekId(): string {
    const next = this.counter + 1;
    return this.parentId === undefined ? String(next) : `${this.parentId}-${next}`;
  }

  /**
   * A scope for the children of the context operation `id`, inheriting this scope's logger and
   * serdes. A `virtual` one has no record of its own (`id` only prefixes its children's ids):
   * its children are recorded under this scope's parent.
   */
  child(id: string, virtual = false): Scope {
    const inherited = {
      logger: this.customLogger,
      serdes: this.defaultSerdes,
      callbackDeserializer: this.callbackDeserializer,
      rebuilding: this.rebuilding,
      compensable: this.compensable,
    };
    return new Scope(this.services, id, inherited, virtual ? this.recordParentId : id);
  }

  /** The `DurableContext` handed to code running in this scope. */
  context(): DurableContext {
    return this.services.makeContext(this);
  }

  /** The serdes for a value without one of its own: the configured default, else `fallback`. */
  serdesOr<T>(own: Serdes<T> | undefined, fallback: Serdes<T>): Serdes<T> {
    return own ?? (this.defaultSerdes as Serdes<T> | undefined) ?? fallback;
  }
}
