import { AsyncLocalStorage } from 'node:async_hooks';
import { isTerminal, type OperationStatus } from '@durable-lambda/protocol';
import type {
  AttemptEndInfo,
  AttemptInfo,
  DurableExecutionInvocationOutput,
  DurableInstrumentationPlugin,
  DurableInstrumentationPluginProvider,
  InvocationEndInfo,
  InvocationInfo,
  OperationInfo,
} from '@durable-lambda/sdk';
import { type Link, TraceFlags, type TracerProvider } from '@opentelemetry/api';
import { emitSpans, flushProvider, tracerOf } from './emit-spans';
import { parseXrayTraceHeader, runTraceId } from './ids';
import { attemptEndedBefore, attemptKey, type ObservedAttempt, recordsAtEnd, storedError } from './invocation-records';
import { runTrace } from './run-trace';
import { DurableAttributes, type DurableSpan } from './trace-spans';

/** Options of {@link otelTracing}. */
export interface OtelTracingOptions {
  /**
   * Where spans go. Default: the global provider (`trace.getTracerProvider()`). Build it with
   * `idGenerator: new DurableIdGenerator()` so a run's spans keep their deterministic ids.
   */
  tracerProvider?: TracerProvider;
  /** The function's name on the spans. Default: `AWS_LAMBDA_FUNCTION_NAME`. */
  functionName?: string;
  /**
   * The clock (epoch ms) for the few times no stored record holds: when an attempt that failed
   * and was retried started and ended. Default `Date.now`; a test on a virtual clock passes it.
   */
  clock?: () => number;
  /** Flush the provider at the end of every invocation (Lambda freezes the process after it). Default true. */
  flush?: boolean;
  /** Where `_X_AMZN_TRACE_ID` is read from at each invocation's start. Default `process.env`. */
  environment?: Readonly<Record<string, string | undefined>>;
}

/** What one invocation keeps between its start and its end. */
interface InvocationState {
  before: Record<string, OperationInfo>;
  /** AWS's `updatedOperations`: what changed from outside since the previous invocation. */
  updated: Record<string, OperationInfo>;
  observed: Map<string, ObservedAttempt>;
  /** When each attempt this invocation ran started, on the plugin's clock. */
  attemptStarts: Map<string, number>;
  started: number;
  traceId: string;
  links: Link[];
}

const keyOf = (info: { executionArn: string; requestId: string }) => `${info.executionArn}\u0000${info.requestId}`;

/**
 * The tracing plugin: at the end of each invocation it emits the spans of what ended in that
 * invocation (operations, attempts, and the run's root span when the run ended), built from the
 * stored operations, so each span is emitted once however many invocations replay it. Each
 * span links to the invocation's X-Ray segment on Lambda.
 */
export class OtelTracingPlugin implements DurableInstrumentationPlugin {
  private readonly options: OtelTracingOptions;
  private readonly clock: () => number;
  private readonly byInfo = new WeakMap<InvocationInfo, InvocationState>();
  private readonly byKey = new Map<string, InvocationState>();
  private readonly current = new AsyncLocalStorage<InvocationState>();

  /** @param options see {@link OtelTracingOptions}. */
  constructor(options: OtelTracingOptions = {}) {
    this.options = options;
    this.clock = options.clock ?? Date.now;
  }

  /** Keeps the operations as this invocation found them. */
  async onInvocationStart(info: InvocationInfo): Promise<void> {
    const environment = this.options.environment ?? process.env;
    const xray = parseXrayTraceHeader(environment._X_AMZN_TRACE_ID);
    const started = this.clock();
    const state: InvocationState = {
      before: info.operations,
      updated: info.updatedOperations ?? {},
      observed: new Map(),
      attemptStarts: new Map(),
      started,
      traceId: runTraceId(info.executionArn, info.executionStartTimestamp?.getTime() ?? started),
      links: xray?.spanId
        ? [
            {
              context: {
                traceId: xray.traceId,
                spanId: xray.spanId,
                traceFlags: xray.sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
                isRemote: true,
              },
              attributes: { 'link.kind': 'lambda-invocation' },
            },
          ]
        : [],
    };
    this.byInfo.set(info, state);
    this.byKey.set(keyOf(info), state);
  }

  /** Runs the invocation with its state reachable from the operation hooks. */
  wrapInvocation(
    info: InvocationInfo,
    fn: () => Promise<DurableExecutionInvocationOutput>,
  ): Promise<DurableExecutionInvocationOutput> {
    const state = this.byInfo.get(info);
    return state ? this.current.run(state, fn) : fn();
  }

  /** Notes when an attempt started (no stored record keeps it for a retried attempt). */
  async onOperationAttemptStart(info: AttemptInfo): Promise<void> {
    const state = this.current.getStore();
    if (!state) return;
    state.attemptStarts.set(attemptKey(info.id, info.attempt), this.clock());
  }

  /** Notes how an attempt ended (its error's code is what the SDK stores). */
  async onOperationAttemptEnd(info: AttemptEndInfo): Promise<void> {
    const state = this.current.getStore();
    if (!state) return;
    const key = attemptKey(info.id, info.attempt);
    const observed: ObservedAttempt = { outcome: info.outcome, end: this.clock() };
    const start = state.attemptStarts.get(key);
    if (start !== undefined) observed.start = start;
    const error = info.outcome === 'FAILED' ? storedError(info.error, 'step_failed') : undefined;
    if (error) observed.error = error;
    state.observed.set(key, observed);
  }

  /** The run's trace id on every log entry, so logs and traces join. */
  enrichLogContext(): Record<string, string> | undefined {
    const state = this.current.getStore();
    return state ? { trace_id: state.traceId } : undefined;
  }

