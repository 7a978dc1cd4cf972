import { randomBytes } from 'node:crypto';

/** The ids the next span started must get (set only around one synchronous `startSpan`). */
interface PendingIds {
  traceId: string;
  spanId: string;
}

// One slot for every copy of this package in the process (its ESM and CJS builds both loaded):
// the generator a provider was given and the plugin that emits must see the same slot.
const SLOT = Symbol.for('@durable-lambda/otel.pending-ids');
type Slot = { [SLOT]?: PendingIds };

/**
 * Runs `start` (which must start exactly one span, synchronously) so that a provider built with
 * {@link DurableIdGenerator} gives that span these ids.
 */
export function withPendingIds<T>(ids: PendingIds, start: () => T): T {
  const slot = globalThis as Slot;
  const previous = slot[SLOT];
  slot[SLOT] = ids;
  try {
    return start();
  } finally {
    slot[SLOT] = previous;
  }
}

/**
 * An OpenTelemetry `IdGenerator` (the `idGenerator` option of a TracerProvider, as AWS's
 * `AWSXRayIdGenerator` is): it gives a run's spans their deterministic ids, so spans emitted by
 * different invocations join into one trace, and every other span X-Ray-compatible random ids
 * (the trace id starts with the epoch seconds, as X-Ray requires).
 *
 * ```ts
 * new NodeTracerProvider({ idGenerator: new DurableIdGenerator(), spanProcessors: [...] });
 * ```
 */
export class DurableIdGenerator {
  /** A trace id: the pending run's, else `<epoch seconds, 8 hex><24 random hex>`. */
  generateTraceId(): string {
    const pending = (globalThis as Slot)[SLOT];
    if (pending) return pending.traceId;
    const seconds = Math.floor(Date.now() / 1000)
      .toString(16)
      .padStart(8, '0');
    return `${seconds}${randomBytes(12).toString('hex')}`;
  }

  /** A span id: the pending span's, else 16 random hex digits. */
  generateSpanId(): string {
    const pending = (globalThis as Slot)[SLOT];
    if (pending) return pending.spanId;
    let id = randomBytes(8).toString('hex');
    while (id === '0000000000000000') id = randomBytes(8).toString('hex');
    return id;
  }
}
