/**
 * A test file written for AWS's testing package, as AWS's documentation shows one. It is kept twice:
 * order-workflow.aws.test.ts imports AWS's packages, order-workflow.ours.test.ts ours, and nothing
 * else differs (same-body.test.ts checks it): moving a test suite over is an import change.
 */

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createRetryStrategy,
  type DurableContext,
  OperationStatus,
  OperationType,
  withDurableExecution,
} from '../../../bench/node_modules/@aws/durable-execution-sdk-js';
import {
  ExecutionStatus,
  LocalDurableTestRunner,
  WaitingOperationStatus,
} from '../../../bench/node_modules/@aws/durable-execution-sdk-js-testing';

interface Order {
  orderId: string;
  items: Array<{ sku: string; qty: number }>;
}

let reserveFailures = 0;
let reserveCalls = 0;
/** Stands in for the payment provider the submitter hands the callback id to. */
const paymentRequests: string[] = [];

const orderWorkflow = withDurableExecution(async (order: Order, context: DurableContext) => {
  const total = await context.step('validate', async () => {
    if (!order.items || order.items.length === 0) throw new Error(`order ${order.orderId} has no items`);
    return order.items.reduce((sum, item) => sum + item.qty * 10, 0);
  });
  const reservation = await context.step(
    'reserve-stock',
    async () => {
      reserveCalls += 1;
      if (reserveCalls <= reserveFailures) throw new Error('inventory service unavailable');
      return { reservationId: `res-${order.orderId}` };
    },
    { retryStrategy: createRetryStrategy({ maxAttempts: 3, initialDelay: { seconds: 30 } }) },
  );
  const answer = await context.waitForCallback(
    'payment',
    async (callbackId) => {
      paymentRequests.push(callbackId);
    },
    { timeout: { hours: 1 } },
  );
  const payment = JSON.parse(answer) as { paymentId: string };
  await context.wait('cooling-off', { hours: 24 });
  const shipment = await context.step('ship', async () => ({ trackingId: `trk-${order.orderId}` }));
  return { orderId: order.orderId, total, ...reservation, ...payment, ...shipment };
});

const order: Order = { orderId: 'o-1', items: [{ sku: 'book', qty: 2 }] };

describe('order workflow', () => {
  let runner: LocalDurableTestRunner;

  beforeAll(async () => {
    await LocalDurableTestRunner.setupTestEnvironment({ skipTime: true });
    runner = new LocalDurableTestRunner({ handlerFunction: orderWorkflow });
  });

  afterAll(() => LocalDurableTestRunner.teardownTestEnvironment());

  beforeEach(() => {
    runner.reset();
    reserveFailures = 0;
    reserveCalls = 0;
    paymentRequests.length = 0;
  });

  it('ships a paid order', async () => {
    const execution = runner.run({ payload: order });

    const payment = runner.getOperation('payment');
    await payment.waitForData(WaitingOperationStatus.SUBMITTED);
    await payment.sendCallbackSuccess(JSON.stringify({ paymentId: 'pay-9' }));

    const result = await execution;
    expect(result.getStatus()).toBe(ExecutionStatus.SUCCEEDED);
    expect(result.getResult()).toEqual({
      orderId: 'o-1',
      total: 20,
      reservationId: 'res-o-1',
      paymentId: 'pay-9',
      trackingId: 'trk-o-1',
    });

    expect(runner.getOperation('validate').getStepDetails()?.result).toBe(20);
    const wait = runner.getOperation('cooling-off');
    expect(wait.getType()).toBe(OperationType.WAIT);
    expect(wait.getStatus()).toBe(OperationStatus.SUCCEEDED);
    expect(wait.getWaitDetails()?.waitSeconds).toBe(24 * 60 * 60);
    expect(runner.getOperation('payment').getCallbackDetails()?.result).toEqual({ paymentId: 'pay-9' });
    expect(paymentRequests).toHaveLength(1);
    expect(paymentRequests[0]).toBe(runner.getOperation('payment').getCallbackDetails()?.callbackId);
    expect(runner.getOperationByIndex(0).getName()).toBe('validate');
    expect(result.getInvocations().length).toBeGreaterThanOrEqual(2);
    expect(result.getOperations({ status: OperationStatus.SUCCEEDED }).map((op) => op.getName())).toContain('ship');
  });

  it('retries the stock reservation until the inventory service answers', async () => {
    reserveFailures = 2;
    const execution = runner.run({ payload: order });
    const payment = runner.getOperation('payment');
    await payment.waitForData(WaitingOperationStatus.SUBMITTED);
    await payment.sendCallbackSuccess(JSON.stringify({ paymentId: 'pay-10' }));
    const result = await execution;

    expect(result.getStatus()).toBe(ExecutionStatus.SUCCEEDED);
    const reserve = runner.getOperation('reserve-stock').getStepDetails();
    expect(reserve?.attempt).toBe(3);
    expect(reserve?.result).toEqual({ reservationId: 'res-o-1' });
    expect(reserveCalls).toBe(3);
  });

  it('fails the order when the payment is declined', async () => {
    const execution = runner.run({ payload: order });
    const payment = runner.getOperation('payment');
    await payment.waitForData(WaitingOperationStatus.SUBMITTED);
    await payment.sendCallbackFailure({ ErrorType: 'PaymentDeclined', ErrorMessage: 'card declined' });
    const result = await execution;

    expect(result.getStatus()).toBe(ExecutionStatus.FAILED);
    expect(result.getError()).toEqual({
      errorType: 'CallbackExternalError',
      errorMessage: 'card declined',
      errorData: undefined,
      stackTrace: undefined,
    });
    expect(runner.getOperation('payment').getStatus()).toBe(OperationStatus.FAILED);
    expect(runner.getOperation('ship').getStepDetails()).toBeUndefined();
    expect(result.getOperations().map((op) => op.getName())).not.toContain('ship');
  });

  it('rejects an empty order before reserving anything', async () => {
    reserveFailures = 0;
    const result = await runner.run({ payload: { orderId: 'o-2', items: [] } });

    expect(result.getStatus()).toBe(ExecutionStatus.FAILED);
    expect(result.getError()).toEqual({
      errorType: 'StepError',
      errorMessage: 'order o-2 has no items',
      errorData: undefined,
      stackTrace: undefined,
    });
    expect(runner.getOperation('validate').getStatus()).toBe(OperationStatus.FAILED);
    expect(reserveCalls).toBe(0);
  });

  it('can be told apart by name and index when a name repeats', async () => {
    const execution = runner.run({ payload: order });
    await runner.getOperation('payment').waitForData(WaitingOperationStatus.SUBMITTED);
    await runner.getOperationByNameAndIndex('payment', 0).sendCallbackSuccess(JSON.stringify({ paymentId: 'p' }));
    const result = await execution;
    expect(result.getStatus()).toBe(ExecutionStatus.SUCCEEDED);
    const ship = runner.getOperationByNameAndIndex('ship', 0);
    await ship.waitForData(WaitingOperationStatus.COMPLETED);
    expect(ship.getStepDetails()?.result).toEqual({ trackingId: 'trk-o-1' });
  });
});