  /** Emits the spans of what ended in this invocation, then flushes. */
  async onInvocationEnd(info: InvocationEndInfo): Promise<void> {
    const key = keyOf(info);
    const state = this.byKey.get(key);
    this.byKey.delete(key);
    const spans = this.spansOfInvocation(info, state);
    if (spans.length === 0) return;
    const attributes = info.requestId ? { [DurableAttributes.INVOCATION_ID]: info.requestId } : undefined;
    emitSpans(tracerOf(this.options.tracerProvider), spans, {
      ...(state && state.links.length > 0 ? { links: state.links } : {}),
      ...(attributes ? { attributes } : {}),
    });
    if (this.options.flush ?? true) await flushProvider(this.options.tracerProvider);
  }

  /** The spans this invocation must emit: those whose end it recorded. */
  private spansOfInvocation(info: InvocationEndInfo, state: InvocationState | undefined): DurableSpan[] {
    const before = state?.before ?? {};
    const observed = state?.observed ?? new Map<string, ObservedAttempt>();
    const started = state?.started ?? this.clock();
    const runEnded = info.status === 'SUCCEEDED' || info.status === 'FAILED';
    const records = recordsAtEnd(before, info.operations, observed, started);
    const latest = Math.max(started, ...records.map((op) => Math.max(op.StartTimestamp, op.EndTimestamp ?? 0)));
    const functionName =
      this.options.functionName ?? (this.options.environment ?? process.env).AWS_LAMBDA_FUNCTION_NAME;
    const runError = runEnded && info.status === 'FAILED' ? storedError(info.executionError) : undefined;
    const spans = runTrace(
      {
        runId: info.executionArn,
        ...(functionName ? { functionName } : {}),
        ...(runEnded ? { status: info.status, endedAt: Math.max(latest, this.clock()) } : { status: 'RUNNING' }),
        ...(info.executionStartTimestamp ? { createdAt: info.executionStartTimestamp.getTime() } : {}),
        ...(runError ? { error: runError } : {}),
      },
      records,
    );
    // AWS's `updatedOperations` names what changed from outside since the last invocation;
    // without it, what ended after every write of the invocations so far.
    const updated = state?.updated ?? {};
    const watermark = lastWrittenByInvocations(before);
    const endedOutside = (id: string, was: OperationInfo | undefined) =>
      Object.keys(updated).length > 0 ? id in updated : (was?.endTimestamp?.getTime() ?? 0) > watermark;
    const out: DurableSpan[] = [];
    for (const span of spans) {
      if (span.kind === 'run') {
        if (runEnded) out.push(span);
        continue;
      }
      const id = span.operationId ?? '';
      const was = before[id];
      if (span.kind === 'operation') {
        const endedBefore = was?.status !== undefined && isTerminal(was.status as OperationStatus);
        // When the run ends, what never ended is emitted too (as it stands), or it never would be.
        if (!endedBefore && (span.ended || runEnded)) out.push(span);
        // Ended from outside (a wait's time, a callback, a child run) since the last invocation wrote.
        else if (endedBefore && endedOutside(id, was)) out.push(span);
        continue;
      }
      const n = span.attempt ?? 0;
      if (attemptEndedBefore(was, n) || !(span.ended || runEnded)) continue;
      const seenStart = state?.attemptStarts.get(attemptKey(id, n));
      // A retried attempt's start is kept by no record: the time this invocation saw it start.
      if (span.attributes[DurableAttributes.ATTEMPT_START_ESTIMATED] && seenStart !== undefined) {
        span.startTime = Math.min(span.endTime, Math.max(span.startTime, seenStart));
      }
      out.push(span);
    }
    return out;
  }
}

/** Types an invocation ends itself; the others (waits, callbacks, invokes) end from outside. */
const ENDED_BY_INVOCATIONS = new Set(['STEP', 'CONTEXT', 'EXECUTION']);

/**
 * The latest time the invocations before this one wrote (a start, or the end of a step or
 * context), by the stored records. An operation that ended from outside after it ended after
 * every invocation so far, so none of them emitted it: this one does. (A redelivered invocation,
 * or one that wrote nothing, may emit it again, with the same ids: the duplicates collapse.)
 */
function lastWrittenByInvocations(before: Readonly<Record<string, OperationInfo>>): number {
  let latest = 0;
  for (const op of Object.values(before)) {
    latest = Math.max(latest, op.startTimestamp?.getTime() ?? 0);
    if (ENDED_BY_INVOCATIONS.has(op.type)) latest = Math.max(latest, op.endTimestamp?.getTime() ?? 0);
  }
  return latest;
}

/**
 * Turns tracing on for a durable function, in one line:
 *
 * ```ts
 * export const handler = withDurableExecution(fn, { plugins: [otelTracing()] });
 * ```
 * @param options where spans go (default: the global TracerProvider) and more; see {@link OtelTracingOptions}.
 */
export function otelTracing(options: OtelTracingOptions = {}): OtelTracingPlugin {
  return new OtelTracingPlugin(options);
}

/**
 * The provider AWS's plugin loader looks for: name this package in `DURABLE_EXECUTION_PLUGINS`
 * (`DURABLE_EXECUTION_PLUGINS=@durable-lambda/otel`) to trace a function without changing its
 * code, with the global TracerProvider.
 */
export const durableExecutionPluginProvider: DurableInstrumentationPluginProvider<OtelTracingPlugin> = {
  pluginApiVersion: 1,
  pluginType: OtelTracingPlugin,
  createPlugin: () => new OtelTracingPlugin(),
};
