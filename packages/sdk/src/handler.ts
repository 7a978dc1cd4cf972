import type { DurableBackend, DurableInvocation, LambdaContextLike } from '@durable-lambda/protocol';
import { parseConfigObject, parseNonNegative, parseSemantics, parseTimeout, RUNTIME_DEFAULTS } from './config';
import { runInContext } from './context/active-context';
import { DurableContextImpl } from './context/durable-context';
import { type FunctionDefaults, Scope } from './context/scope';
import { ErrorCode } from './errors/codes';
import { toErrorObject } from './errors/error-object';
import { InvalidArgumentError } from './errors/invalid-argument';
import { jsonLineSink } from './logger';
import { invocationEndInfo, invocationInfo } from './plugins/invocation-info';
import { loadConfiguredPlugins, namesPluginModules } from './plugins/loader';
import { reportingOperationChanges } from './plugins/operation-change';
import { createPluginRunner, type PluginRunner } from './plugins/runner';
import { resolveRetry } from './retry';
import { registeredBackend } from './runtime/backend-registry';
import { executionArnOf } from './runtime/execution-arn';
import {
  admissionOf,
  type DeclaredLimits,
  declaredLimits,
  type FlowControl,
  parseFlowControl,
} from './runtime/flow-control';
import { type InvocationResult, InvocationRuntime, type RuntimeSettings } from './runtime/invocation-runtime';
import { backendLoader, serveLambdaEvent } from './runtime/lambda-entry';
import { Saga, withCompensations } from './saga/saga';
import { defaultSerdes, serializeChecked } from './serdes/checked';
import type { DurableExecutionConfig } from './types/config';
import type { DurableHandler } from './types/durable-context';
import type { DurableExecutionInvocationOutput } from './types/invocation';
import { InvocationStatus } from './types/operation-enums';
import type { DurableInstrumentationPlugin } from './types/plugin';
import type { CompensationReport } from './types/saga';

const CONFIG_KEYS = [
  'retryStrategy',
  'retry',
  'timeout',
  'semantics',
  'backend',
  'inProcessWaitMs',
  'lazyStartMs',
  'maxPayloadBytes',
  'logSink',
  'plugins',
  'pluginsConfig',
  'concurrency',
  'throttle',
  'rateLimit',
  'debounce',
  'singleton',
] as const;

/** Per-invocation overrides a backend driver (test runner, dev server) may apply. */
export type RuntimeOverrides = Partial<RuntimeSettings>;

/** The entry a local driver uses to run a wrapped handler on its own backend. */
export interface DurableEntry {
  /** Runs one invocation to its explicit end. */
  execute(
    invocation: DurableInvocation,
    lambdaContext?: LambdaContextLike,
    overrides?: RuntimeOverrides,
  ): Promise<InvocationResult>;
  /** The function-level runtime settings. */
  readonly settings: RuntimeSettings;
  /**
   * The flow-control limits the handler declares (without its per-run keys), for a driver that
   * shows them before any run is admitted (the dev server records them at load). Absent: none.
   */
  readonly limits?: DeclaredLimits;
}

/** Carries a handler's result type in its type alone (declared, never set at run time). */
declare const DURABLE_RESULT: unique symbol;

/**
 * A Lambda handler produced by {@link withDurableExecution}. `TResult` is the handler's result
 * type, kept so a test runner given the handler types `getResult()` without a type argument.
 */
export type DurableLambdaHandler<TResult = unknown> = ((
  event: unknown,
  context?: LambdaContextLike,
) => Promise<unknown>) & {
  readonly [DURABLE_ENTRY]: DurableEntry;
  /** Type-level only: the result type of the wrapped handler. */
  readonly [DURABLE_RESULT]?: TResult;
};

/** Where a wrapped handler keeps its {@link DurableEntry}; `Symbol.for` so copies of the SDK agree. */
export const DURABLE_ENTRY: unique symbol = Symbol.for('durable-lambda.entry') as never;

/** The {@link DurableEntry} of a wrapped handler, or a clear error for anything else. */
export function getDurableEntry(handler: unknown): DurableEntry {
  const entry = (handler as { [DURABLE_ENTRY]?: DurableEntry } | null)?.[DURABLE_ENTRY];
  if (typeof handler !== 'function' || !entry) {
    throw new InvalidArgumentError('handlerFunction', 'expected a handler wrapped with withDurableExecution');
  }
  return entry;
}

/**
 * Wraps a durable handler into a Lambda handler. Each invocation replays the handler from the
 * top: completed operations return their stored outcome, new ones run and are checkpointed.
 * The invocation ends when the handler finishes, or when it must wait (PENDING).
 */
