/**
 * `@durable-lambda/otel`: OpenTelemetry traces of durable runs. One trace per run across all its
 * invocations, a span per operation and per attempt, built from the stored operations (so a
 * replay emits nothing twice and any exporter works), with X-Ray-compatible ids.
 */

export { type EmitContext, emitSpans } from './emit-spans';
export { DurableIdGenerator } from './id-generator';
export {
  attemptSpanId,
  operationSpanId,
  parseXrayTraceHeader,
  runSpanId,
  runTraceId,
  toXrayTraceId,
  type XrayTraceHeader,
} from './ids';
export { durableExecutionPluginProvider, type OtelTracingOptions, OtelTracingPlugin, otelTracing } from './plugin';
export { runTrace } from './run-trace';
export {
  DurableAttributes,
  type DurableSpan,
  type DurableSpanAttributeValue,
  type DurableSpanKind,
  type DurableSpanStatus,
  type TraceRun,
} from './trace-spans';
export { PACKAGE_VERSION as OTEL_PACKAGE_VERSION } from './version';
