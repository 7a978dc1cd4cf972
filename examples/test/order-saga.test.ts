import { LocalDurableTestRunner } from '@durable-lambda/local';
import { describe, expect, it } from 'vitest';
import { fakeOrderSagaServices, sampleOrder } from '../order-saga/fakes';
import { createOrderSagaHandler, type OrderSagaResult } from '../order-saga/handler';
import { createPaymentsHandler } from '../order-saga/payments';

const START = Date.UTC(2025, 5, 2, 12, 0, 0);

function setup(options: { mailFailures?: number } = {}) {
  const fakes = fakeOrderSagaServices(options);
  const runner = new LocalDurableTestRunner<OrderSagaResult>({
    handlerFunction: createOrderSagaHandler(fakes.services),
    startTime: START,
  }).registerDurableFunction('payments', createPaymentsHandler(fakes.paymentServices));
  return { ...fakes, runner };
}

describe('order saga', () => {
  it('reserves the stock, takes the payment through the payments function, and confirms', async () => {
    const { runner, inventory, gateway, mailer } = setup();

    const result = await runner.run({ payload: sampleOrder() });

    expect(result.getStatus()).toBe('SUCCEEDED');
    expect(result.getResult()).toEqual({
      status: 'confirmed',
      orderId: 'order-2001',
      chargeId: 'ch_1',
      amountCents: 4500,
    });
    expect(result.getOperations().map((op) => [op.getName(), op.getType(), op.getStatus()])).toEqual([
      ['price-order', 'STEP', 'SUCCEEDED'],
      ['reserve-inventory', 'STEP', 'SUCCEEDED'],
      ['take-payment', 'CHAINED_INVOKE', 'SUCCEEDED'],
      ['send-confirmation', 'STEP', 'SUCCEEDED'],
    ]);
    // The invoke started one run of `payments` with the order's amount, and waited for it:
    // the saga's first invocation ended there, the second began when the payments run ended.
    const invoke = runner.getOperation('take-payment').getStoredOperation().ChainedInvokeDetails;
    expect(invoke?.FunctionName).toBe('payments');
    expect(JSON.parse(invoke?.Input ?? '{}')).toEqual({
      orderId: 'order-2001',
      customerId: 'cus-42',
      amountCents: 4500,
      currency: 'EUR',
    });
    expect(result.getInvocationCount()).toBe(2);
    expect(gateway.authorizations).toHaveLength(1);
    expect(gateway.captures).toEqual([{ chargeId: 'ch_1', authorizationId: 'auth_1', amountCents: 4500 }]);
    expect(inventory.reservations.get('res_order-2001')?.released).toBe(false);
    expect(runner.getOperation('compensate').exists()).toBe(false);
    expect(mailer.sent.map((m) => m.subject)).toEqual(['Order order-2001 confirmed']);
  });

  it('compensates once in a child context when the payments run fails, and surfaces its error', async () => {
    // The first mail fails, so the compensation's notify step is retried in a later invocation
    // that replays the compensation: the release must not run again.
    const { runner, inventory, gateway, mailer } = setup({ mailFailures: 1 });
    gateway.decline('insufficient funds');

    const result = await runner.run({ payload: sampleOrder() });

    // The saga caught the InvokeError: the run succeeds with a cancelled order.
    expect(result.getStatus()).toBe('SUCCEEDED');
    expect(result.getResult()).toEqual({
      status: 'cancelled',
      orderId: 'order-2001',
      // The payments run's own code and message, carried by the InvokeError (as on AWS, its
      // type is the InvokeError's own).
      paymentError: {
        code: 'payment_declined',
        errorType: 'InvokeError',
        message: 'card declined: insufficient funds',
      },
    });
    const invoke = runner.getOperation('take-payment');
    expect(invoke.getStatus()).toBe('FAILED');
    // The child run's own error: the StepError that escaped its handler, with the step's code.
    expect(invoke.getStoredOperation().ChainedInvokeDetails?.Error).toMatchObject({
      ErrorType: 'StepError',
      ErrorCode: 'payment_declined',
    });
    expect(gateway.captures).toHaveLength(0);

    // The compensation: one child context holding the reservation's registered undo (chosen by
    // the `saga plan` step) and the notification.
    const compensate = runner.getOperation('compensate');
    expect(compensate.getType()).toBe('CONTEXT');
    expect(compensate.getStatus()).toBe('SUCCEEDED');
    expect(compensate.getChildOperations()?.map((op) => [op.getName(), op.getStepDetails()?.attempt])).toEqual([
      ['saga plan', 1],
      ['compensate reserve-inventory', 1],
      ['notify-customer', 2],
    ]);
    // Three invocations: the start, the payments run's end, the mail retry. Each compensating
    // action took effect once.
    expect(result.getInvocationCount()).toBe(3);
    expect(inventory.releaseCalls).toEqual(['res_order-2001']);
    expect(inventory.reservations.get('res_order-2001')?.released).toBe(true);
    expect(mailer.calls).toBe(2);
    expect(mailer.sent).toEqual([
      {
        to: 'ada@example.com',
        subject: 'Order order-2001 cancelled',
        text: 'We could not take the payment (card declined: insufficient funds), so the order was cancelled.',
      },
    ]);
    expect(runner.getOperation('send-confirmation').exists()).toBe(false);
    expect(result.getLogs().map((entry) => entry.message)).toEqual(['payment failed, compensating']);
  });

  it('fails the order when the gateway is down through every retry, releasing the stock first', async () => {
    const { runner, inventory, gateway, mailer } = setup();
    gateway.outageFor('cus-42');

    const result = await runner.run({ payload: sampleOrder() });

    // Not a declined card: the saga rethrows, and the SDK runs the reservation's undo first.
    expect(result.getStatus()).toBe('FAILED');
    expect(result.getError().errorType).toBe('InvokeError');
    expect(JSON.parse(result.getError().errorData ?? '{}')).toEqual({ compensated: ['reserve-inventory'], failed: [] });
    expect(inventory.releaseCalls).toEqual(['res_order-2001']);
    expect(runner.getOperation('compensate reserve-inventory').getStatus()).toBe('SUCCEEDED');
    expect(runner.getOperation('compensate').exists()).toBe(false);
    expect(mailer.sent).toEqual([]);
  });
});
