import { LocalDurableTestRunner } from '@durable-lambda/local';
import { trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeCheckoutServices, sampleOrder } from '../../examples/checkout/fakes';
import { type CheckoutResult, createCheckoutHandler } from '../../examples/checkout/handler';
import { childrenOf, memoryTracing, shapeOf } from './otel-trace-support';

/**
 * The checkout example, unchanged, traced the way a deployed function is without touching its
 * code: `DURABLE_EXECUTION_PLUGINS=@durable-lambda/otel` (AWS's plugin loader) and the global
 * TracerProvider, here exporting to OpenTelemetry's in-memory exporter.
 */
describe('tracing the checkout example through DURABLE_EXECUTION_PLUGINS', () => {
  const tracing = memoryTracing();
  let previous: string | undefined;
  beforeAll(() => {
    previous = process.env.DURABLE_EXECUTION_PLUGINS;
    process.env.DURABLE_EXECUTION_PLUGINS = '@durable-lambda/otel';
    trace.setGlobalTracerProvider(tracing.provider);
  });
  afterAll(() => {
    if (previous === undefined) delete process.env.DURABLE_EXECUTION_PLUGINS;
    else process.env.DURABLE_EXECUTION_PLUGINS = previous;
    trace.disable();
  });

  it('exports one trace with every step, the wait, and the charge attempts that spanned invocations', async () => {
    const fakes = fakeCheckoutServices();
    // The plugins are loaded when the handler is wrapped, as on AWS.
    const runner = new LocalDurableTestRunner<CheckoutResult>({
      handlerFunction: createCheckoutHandler(fakes.services),
    });
    fakes.payments.respondWith({ status: 429, retryAfter: '7' }, { status: 429, retryAfter: '30' });

    const result = await runner.run({ payload: sampleOrder() });
    expect(result.getStatus()).toBe('SUCCEEDED');
    expect(result.getInvocationCount()).toBe(4);

    const spans = tracing.exporter.getFinishedSpans();
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
    const ids = spans.map((s) => s.spanContext().spanId);
    expect(new Set(ids).size).toBe(ids.length);
    const root = spans.find((s) => s.parentSpanContext === undefined);
    expect(root?.attributes['durable.run.id']).toBe(result.getRunId());
    const names = result.getOperations().map((op) => `${op.getType() === 'WAIT' ? 'wait' : 'step'} ${op.getName()}`);
    expect(childrenOf(spans, root?.spanContext().spanId ?? '')).toEqual(expect.arrayContaining(names));
    expect(childrenOf(spans, root?.spanContext().spanId ?? '')).toHaveLength(names.length);

    const charge = spans.find((s) => s.name === 'step charge-card');
    const attempts = spans
      .filter((s) => s.parentSpanContext?.spanId === charge?.spanContext().spanId)
      .map((s) => shapeOf(s))
      .sort((a, b) => Number(a.attempt) - Number(b.attempt))
      .map(({ attempt, code }) => ({ attempt, code }));
    expect(attempts).toEqual([
      { attempt: 1, code: 'retry_after' },
      { attempt: 2, code: 'retry_after' },
      { attempt: 3, code: undefined },
    ]);
  });
});