export function withDurableExecution<TEvent = unknown, TResult = unknown>(
  handler: DurableHandler<TEvent, TResult>,
  config: DurableExecutionConfig = {},
): DurableLambdaHandler<TResult> {
  if (typeof handler !== 'function') throw new InvalidArgumentError('handler', 'must be a function');
  parseConfigObject(config, 'config', CONFIG_KEYS);
  const defaults: FunctionDefaults = {
    retry:
      config.retry === undefined && config.retryStrategy === undefined
        ? undefined
        : { retryStrategy: config.retryStrategy, retry: config.retry },
    timeoutMs: parseTimeout(config.timeout, 'config.timeout'),
    semantics: parseSemantics(config.semantics, 'config.semantics'),
  };
  // Validates the function-level retry settings now, not at the first step.
  resolveRetry(undefined, defaults.retry, 'config');
  const settings: RuntimeSettings = {
    inProcessWaitMs: parseNonNegative(
      config.inProcessWaitMs ?? envNumber('DURABLE_IN_PROCESS_WAIT_MS'),
      config.inProcessWaitMs === undefined ? 'DURABLE_IN_PROCESS_WAIT_MS' : 'config.inProcessWaitMs',
      RUNTIME_DEFAULTS.inProcessWaitMs,
    ),
    lazyStartMs: parseNonNegative(config.lazyStartMs, 'config.lazyStartMs'),
    maxPayloadBytes: parseNonNegative(
      config.maxPayloadBytes,
      'config.maxPayloadBytes',
      RUNTIME_DEFAULTS.maxPayloadBytes,
    ),
    logSink: config.logSink ?? jsonLineSink,
  };

  const flow = parseFlowControl(config);
  const plugins = parsePlugins(config.plugins);
  parseConfigObject(config.pluginsConfig, 'config.pluginsConfig', ['childOperationsDepth']);
  // Loaded once, at wrap time, as AWS's SDK does; a failure fails each invocation that needs it.
  // Without modules to load, the runner is ready now and invocations start without a tick's delay.
  let pluginRunner: PluginRunner | Promise<PluginRunner>;
  if (namesPluginModules()) {
    const loading = loadConfiguredPlugins(plugins).then(createPluginRunner);
    loading.catch(() => {});
    pluginRunner = loading;
  } else {
    pluginRunner = createPluginRunner(plugins ?? []);
  }

  const entry: DurableEntry = {
    settings,
    ...(flow ? { limits: declaredLimits(flow) } : {}),
    execute: (invocation, lambdaContext = {}, overrides = {}) =>
      executeInvocation(
        handler,
        defaults,
        { ...settings, ...overrides },
        admitted(invocation, flow),
        lambdaContext,
        pluginRunner,
      ),
  };

  // Resolved at the first invocation, so an entry registering the backend may come after this call.
  const backend = backendLoader(() => config.backend ?? registeredOrFail());
  const lambdaHandler = (event: unknown, context: LambdaContextLike = {}): Promise<unknown> =>
    serveLambdaEvent(backend, event, context, (opened) => entry.execute(opened.invocation, context));
  return Object.assign(lambdaHandler, { [DURABLE_ENTRY]: entry }) as DurableLambdaHandler<TResult>;
}

/**
 * A number from the environment (set by the CDK construct), or undefined when unset. A value
 * that is not a number is passed on as is, so validation names the variable.
 */
function envNumber(name: string): number | undefined {
  const raw = typeof process === 'undefined' ? undefined : process.env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = Number(raw);
  return Number.isFinite(value) ? value : (raw as unknown as number);
}

/**
 * The invocation with its admission ahead of the handler: `admitFirst` asks the backend to admit
 * the run under its function's flow control (see `DurableInvocation.admit`). Undefined without it.
 */
interface AdmittedInvocation {
  invocation: DurableInvocation;
  admitFirst?: (event: unknown) => Promise<boolean>;
}

function admitted(invocation: DurableInvocation, flow: FlowControl | undefined): AdmittedInvocation {
  if (!flow) return { invocation };
  const admit = invocation.admit?.bind(invocation);
  return {
    invocation,
    admitFirst: async (event) => {
      if (!admit) {
        throw new InvalidArgumentError('config', 'the backend of this invocation cannot serve flow control (admit)');
      }
      return admit(admissionOf(flow, event));
    },
  };
}

function parsePlugins(value: unknown): DurableInstrumentationPlugin[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw new InvalidArgumentError('config.plugins', 'must be an array of plugins');
  value.forEach((plugin, i) => {
    if (plugin === null || typeof plugin !== 'object') {
      throw new InvalidArgumentError(`config.plugins[${i}]`, 'must be a plugin object');
    }
  });
  return value as DurableInstrumentationPlugin[];
}

