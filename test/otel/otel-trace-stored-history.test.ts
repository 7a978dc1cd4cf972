import { TestDriver } from '@durable-lambda/local/testing';
import { otelTracing } from '@durable-lambda/otel';
import { type DurableInstrumentationPlugin, RetryAfterError, withDurableExecution } from '@durable-lambda/sdk';
import { SpanStatusCode } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { emittedBy, invocationMarks, memoryTracing, msOf } from './otel-trace-support';

// A virtual start far from the machine's clock: a span timed by the process's clock shows.
const START = Date.UTC(2025, 0, 6, 9, 0, 0);

describe('live OpenTelemetry spans timed by the stored records, with no clock of the plugin', () => {
  it('gives each retried attempt the stored time of its failure, emitted by the invocation that ran it', async () => {
    const tracing = memoryTracing();
    const marks = invocationMarks(tracing.exporter);
    const handler = withDurableExecution(
      async (_event: unknown, ctx) =>
        ctx.step(
          'charge',
          async ({ attempt }) => {
            if (attempt === 1) throw new Error('gateway down');
            if (attempt === 2) throw new RetryAfterError('slow down', 45_000);
            return attempt;
          },
          { retry: { maxAttempts: 3, initialMs: 30_000, jitter: 'NONE' } },
        ),
      { plugins: [marks.plugin, otelTracing({ tracerProvider: tracing.provider })] },
    );
    const driver = new TestDriver({ pay: handler }, { startTime: START });
    const run = await driver.runUntilDone((await driver.start('pay', {})).runId);
    expect(run.status).toBe('SUCCEEDED');

    const step = driver.operations(run.runId).find((op) => op.Name === 'charge');
    const failures = step?.StepDetails?.FailedAttempts ?? [];
    expect(failures.map((f) => f.Attempt)).toEqual([1, 2]);
    const spans = tracing.exporter.getFinishedSpans();
    const stepSpan = spans.find((s) => s.name === 'step charge');
    const attempts = spans
      .map((span, index) => ({ span, index }))
      .filter(({ span }) => span.parentSpanContext?.spanId === stepSpan?.spanContext().spanId)
      .sort((a, b) => Number(a.span.attributes['durable.attempt']) - Number(b.span.attributes['durable.attempt']));
    expect(attempts.map(({ span }) => span.attributes['durable.attempt'])).toEqual([1, 2, 3]);
    // Each failed attempt ended when its failure was stored, though its step had not ended then.
    for (const failure of failures) {
      const { span, index } = attempts[failure.Attempt - 1] as (typeof attempts)[number];
      expect(span.status.code).toBe(SpanStatusCode.ERROR);
      expect(msOf(span.endTime)).toBe(failure.Timestamp);
      expect(emittedBy(marks.marks, index)).toBe(failure.Attempt - 1);
    }
    expect(attempts[1]?.span.attributes['durable.error.code']).toBe('retry_after');
    // A retry starts when its invocation ran it: after the failure before it, by its backoff.
    const second = attempts[1]?.span;
    expect(msOf(second?.startTime ?? [0, 0])).toBe((failures[0]?.Timestamp ?? 0) + 30_000);
    const third = attempts[2]?.span;
    expect(msOf(third?.startTime ?? [0, 0])).toBe((failures[1]?.Timestamp ?? 0) + 45_000);
    expect(msOf(third?.endTime ?? [0, 0])).toBe(step?.EndTimestamp);
    // The run's root span ends when the stored run does.
    const root = spans.find((s) => s.parentSpanContext === undefined);
    expect(msOf(root?.endTime ?? [0, 0])).toBe(run.endedAt);
  });

  it('emits a callback completed at the very millisecond of the previous write, once, from the next invocation', async () => {
    const tracing = memoryTracing();
    const marks = invocationMarks(tracing.exporter);
    let driver: TestDriver | undefined;
    let pending: string | undefined;
    let answered = false;
    // Answers once, as soon as the invocation that asked has ended, the virtual clock unmoved.
    const approver: DurableInstrumentationPlugin = {
      onInvocationEnd: async () => {
        const callbackId = pending;
        if (callbackId === undefined || answered) return;
        answered = true;
        setImmediate(() => void driver?.sendCallbackSuccess(callbackId, '"yes"'));
      },
    };
    const handler = withDurableExecution(
      async (_event: unknown, ctx) => {
        await ctx.step('prepare', async () => 'ready');
        const [answer, callbackId] = await ctx.createCallback<string>('approve');
        pending = callbackId;
        const approval = await answer;
        await ctx.wait('settle', { minutes: 1 });
        return approval;
      },
      { plugins: [marks.plugin, approver, otelTracing({ tracerProvider: tracing.provider })] },
    );
    driver = new TestDriver({ ask: handler }, { startTime: START });
    const run = await driver.runUntilDone((await driver.start('ask', {})).runId);
    expect(run.status).toBe('SUCCEEDED');

    const stored = driver.operations(run.runId);
    const callback = stored.find((op) => op.Type === 'CALLBACK');
    // The case: the callback ended at the same millisecond as the last write before it.
    expect(callback?.EndTimestamp).toBe(callback?.StartTimestamp);
    const spans = tracing.exporter.getFinishedSpans();
    const found = spans.map((span, index) => ({ span, index })).filter(({ span }) => span.name === 'callback approve');
    expect(found).toHaveLength(1);
    const [{ span, index }] = found as [(typeof found)[number]];
    expect(span.status.code).toBe(SpanStatusCode.OK);
    expect(msOf(span.endTime)).toBe(callback?.EndTimestamp);
    expect(span.attributes['durable.callback.id']).toBe(callback?.CallbackDetails?.CallbackId);
    // Not the invocation that started it (it had not ended then), nor the last one (the run ended later).
    expect(emittedBy(marks.marks, index)).toBe(1);
    expect((driver.invocations.get(run.runId) ?? []).length).toBe(3);
  });
});
