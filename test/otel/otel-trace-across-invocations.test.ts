import { TestDriver } from '@durable-lambda/local/testing';
import { emitSpans, otelTracing, runTrace, toXrayTraceId } from '@durable-lambda/otel';
import {
  type DurableInstrumentationPlugin,
  NonRetriableError,
  RetryAfterError,
  withDurableExecution,
} from '@durable-lambda/sdk';
import { SpanStatusCode } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { childrenOf, emittedBy, invocationMarks, memoryTracing, msOf, shapeOf } from './otel-trace-support';

const START = Date.UTC(2026, 2, 3, 8, 0, 0);
// A Lambda invocation's X-Ray header, as the runtime sets it.
const XRAY = 'Root=1-67c56280-0123456789abcdef01234567;Parent=53995c3f42cd8ad8;Sampled=1';

/**
 * A workflow whose run takes several invocations: a step retried twice with backoffs longer than
 * an invocation waits in-process (each retry is a new invocation), a durable wait, a child context
 * with a step, and a callback completed from outside.
 */
function workflow() {
  const tracing = memoryTracing();
  const marks = invocationMarks(tracing.exporter);
  let driver: TestDriver | undefined;
  let pendingCallback: string | undefined;
  // The approver answers a second after the invocation that asked has ended (virtual clock).
  const approver: DurableInstrumentationPlugin = {
    onInvocationEnd: async () => {
      const callbackId = pendingCallback;
      pendingCallback = undefined;
      if (callbackId === undefined) return;
      setImmediate(() => {
        driver?.clock.advanceBy(1000);
        void driver?.sendCallbackSuccess(callbackId, '"yes"');
      });
    },
  };
  const handler = withDurableExecution(
    async (_event: unknown, ctx) => {
      const charged = await ctx.step(
        'charge',
        async ({ attempt }) => {
          if (attempt === 1) throw new Error('gateway down');
          if (attempt === 2) throw new RetryAfterError('slow down', 20_000);
          return attempt;
        },
        { retry: { maxAttempts: 4, initialMs: 10_000, jitter: 'NONE' } },
      );
      await ctx.wait('cool-off', { minutes: 5 });
      const packed = await ctx.runInChildContext('pack', (child) => child.step('label', async () => 'L-1'));
      const approval = await ctx.waitForCallback<string>('approve', async (callbackId) => {
        pendingCallback = callbackId;
      });
      return { charged, packed, approval };
    },
    {
      plugins: [
        marks.plugin,
        approver,
        otelTracing({
          tracerProvider: tracing.provider,
          functionName: 'orders',
          environment: { _X_AMZN_TRACE_ID: XRAY },
        }),
      ],
    },
  );
  driver = new TestDriver({ orders: handler }, { startTime: START });
  return { ...tracing, marks: marks.marks, driver };
}

