import { createHash } from 'node:crypto';

/**
 * Deterministic OpenTelemetry ids for a run's trace. Every id is a hash of the run's id (and the
 * operation's id and attempt number), so whichever invocation emits a span, and however often a
 * redelivered invocation emits it again, it has the same id: a backend collapses the duplicates,
 * and a span emitted in one invocation can name as parent a span another invocation emits.
 */

const hex = (input: string, length: number): string =>
  createHash('sha256').update(input).digest('hex').slice(0, length);

/** A hash that is never the all-zero id OpenTelemetry reserves as invalid. */
function nonZero(id: string): string {
  return /^0+$/.test(id) ? `${id.slice(0, -1)}1` : id;
}

/**
 * The run's trace id, X-Ray-shaped: the first 8 hex digits are the run's start in epoch seconds
 * (X-Ray reads them as the trace's time), the other 24 a hash of the run id.
 * @param runId the run's id.
 * @param runStartMs when the run started (epoch ms), from its stored EXECUTION operation.
 */
export function runTraceId(runId: string, runStartMs: number): string {
  const seconds = Math.max(0, Math.floor(runStartMs / 1000)) % 2 ** 32;
  return `${seconds.toString(16).padStart(8, '0')}${nonZero(hex(`trace|${runId}`, 24))}`;
}

/** The span id of the run's root span. */
export function runSpanId(runId: string): string {
  return nonZero(hex(`run|${runId}`, 16));
}

/** The span id of an operation's span. */
export function operationSpanId(runId: string, operationId: string): string {
  return nonZero(hex(`operation|${runId}|${operationId}`, 16));
}

/** The span id of one attempt (1-based) of a step. */
export function attemptSpanId(runId: string, operationId: string, attempt: number): string {
  return nonZero(hex(`attempt|${runId}|${operationId}|${attempt}`, 16));
}

/** An OpenTelemetry trace id (32 hex digits) as X-Ray writes it: `1-<8 hex>-<24 hex>`. */
export function toXrayTraceId(traceId: string): string {
  return `1-${traceId.slice(0, 8)}-${traceId.slice(8)}`;
}

/** The invocation's X-Ray trace context, from Lambda's `_X_AMZN_TRACE_ID`. */
export interface XrayTraceHeader {
  /** As an OpenTelemetry trace id (32 hex digits). */
  traceId: string;
  /** The segment's id (16 hex digits), when the header names a parent. */
  spanId?: string;
  /** `Sampled=1`. */
  sampled: boolean;
}

/**
 * Parses `Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1`.
 * @returns undefined when the header is missing or has no well-formed `Root`.
 */
export function parseXrayTraceHeader(header: string | undefined): XrayTraceHeader | undefined {
  if (!header) return undefined;
  const fields = new Map(
    header.split(';').map((part) => {
      const at = part.indexOf('=');
      return [part.slice(0, at).trim(), part.slice(at + 1).trim()] as const;
    }),
  );
  const root = /^1-([0-9a-f]{8})-([0-9a-f]{24})$/i.exec(fields.get('Root') ?? '');
  if (!root) return undefined;
  const out: XrayTraceHeader = {
    traceId: `${root[1]}${root[2]}`.toLowerCase(),
    sampled: fields.get('Sampled') === '1',
  };
  const parent = fields.get('Parent');
  if (parent && /^[0-9a-f]{16}$/i.test(parent)) out.spanId = parent.toLowerCase();
  return out;
}