async function executeInvocation<TEvent, TResult>(
  handler: DurableHandler<TEvent, TResult>,
  defaults: FunctionDefaults,
  settings: RuntimeSettings,
  { invocation, admitFirst }: AdmittedInvocation,
  lambdaContext: LambdaContextLike,
  pluginRunner: PluginRunner | Promise<PluginRunner>,
): Promise<InvocationResult> {
  let plugin: PluginRunner;
  try {
    plugin = pluginRunner instanceof Promise ? await pluginRunner : pluginRunner;
  } catch (error) {
    // A plugin the environment names cannot be loaded: the run fails, as on AWS (no retry helps).
    return {
      type: 'completed',
      output: { Status: 'FAILED', Error: toErrorObject(error, ErrorCode.PLUGIN_LOAD_FAILED) },
    };
  }
  // A plugin that watches operation changes sees every checkpoint's answer (AWS's onOperationChange).
  if (plugin.watchesChanges) invocation = reportingOperationChanges(invocation, plugin);
  const runtime = new InvocationRuntime(invocation, settings, plugin, lambdaContext.awsRequestId);
  const saga = new Saga();
  const root = new Scope(
    {
      runtime,
      defaults,
      lambdaContext,
      plugin,
      makeContext: (scope) => new DurableContextImpl(scope),
      saga,
    },
    undefined,
  );
  const context = root.context();
  const serdesContext = { entityId: 'execution', durableExecutionArn: executionArnOf(invocation) };
  const outcome: { value?: unknown; error?: unknown } = {};
  let event: TEvent | undefined;

  const drive = async () => {
    try {
      // AWS's SDK hands `{}` to a handler whose run has no input.
      event = JSON.parse(invocation.input ?? '{}') as TEvent;
    } catch (error) {
      outcome.error = error;
      await runtime.complete({ Status: 'FAILED', Error: toErrorObject(error, ErrorCode.SERDES_FAILED) });
      return;
    }
    try {
      // Flow control per key: a run queued by its backend ends this invocation unrun (PENDING).
      if (admitFirst && !(await admitFirst(event))) {
        await runtime.complete({ Status: 'PENDING' });
        return;
      }
    } catch (error) {
      if (error instanceof InvalidArgumentError) {
        outcome.error = error;
        await runtime.complete({ Status: 'FAILED', Error: toErrorObject(error, ErrorCode.HANDLER_FAILED) });
      } else runtime.fault(error);
      return;
    }
    try {
      const value = await handler(event as TEvent, context);
      if (runtime.closed) return;
      outcome.value = value;
      runtime.markCompleting();
      const result = await serializeChecked(defaultSerdes, value, serdesContext, settings.maxPayloadBytes);
      await runtime.complete({ Status: 'SUCCEEDED', ...(result === undefined ? {} : { Result: result }) });
    } catch (error) {
      if (runtime.closed) return;
      // The run is failing: undo what the handler's steps registered (a saga), durably, first.
      const undone = await compensateBeforeFailing(saga, root);
      if (runtime.closed) return;
      outcome.error = error;
      runtime.markCompleting();
      const recorded = toErrorObject(error, ErrorCode.HANDLER_FAILED);
      await runtime.complete({ Status: 'FAILED', Error: undone ? withCompensations(recorded, undone) : recorded });
    }
  };
  // The handler runs as the root context, so operations of a parent context used inside a child
  // context, a step or a check are recognised and refused.
  const run = () => runInContext({ contextId: 'root' }, () => void drive());

  if (!plugin.active) {
    run();
    return runtime.result;
  }
  const startInfo = invocationInfo(invocation, lambdaContext);
  await plugin.onInvocationStart(startInfo);
  // The handler starts inside the plugins' wrap (e.g. a tracing span); its outcome is the runtime's.
  plugin
    .wrapInvocation(startInfo, () => {
      run();
      return runtime.result.then(toAwsOutput);
    })
    .catch(() => {});
  const result = await runtime.result;
  await plugin.onInvocationEnd(invocationEndInfo(startInfo, runtime.operations(), result, outcome));
  return result;
}

/**
 * Runs the compensations the run registered and has not run yet (none: nothing is recorded and
 * the run's error keeps AWS's shape). Undefined when there were none ever, or when the
 * compensations could not finish in this invocation (it suspended or faulted: a later one
 * resumes them).
 */
async function compensateBeforeFailing(saga: Saga, root: Scope): Promise<CompensationReport | undefined> {
  if (!saga.pending) {
    const report = saga.snapshot();
    return report.compensated.length + report.failed.length > 0 ? report : undefined;
  }
  try {
    return await saga.compensate(root);
  } catch {
    // Only the runtime's own faults get here (a compensation's failure is in the report): the
    // runtime has ended the invocation, and the caller sees it closed.
    return undefined;
  }
}

/** An invocation's end as AWS's SDK returns it (what `wrapInvocation` hands back). */
function toAwsOutput(result: InvocationResult): DurableExecutionInvocationOutput {
  if (result.type === 'completed') return result.output as DurableExecutionInvocationOutput;
  // An infrastructure fault ends AWS's invocation with a throw (the platform retries it).
  if (result.type === 'fault') throw result.error;
  return { Status: InvocationStatus.PENDING };
}

/**
 * The registered backend (`import '@durable-lambda/aws/register'`, or the `DurableFunction`
 * construct's bundle), else a clear error: the SDK never loads a backend package by itself.
 */
function registeredOrFail(): () => DurableBackend | Promise<DurableBackend> {
  const create = registeredBackend();
  if (create) return create;
  throw new InvalidArgumentError(
    'config.backend',
    "no backend given and none registered: import '@durable-lambda/aws/register' once in the function's entry (the production backend: DynamoDB, EventBridge Scheduler, Lambda, configured from the environment) or pass config.backend",
  );
}
