import { LocalDurableTestRunner } from '@durable-lambda/local';
import { describe, expect, it } from 'vitest';
import { fakeCheckoutServices, sampleOrder } from '../checkout/fakes';
import { type CheckoutResult, createCheckoutHandler } from '../checkout/handler';

const START = Date.UTC(2025, 0, 6, 9, 0, 0);
const WINDOW_MS = 30 * 60 * 1000;

function setup() {
  const fakes = fakeCheckoutServices();
  const runner = new LocalDurableTestRunner<CheckoutResult>({
    handlerFunction: createCheckoutHandler(fakes.services),
    startTime: START,
  });
  return { ...fakes, runner };
}

/** Virtual ms between consecutive invocations of a run. */
function gaps(starts: readonly { startedAt: Date }[]): number[] {
  return starts.slice(1).map((inv, i) => inv.startedAt.getTime() - (starts[i]?.startedAt.getTime() ?? 0));
}

describe('checkout', () => {
  it('charges, waits out the cancellation window and confirms', async () => {
    const { runner, payments, inventory, mailer } = setup();

    const result = await runner.run({ payload: sampleOrder() });

    expect(result.getStatus()).toBe('SUCCEEDED');
    expect(result.getResult()).toEqual({
      status: 'confirmed',
      orderId: 'order-1001',
      chargeId: 'ch_1',
      amountCents: 4500,
    });
    expect(result.getOperations().map((op) => [op.getName(), op.getType(), op.getStatus()])).toEqual([
      ['validate-order', 'STEP', 'SUCCEEDED'],
      ['reserve-stock', 'STEP', 'SUCCEEDED'],
      ['charge-card', 'STEP', 'SUCCEEDED'],
      ['cancellation-window', 'WAIT', 'SUCCEEDED'],
      ['check-cancellation', 'STEP', 'SUCCEEDED'],
      ['send-confirmation', 'STEP', 'SUCCEEDED'],
    ]);
    expect(runner.getOperation('cancellation-window').getWaitDetails()?.waitSeconds).toBe(30 * 60);
    // The wait ended the first invocation; the second replayed up to it and went on.
    expect(result.getInvocationCount()).toBe(2);
    expect(gaps(result.getInvocations())).toEqual([WINDOW_MS]);
    expect(payments.charges).toEqual([expect.objectContaining({ chargeId: 'ch_1', amountCents: 4500 })]);
    expect(inventory.reservations.get('res_order-1001')?.released).toBe(false);
    expect(mailer.sent.map((m) => m.subject)).toEqual(['Order order-1001 confirmed']);
    expect(mailer.sent[0]?.text).toContain('45.00 EUR');
  });

  it('honours Retry-After on 429: attempt 3 succeeds after exactly 7 s and 30 s, one key per attempt', async () => {
    const { runner, payments } = setup();
    payments.respondWith({ status: 429, retryAfter: '7' }, { status: 429, retryAfter: '30' });

    const result = await runner.run({ payload: sampleOrder() });

    expect(result.getResult()).toMatchObject({ status: 'confirmed', chargeId: 'ch_1' });
    const charge = runner.getOperation('charge-card');
    expect(charge.getStepDetails()).toMatchObject({ attempt: 3, result: 'ch_1', error: undefined });
    // Each backoff ended an invocation; the virtual clock jumped exactly the Retry-After delays.
    expect(result.getInvocationCount()).toBe(4);
    expect(gaps(result.getInvocations())).toEqual([7_000, 30_000, WINDOW_MS]);

    // `<runId>:<stepId>:<attempt>`, a new key for each attempt, and a single charge.
    const runId = result.getRunId();
    const stepId = charge.getId();
    const keys = payments.chargeRequests.map((r) => r.idempotencyKey);
    expect(keys).toEqual([`${runId}:${stepId}:1`, `${runId}:${stepId}:2`, `${runId}:${stepId}:3`]);
    expect(new Set(keys).size).toBe(3);
    expect(keys[0]).toMatch(/^[0-9a-z]+:3:1$/);
    expect(payments.charges).toHaveLength(1);
  });

  it('fails an invalid order at once with non_retriable, without retries or side effects', async () => {
    const { runner, payments, inventory } = setup();

    const result = await runner.run({ payload: sampleOrder({ email: 'not-an-email', lines: [] }) });

    expect(result.getStatus()).toBe('FAILED');
    // As on AWS, the run's error is the StepError that escaped the handler; the step keeps the cause's type.
    expect(result.getError()).toMatchObject({ code: 'non_retriable', errorType: 'StepError' });
    expect(result.getError()?.errorMessage).toBe('invalid order: email is invalid; the order has no lines');
    expect(result.getInvocationCount()).toBe(1);
    const validate = runner.getOperation('validate-order');
    expect(validate.getStatus()).toBe('FAILED');
    expect(validate.getStepDetails()).toMatchObject({ attempt: 1, error: { code: 'non_retriable' } });
    expect(result.getOperations()).toHaveLength(1);
    expect(inventory.reservations.size).toBe(0);
    expect(payments.chargeRequests).toHaveLength(0);
  });

  it('releases the stock and tells the customer when the charge keeps failing (compensation)', async () => {
    const { runner, payments, inventory, mailer } = setup();
    payments.alwaysRespondWith({ status: 502 });

    const result = await runner.run({ payload: sampleOrder() });

    // The handler caught the StepError: the run itself succeeds with a cancelled order.
    expect(result.getStatus()).toBe('SUCCEEDED');
    expect(result.getResult()).toEqual({
      status: 'cancelled',
      orderId: 'order-1001',
      reason: 'payment failed (step_failed)',
      refunded: false,
    });
    const charge = runner.getOperation('charge-card');
    expect(charge.getStatus()).toBe('FAILED');
    expect(charge.getStepDetails()).toMatchObject({
      attempt: 4,
      error: { code: 'step_failed', errorType: 'Error', errorMessage: 'charge: HTTP 502' },
    });
    expect(payments.chargeRequests).toHaveLength(4);
    expect(payments.charges).toHaveLength(0);
    // CHARGE_RETRY: 2 s, 4 s, 8 s, each with HALF jitter (between half and all of it).
    const backoffs = gaps(result.getInvocations());
    expect(backoffs).toHaveLength(3);
    [2_000, 4_000, 8_000].forEach((delay, i) => {
      expect(backoffs[i]).toBeGreaterThanOrEqual(delay / 2);
      expect(backoffs[i]).toBeLessThanOrEqual(delay);
    });
    expect(runner.getOperation('release-stock').getStatus()).toBe('SUCCEEDED');
    expect(inventory.reservations.get('res_order-1001')?.released).toBe(true);
    expect(mailer.sent.map((m) => m.subject)).toEqual(['Order order-1001: payment failed']);
    expect(runner.getOperation('cancellation-window').exists()).toBe(false);
  });

  it('does not retry a declined card (402 is non-retriable) and compensates at once', async () => {
    const { runner, payments, inventory } = setup();
    payments.respondWith({ status: 402 });

    const result = await runner.run({ payload: sampleOrder() });

    expect(result.getResult()).toMatchObject({ status: 'cancelled', reason: 'payment failed (non_retriable)' });
    expect(runner.getOperation('charge-card').getStepDetails()).toMatchObject({
      attempt: 1,
      error: { code: 'non_retriable', errorMessage: 'charge: HTTP 402' },
    });
    expect(result.getInvocationCount()).toBe(1);
    expect(inventory.reservations.get('res_order-1001')?.released).toBe(true);
  });

  it('refunds the charge when the customer cancels during the window', async () => {
    const { runner, payments, orders, inventory, mailer } = setup();
    payments.onCharge = (request) => orders.cancel(request.orderId);

    const result = await runner.run({ payload: sampleOrder() });

    expect(result.getResult()).toEqual({
      status: 'cancelled',
      orderId: 'order-1001',
      reason: 'cancelled by the customer',
      refunded: true,
    });
    expect(payments.refunds).toEqual([{ refundId: 're_1', chargeId: 'ch_1', amountCents: 4500 }]);
    expect(inventory.reservations.get('res_order-1001')?.released).toBe(true);
    expect(mailer.sent).toHaveLength(0);
  });

  it('replays completed steps instead of running them again', async () => {
    const { runner, payments, inventory } = setup();
    payments.respondWith({ status: 429, retryAfter: '1' });

    const result = await runner.run({ payload: sampleOrder() });

    // Three invocations replayed validate-order and reserve-stock; each ran once.
    expect(result.getInvocationCount()).toBe(3);
    expect(inventory.reservations.size).toBe(1);
    expect(payments.chargeRequests).toHaveLength(2);
    expect(runner.getOperation('reserve-stock').getStepDetails()?.attempt).toBe(1);
  });
});
