import { AsyncLocalStorage } from 'node:async_hooks';
import { executionOfArn, incarnationIdOfArn, isTerminal, type OperationStatus } from '@durable-lambda/protocol';
import type {
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
import { attemptEndedBefore, attemptKey, recordsAtEnd, storedError } from './invocation-records';
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
  /** When each attempt this invocation ran started (the backend's clock, as the SDK reports it). */
  attemptStarts: Map<string, number>;
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
  private readonly byInfo = new WeakMap<InvocationInfo, InvocationState>();
  private readonly byKey = new Map<string, InvocationState>();
  private readonly current = new AsyncLocalStorage<InvocationState>();

  /** @param options see {@link OtelTracingOptions}. */
  constructor(options: OtelTracingOptions = {}) {
    this.options = options;
  }

  /** Keeps the operations as this invocation found them. */
  async onInvocationStart(info: InvocationInfo): Promise<void> {
    const environment = this.options.environment ?? process.env;
    const xray = parseXrayTraceHeader(environment._X_AMZN_TRACE_ID);
    const state: InvocationState = {
      before: info.operations,
      updated: info.updatedOperations ?? {},
      attemptStarts: new Map(),
      traceId: runTraceId(incarnationIdOfArn(info.executionArn), runStartOf(info)),
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

  /**
   * Notes when an attempt started: no stored record keeps the start of an attempt that failed
   * and was retried (its end, the failure, is stored).
   */
  async onOperationAttemptStart(info: AttemptInfo): Promise<void> {
    const state = this.current.getStore();
    if (!state || !info.startTimestamp) return;
    state.attemptStarts.set(attemptKey(info.id, info.attempt), info.startTimestamp.getTime());
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
    const runEnded = info.status === 'SUCCEEDED' || info.status === 'FAILED';
    const runStart = runStartOf(info);
    const records = recordsAtEnd(info.operations, runStart);
    const latest = Math.max(runStart, ...records.map((op) => Math.max(op.StartTimestamp, op.EndTimestamp ?? 0)));
    // The SDK ends the EXECUTION operation when the run ends in this invocation.
    const execution = Object.values(info.operations).find((op) => op.type === 'EXECUTION');
    const functionName =
      this.options.functionName ?? (this.options.environment ?? process.env).AWS_LAMBDA_FUNCTION_NAME;
    const runError = runEnded && info.status === 'FAILED' ? storedError(info.executionError) : undefined;
    const spans = runTrace(
      {
        ...runOf(info.executionArn),
        ...(functionName ? { functionName } : {}),
        ...(runEnded
          ? { status: info.status, endedAt: execution?.endTimestamp?.getTime() ?? latest }
          : { status: 'RUNNING' }),
        ...(info.executionStartTimestamp ? { createdAt: info.executionStartTimestamp.getTime() } : {}),
        ...(runError ? { error: runError } : {}),
      },
      records,
    );
    // What changed from outside since the previous invocation (a wait's time, a callback, a
    // child run): ended before this invocation began, but after the previous one last looked.
    const updated = state?.updated ?? {};
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
        // Ended from outside (a wait's time, a callback, a child run) since the previous invocation.
        else if (endedBefore && id in updated) out.push(span);
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

/** The run id and incarnation an execution ARN names, so the spans carry the stored run's id. */
function runOf(executionArn: string): { runId: string; incarnation?: string } {
  return executionOfArn(executionArn) ?? { runId: executionArn };
}

/** When the run started, by its stored EXECUTION operation. */
function runStartOf(info: { executionStartTimestamp?: Date; operations: Record<string, OperationInfo> }): number {
  if (info.executionStartTimestamp) return info.executionStartTimestamp.getTime();
  const starts = Object.values(info.operations).map((op) => op.startTimestamp?.getTime() ?? Number.POSITIVE_INFINITY);
  const earliest = Math.min(...starts);
  return Number.isFinite(earliest) ? earliest : 0;
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