describe('OpenTelemetry trace of a run across invocations', () => {
  it('emits one trace: the run, each operation under its parent, each attempt under its step, each span once', async () => {
    const { exporter, marks, driver } = workflow();
    const started = await driver.start('orders', {});
    const run = await driver.runUntilDone(started.runId);
    expect(run.status).toBe('SUCCEEDED');
    const invocations = driver.invocations.get(run.runId) ?? [];
    expect(invocations.length).toBeGreaterThanOrEqual(4);

    const spans = exporter.getFinishedSpans();
    // One trace, X-Ray-shaped: its first 8 hex digits are the run's start in epoch seconds.
    const traceIds = new Set(spans.map((s) => s.spanContext().traceId));
    expect(traceIds.size).toBe(1);
    const [traceId] = [...traceIds] as [string];
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(toXrayTraceId(traceId)).toMatch(/^1-[0-9a-f]{8}-[0-9a-f]{24}$/);
    expect(Number.parseInt(traceId.slice(0, 8), 16)).toBe(Math.floor(run.createdAt / 1000));
    // No span twice, though every invocation replayed what the ones before it did.
    const ids = spans.map((s) => s.spanContext().spanId);
    expect(new Set(ids).size).toBe(ids.length);

    const byName = (name: string, parent?: string) => {
      const found = spans.filter((s) => s.name === name && (!parent || s.parentSpanContext?.spanId === parent));
      expect(found, name).toHaveLength(1);
      return found[0] as (typeof spans)[number];
    };
    const root = byName('run orders');
    expect(root.parentSpanContext).toBeUndefined();
    expect(root.status.code).toBe(SpanStatusCode.OK);
    expect(root.attributes['durable.run.id']).toBe(run.runId);
    const rootId = root.spanContext().spanId;
    expect(childrenOf(spans, rootId).sort()).toEqual([
      'context approve',
      'context pack',
      'step charge',
      'wait cool-off',
    ]);

    // The retried step: three attempts, each emitted by the invocation that ran it.
    const charge = byName('step charge', rootId);
    expect(charge.attributes['durable.operation.attempts']).toBe(3);
    const chargeId = charge.spanContext().spanId;
    const attempts = spans
      .map((span, index) => ({ span, index }))
      .filter(({ span }) => span.parentSpanContext?.spanId === chargeId)
      .sort((a, b) => Number(a.span.attributes['durable.attempt']) - Number(b.span.attributes['durable.attempt']));
    expect(
      attempts
        .map(({ span }) => shapeOf(span))
        .map(({ name, status, attempt, code }) => ({ name, status, attempt, code })),
    ).toEqual([
      { name: 'attempt 1', status: SpanStatusCode.ERROR, attempt: 1, code: 'step_failed' },
      { name: 'attempt 2', status: SpanStatusCode.ERROR, attempt: 2, code: 'retry_after' },
      { name: 'attempt 3', status: SpanStatusCode.OK, attempt: 3, code: undefined },
    ]);
    const emitters = attempts.map(({ index }) => emittedBy(marks, index));
    expect(emitters).toEqual([0, 1, 2]);
    // The root span only once the run ended: by the last invocation.
    expect(emittedBy(marks, spans.indexOf(root))).toBe(invocations.length - 1);

    // The child context's step is under the context, its attempt under the step.
    const pack = byName('context pack', rootId);
    const label = byName('step label', pack.spanContext().spanId);
    expect(childrenOf(spans, label.spanContext().spanId)).toEqual(['attempt 1']);
    const approve = byName('context approve', rootId);
    // waitForCallback: its callback (completed from outside, between invocations) and its submitter step.
    const kinds = childrenOf(spans, approve.spanContext().spanId).map((name) => name.split(' ')[0]);
    expect(kinds.sort()).toEqual(['callback', 'step']);

    // Operation spans carry the stored times (the virtual clock's), attempts lie within them.
    const stored = driver.operations(run.runId);
    const wait = stored.find((op) => op.Name === 'cool-off');
    const waitSpan = byName('wait cool-off', rootId);
    expect(msOf(waitSpan.startTime)).toBe(wait?.StartTimestamp);
    expect(msOf(waitSpan.endTime)).toBe(wait?.EndTimestamp);
    for (const { span } of attempts) {
      expect(msOf(span.startTime)).toBeGreaterThanOrEqual(msOf(charge.startTime));
      expect(msOf(span.endTime)).toBeLessThanOrEqual(msOf(charge.endTime));
    }
    // Every span links to the X-Ray segment of the invocation that emitted it.
    for (const span of spans) {
      expect(span.links.map((l) => l.context.spanId)).toEqual(['53995c3f42cd8ad8']);
      expect(span.links[0]?.context.traceId).toBe('67c562800123456789abcdef01234567');
    }
  });

  it('builds offline, from the stored run and operations, the very spans the plugin emitted live', async () => {
    const { exporter, driver } = workflow();
    const started = await driver.start('orders', {});
    const run = await driver.runUntilDone(started.runId);
    const offline = runTrace({ ...run, functionName: 'orders' }, driver.operations(run.runId));
    const live = exporter.getFinishedSpans();
    const key = (s: { spanId: string; parentSpanId?: string | undefined; name: string }) =>
      `${s.spanId} ${s.parentSpanId ?? '-'} ${s.name}`;
    expect(offline.map((s) => key(s)).sort()).toEqual(live.map((s) => key(shapeOf(s))).sort());
    expect(new Set(offline.map((s) => s.traceId))).toEqual(new Set(live.map((s) => s.spanContext().traceId)));
    // Offline, every failed attempt has its stored failure time and error code.
    const failed = offline.filter((s) => s.kind === 'attempt' && s.status === 'ERROR');
    expect(failed.map((s) => s.attributes['durable.error.code'])).toEqual(['step_failed', 'retry_after']);
    expect(offline.every((s) => s.ended && s.endTime >= s.startTime)).toBe(true);

    // Handed to OpenTelemetry (as a console or a script reading the control API would), they
    // keep their ids, parents and stored times.
    const again = memoryTracing();
    emitSpans(again.provider.getTracer('offline'), offline);
    const exported = again.exporter.getFinishedSpans();
    expect(exported.map((s) => key(shapeOf(s))).sort()).toEqual(offline.map((s) => key(s)).sort());
    expect(exported.map((s) => msOf(s.endTime)).sort()).toEqual(offline.map((s) => s.endTime).sort());
  });

  it('marks a failed run, its failed step and the attempt with the stored error code', async () => {
    const { exporter, provider } = memoryTracing();
    const handler = withDurableExecution(
      async (_event: unknown, ctx) => {
        await ctx.step('validate', async () => 'ok');
        await ctx.step('charge', async () => {
          throw new NonRetriableError('card declined');
        });
      },
      { plugins: [otelTracing({ tracerProvider: provider })] },
    );
    const driver = new TestDriver({ pay: handler }, { startTime: START });
    const run = await driver.runUntilDone((await driver.start('pay', {})).runId);
    expect(run.status).toBe('FAILED');

    const spans = exporter.getFinishedSpans();
    const root = spans.find((s) => s.parentSpanContext === undefined);
    expect(root?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'card declined' });
    expect(root?.attributes['durable.run.status']).toBe('FAILED');
    const charge = spans.find((s) => s.name === 'step charge');
    expect(charge?.status.code).toBe(SpanStatusCode.ERROR);
    expect(charge?.attributes['durable.error.code']).toBe('non_retriable');
    const attempt = spans.find((s) => s.parentSpanContext?.spanId === charge?.spanContext().spanId);
    expect(shapeOf(attempt as (typeof spans)[number])).toMatchObject({ name: 'attempt 1', code: 'non_retriable' });
    expect(spans.find((s) => s.name === 'step validate')?.status.code).toBe(SpanStatusCode.OK);
  });
});

