import { DurableIdGenerator } from '@durable-lambda/otel';
import type { DurableInstrumentationPlugin } from '@durable-lambda/sdk';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

/** A provider exporting to memory, with the ids the plugin needs. */
export function memoryTracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    idGenerator: new DurableIdGenerator(),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  return { exporter, provider };
}

/**
 * A plugin that notes, at each invocation's start, how many spans were exported before it: so
 * a test can tell which invocation emitted which span.
 */
export function invocationMarks(exporter: InMemorySpanExporter): {
  plugin: DurableInstrumentationPlugin;
  marks: number[];
} {
  const marks: number[] = [];
  return {
    marks,
    plugin: {
      onInvocationStart: async () => {
        marks.push(exporter.getFinishedSpans().length);
      },
    },
  };
}

/** The 0-based invocation that emitted the span at `index` of the exporter's list. */
export function emittedBy(marks: readonly number[], index: number): number {
  let invocation = -1;
  for (const [i, mark] of marks.entries()) if (index >= mark) invocation = i;
  return invocation;
}

/** Epoch ms of an HrTime. */
export const msOf = (time: [number, number]): number => time[0] * 1000 + Math.round(time[1] / 1e6);

/** A span's shape as the tests compare it. */
export interface SpanShape {
  name: string;
  spanId: string;
  parentSpanId: string | undefined;
  status: number;
  attempt: unknown;
  code: unknown;
}

/** The fields a test compares, of an exported span. */
export function shapeOf(span: ReadableSpan): SpanShape {
  return {
    name: span.name,
    spanId: span.spanContext().spanId,
    parentSpanId: span.parentSpanContext?.spanId,
    status: span.status.code,
    attempt: span.attributes['durable.attempt'],
    code: span.attributes['durable.error.code'],
  };
}

/** The exported spans under the span `parentId`, by name. */
export function childrenOf(spans: readonly ReadableSpan[], parentId: string): string[] {
  return spans.filter((s) => s.parentSpanContext?.spanId === parentId).map((s) => s.name);
}
