import {
  type Attributes,
  diag,
  type Link,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import { withPendingIds } from './id-generator';
import type { DurableSpan } from './trace-spans';
import { PACKAGE_NAME, PACKAGE_VERSION } from './version';

const STATUS_CODES = { UNSET: SpanStatusCode.UNSET, OK: SpanStatusCode.OK, ERROR: SpanStatusCode.ERROR } as const;

let warnedAboutIds = false;

/** What is added to each span an invocation emits. */
export interface EmitContext {
  /** Links to add (the invocation's X-Ray segment). */
  links?: Link[];
  /** Attributes to add (the invocation's request id). */
  attributes?: Attributes;
}

/**
 * Hands finished spans to OpenTelemetry, each with its own deterministic ids (through
 * {@link DurableIdGenerator}) and its stored start and end times. The parent is given as a span
 * context, not as a live span, so a parent emitted by another invocation (or later) is named
 * all the same.
 */
export function emitSpans(tracer: Tracer, spans: readonly DurableSpan[], extra: EmitContext = {}): void {
  for (const span of spans) {
    const parent = span.parentSpanId
      ? trace.setSpanContext(ROOT_CONTEXT, {
          traceId: span.traceId,
          spanId: span.parentSpanId,
          traceFlags: TraceFlags.SAMPLED,
          isRemote: true,
        })
      : ROOT_CONTEXT;
    const started = withPendingIds({ traceId: span.traceId, spanId: span.spanId }, () =>
      tracer.startSpan(
        span.name,
        {
          kind: SpanKind.INTERNAL,
          startTime: span.startTime,
          attributes: { ...span.attributes, ...extra.attributes },
          ...(extra.links && extra.links.length > 0 ? { links: extra.links } : {}),
          root: span.parentSpanId === undefined,
        },
        parent,
      ),
    );
    const context = started.spanContext();
    if (!warnedAboutIds && context.spanId !== span.spanId && started.isRecording()) {
      warnedAboutIds = true;
      diag.warn(
        `${PACKAGE_NAME}: the TracerProvider does not use DurableIdGenerator, so a run's spans get random ids and spans of different invocations do not join into one tree. Build the provider with { idGenerator: new DurableIdGenerator() }.`,
      );
    }
    started.setStatus(
      span.statusMessage === undefined
        ? { code: STATUS_CODES[span.status] }
        : { code: STATUS_CODES[span.status], message: span.statusMessage },
    );
    started.end(span.endTime);
  }
}

/** The tracer of the given provider, or of the global one. */
export function tracerOf(provider: TracerProvider | undefined): Tracer {
  return (provider ?? trace.getTracerProvider()).getTracer(PACKAGE_NAME, PACKAGE_VERSION);
}

/** Flushes the provider's span processors (Lambda freezes the process once the invocation returns). */
export async function flushProvider(provider: TracerProvider | undefined): Promise<void> {
  let target: unknown = provider ?? trace.getTracerProvider();
  // The global provider is a proxy around the registered one.
  const delegate = (target as { getDelegate?: () => unknown }).getDelegate;
  if (typeof delegate === 'function') target = delegate.call(target);
  const flush = (target as { forceFlush?: () => Promise<void> }).forceFlush;
  if (typeof flush === 'function') await flush.call(target);
}
