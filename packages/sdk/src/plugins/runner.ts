import type { DurableExecutionInvocationOutput } from '../types/invocation';
import type {
  AttemptEndInfo,
  AttemptInfo,
  CustomerFn,
  CustomerFnResult,
  DurableInstrumentationPlugin,
  InvocationEndInfo,
  InvocationInfo,
  OperationChangeInfo,
  OperationEndInfo,
  OperationInfo,
} from '../types/plugin';

type HookName =
  | 'onInvocationStart'
  | 'onInvocationEnd'
  | 'onOperationStart'
  | 'onOperationEnd'
  | 'onOperationAttemptStart'
  | 'onOperationAttemptEnd'
  | 'onOperationChange';
type WrapName = 'wrapInvocation' | 'wrapChildContextFn' | 'wrapOperationAttemptFn';

/** Calls every plugin's hooks the way AWS's SDK does; with no plugins, `active` is false. */
export interface PluginRunner {
  /** False when there are no plugins: callers skip building infos and awaiting hooks. */
  readonly active: boolean;
  /** True when a plugin implements `onOperationChange` (the only one that needs the run's state kept). */
  readonly watchesChanges: boolean;
  onInvocationStart(info: InvocationInfo): Promise<void>;
  wrapInvocation(
    info: InvocationInfo,
    fn: () => Promise<DurableExecutionInvocationOutput>,
  ): Promise<DurableExecutionInvocationOutput>;
  onInvocationEnd(info: InvocationEndInfo): Promise<void>;
  onOperationStart(info: OperationInfo): Promise<void>;
  wrapChildContextFn(info: OperationInfo, fn: CustomerFn): CustomerFnResult;
  onOperationEnd(info: OperationEndInfo): Promise<void>;
  onOperationAttemptStart(info: AttemptInfo): Promise<void>;
  wrapOperationAttemptFn(info: AttemptInfo, fn: CustomerFn): CustomerFnResult;
  onOperationAttemptEnd(info: AttemptEndInfo): Promise<void>;
  onOperationChange(info: OperationChangeInfo): Promise<void>;
  /** The fields every plugin adds to log entries, merged; undefined without any. */
  enrichLogContext(): Record<string, string | number | boolean> | undefined;
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  value !== null &&
  (typeof value === 'object' || typeof value === 'function') &&
  typeof (value as { then?: unknown }).then === 'function';

/** Builds the runner over `plugins`, in order (the first plugin's wrap is the outermost). */
export function createPluginRunner(plugins: readonly DurableInstrumentationPlugin[]): PluginRunner {
  // Every hook of every plugin runs, concurrently; a hook that throws or rejects is ignored.
  const run = async (method: HookName, info: unknown): Promise<void> => {
    await Promise.allSettled(
      plugins.map(async (plugin) => {
        const hook = plugin[method] as ((info: unknown) => unknown) | undefined;
        await hook?.call(plugin, info);
      }),
    );
  };

  // Wraps nest (first plugin outermost). The wrapped function runs exactly once, and its own
  // outcome wins over whatever a plugin did with it: a plugin can neither swallow its error nor
  // break the call by throwing itself.
  const wrap = (method: WrapName, info: unknown, fn: () => unknown): unknown => {
    let fnError: { error: unknown } | undefined;
    let fnCalled = false;
    let fnResult: unknown;
    const guarded = (): unknown => {
      if (fnCalled) return fnResult;
      fnCalled = true;
      try {
        const result = fn();
        fnResult = isThenable(result)
          ? Promise.resolve(result).catch((error: unknown) => {
              fnError = { error };
              throw error;
            })
          : result;
        return fnResult;
      } catch (error) {
        fnError = { error };
        throw error;
      }
    };
    const chain = plugins.reduceRight<() => unknown>(
      (next, plugin) => () => {
        const hook = plugin[method] as ((info: unknown, fn: () => unknown) => unknown) | undefined;
        if (!hook) return next();
        try {
          return hook.call(plugin, info, next);
        } catch {
          return next();
        }
      },
      guarded,
    );
    let result: unknown;
    try {
      result = chain();
    } catch {
      if (fnError) throw fnError.error;
      // A plugin's own synchronous throw: call the function directly.
      result = guarded();
    }
    if (isThenable(result)) {
      return Promise.resolve(result).then(
        (value) => {
          if (fnError) throw fnError.error;
          return value;
        },
        (error: unknown) => {
          if (fnError) throw fnError.error;
          // A plugin's own rejection: the function's outcome stands.
          if (fnCalled) return fnResult;
          throw error;
        },
      );
    }
    if (fnError) throw fnError.error;
    return result;
  };

  return {
    active: plugins.length > 0,
    watchesChanges: plugins.some((plugin) => typeof plugin.onOperationChange === 'function'),
    onInvocationStart: (info) => run('onInvocationStart', info),
    wrapInvocation: (info, fn) => wrap('wrapInvocation', info, fn) as Promise<DurableExecutionInvocationOutput>,
    onInvocationEnd: (info) => run('onInvocationEnd', info),
    onOperationStart: (info) => run('onOperationStart', info),
    wrapChildContextFn: (info, fn) => wrap('wrapChildContextFn', info, fn),
    onOperationEnd: (info) => run('onOperationEnd', info),
    onOperationAttemptStart: (info) => run('onOperationAttemptStart', info),
    wrapOperationAttemptFn: (info, fn) => wrap('wrapOperationAttemptFn', info, fn),
    onOperationAttemptEnd: (info) => run('onOperationAttemptEnd', info),
    onOperationChange: (info) => run('onOperationChange', info),
    enrichLogContext: () => {
      if (plugins.length === 0) return undefined;
      let fields: Record<string, string | number | boolean> | undefined;
      for (const plugin of plugins) {
        try {
          const extra = plugin.enrichLogContext?.();
          if (extra) fields = { ...fields, ...extra };
        } catch {
          // A plugin that cannot enrich does not stop the log line.
        }
      }
      return fields;
    },
  };
}

/** The runner of a function without plugins. */
export const NO_PLUGINS: PluginRunner = createPluginRunner([]);