const FAULT_START = Date.UTC(2026, 4, 11, 10, 0, 0);

describe('OpenTelemetry trace of a run under invocation faults', () => {
  it('shows the lost attempt as a failed attempt span with code invocation_lost, then the retry', async () => {
    const { exporter, provider } = memoryTracing();
    const bodies: number[] = [];
    const handler = withDurableExecution(
      async (_event: unknown, ctx) => {
        const receipt = await ctx.step('charge', async ({ attempt }) => {
          bodies.push(attempt);
          return `receipt-${attempt}`;
        });
        await ctx.step('notify', async () => 'sent');
        return receipt;
      },
      { plugins: [otelTracing({ tracerProvider: provider })] },
    );
    // The first step's body runs, then its invocation dies before the outcome is written.
    const driver = new TestDriver(
      { pay: handler },
      { startTime: FAULT_START, faults: { seed: 13, defaultProbability: 0, killAfterStep: 1, maxFaults: 1 } },
    );
    const started = await driver.start('pay', {});
    const run = await driver.runUntilDone(started.runId);
    expect(driver.faults.map((f) => f.kind)).toEqual(['killAfterStep']);
    expect(run.status).toBe('SUCCEEDED');
    expect(bodies).toEqual([1, 2]);

    const spans = exporter.getFinishedSpans();
    const ids = spans.map((s) => s.spanContext().spanId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
    const charge = spans.find((s) => s.name === 'step charge');
    expect(charge?.status.code).toBe(SpanStatusCode.OK);
    expect(charge?.attributes['durable.operation.attempts']).toBe(2);
    const attempts = spans
      .filter((s) => s.parentSpanContext?.spanId === charge?.spanContext().spanId)
      .map((s) => shapeOf(s))
      .sort((a, b) => Number(a.attempt) - Number(b.attempt))
      .map(({ name, status, code }) => ({ name, status, code }));
    // The killed invocation's success was never stored: attempt 1 is lost, not succeeded.
    expect(attempts).toEqual([
      { name: 'attempt 1', status: SpanStatusCode.ERROR, code: 'invocation_lost' },
      { name: 'attempt 2', status: SpanStatusCode.OK, code: undefined },
    ]);
    const root = spans.find((s) => s.parentSpanContext === undefined);
    expect(childrenOf(spans, root?.spanContext().spanId ?? '').sort()).toEqual(['step charge', 'step notify']);

    // The stored history says the same: the offline trace has the same spans, the lost one included.
    const offline = runTrace(run, await driver.engine.getOperations(run.runId));
    expect(offline.map((s) => s.spanId).sort()).toEqual([...ids].sort());
    const chargeId = charge?.attributes['durable.operation.id'];
    const lost = offline.find((s) => s.kind === 'attempt' && s.attempt === 1 && s.operationId === chargeId);
    expect(lost?.attributes['durable.error.code']).toBe('invocation_lost');
  });

  it('keeps one span per id when a stalled invocation is overtaken by a second one (race), as the stored trace has them', async () => {
    const { exporter, provider } = memoryTracing();
    const handler = withDurableExecution(
      async (_event: unknown, ctx) => {
        const first = await ctx.step('reserve', async () => 'r-1');
        const second = await ctx.step('charge', async ({ attempt }) => {
          if (attempt === 1) throw new Error('declined once');
          return 'c-1';
        });
        await ctx.step('ship', async () => 's-1');
        return [first, second];
      },
      {
        plugins: [
          otelTracing({
            tracerProvider: provider,
            functionName: 'pay',
          }),
        ],
      },
    );
    const driver = new TestDriver(
      { pay: handler },
      { startTime: FAULT_START, faults: { seed: 21, defaultProbability: 0, race: 1, maxFaults: 1 } },
    );
    const started = await driver.start('pay', {});
    const run = await driver.runUntilDone(started.runId);
    expect(driver.faults.map((f) => f.kind)).toEqual(['race']);
    expect(run.status).toBe('SUCCEEDED');

    const live = exporter.getFinishedSpans();
    const offline = runTrace(run, await driver.engine.getOperations(run.runId));
    // Whichever of the two invocations emitted a span, it has the id and place the stored trace gives it.
    const expected = new Map(offline.map((s) => [s.spanId, `${s.name} < ${s.parentSpanId ?? '-'}`]));
    for (const span of live) {
      const { spanId, name, parentSpanId } = shapeOf(span);
      expect(expected.get(spanId), name).toBe(`${name} < ${parentSpanId ?? '-'}`);
    }
    expect(new Set(live.map((s) => s.spanContext().spanId))).toEqual(new Set(expected.keys()));
  });
});
