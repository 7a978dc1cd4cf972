/**
 * Order saga: reserve the stock, then have the separately deployed `payments` durable function
 * take the payment (`context.invoke` starts its run and waits for its result). The reservation
 * registers its undo (`compensate`); when the payment fails, the saga compensates in a child
 * context: `compensate()` releases the reservation, then the customer is told. Each compensating
 * action is a step, so it runs once however many times the saga replays. When the payment fails
 * for another reason than a declined card, the handler throws and the SDK runs the release itself
 * before failing the run.
 */
import { type DurableLambdaHandler, InvokeError, NonRetriableError, withDurableExecution } from '@durable-lambda/sdk';
import { callJson, expectOk, requireEnv } from '../shared/http';
import type { PaymentRequest, PaymentResult } from './payments';

export interface OrderLine {
  sku: string;
  quantity: number;
  unitPriceCents: number;
}

/** The event that starts a saga. */
export interface Order {
  orderId: string;
  customerId: string;
  email: string;
  /** ISO 4217, e.g. `EUR`. */
  currency: string;
  lines: OrderLine[];
}

/** Inputs to try the workflow with: the dev server's start form offers them. */
export const samples: ReadonlyArray<{ name: string; input: Order }> = [
  {
    name: 'three oak lamps',
    input: {
      orderId: 'order-2001',
      customerId: 'cus-42',
      email: 'ada@example.com',
      currency: 'EUR',
      lines: [{ sku: 'LAMP-OAK', quantity: 3, unitPriceCents: 1500 }],
    },
  },
];

export interface Inventory {
  reserve(orderId: string, lines: OrderLine[], idempotencyKey: string): Promise<{ reservationId: string }>;
  release(reservationId: string, idempotencyKey: string): Promise<void>;
}

export interface Mailer {
  send(message: { to: string; subject: string; text: string }, idempotencyKey: string): Promise<void>;
}

export interface OrderSagaServices {
  inventory: Inventory;
  mailer: Mailer;
}

export interface OrderSagaOptions {
  /** The durable function that takes payments (its Lambda function name). Default `payments`. */
  paymentsFunction?: string;
}

export type OrderSagaResult =
  | { status: 'confirmed'; orderId: string; chargeId: string; amountCents: number }
  | {
      status: 'cancelled';
      orderId: string;
      /** The payments run's error, as the InvokeError carried it. */
      paymentError: { code: string; errorType: string; message: string };
    };

/** Builds the saga's handler on the given services. */
export function createOrderSagaHandler(
  services: OrderSagaServices,
  options: OrderSagaOptions = {},
): DurableLambdaHandler {
  const paymentsFunction = options.paymentsFunction ?? 'payments';
  return withDurableExecution<Order, OrderSagaResult>(async (order, ctx) => {
    const { orderId, customerId, currency } = order;
    const amountCents = await ctx.step('price-order', () => priceOrder(order));
    await ctx.step(
      'reserve-inventory',
      ({ idempotencyKey }) => services.inventory.reserve(orderId, order.lines, idempotencyKey),
      {
        // The undo, registered once the reservation is made: run by `compensate()` below, or by
        // the SDK if the handler throws.
        compensate: ({ reservationId }, { idempotencyKey }) =>
          services.inventory.release(reservationId, idempotencyKey),
      },
    );

    let payment: PaymentResult;
    try {
      // Starts a run of `payments` (once, however often this replays) and suspends until it ends.
      payment = await ctx.invoke<PaymentRequest, PaymentResult>('take-payment', paymentsFunction, {
        orderId,
        customerId,
        amountCents,
        currency,
      });
    } catch (error) {
      // The payments run failed: its message and code come back on an InvokeError. A declined
      // card cancels the order here; any other failure (the gateway down through every retry)
      // fails the order: the handler rethrows, and the SDK releases the reservation (its
      // registered undo) before the run fails, its error saying what was undone.
      if (!(error instanceof InvokeError) || error.code !== 'payment_declined') throw error;
      ctx.logger.warn('payment failed, compensating', { orderId, code: error.code, message: error.message });
      await ctx.runInChildContext('compensate', async (compensation) => {
        // Releases the reservation (step `compensate reserve-inventory`), once per run.
        await compensation.compensate();
        await compensation.step('notify-customer', ({ idempotencyKey }) =>
          services.mailer.send(
            {
              to: order.email,
              subject: `Order ${orderId} cancelled`,
              text: `We could not take the payment (${error.message}), so the order was cancelled.`,
            },
            idempotencyKey,
          ),
        );
      });
      return {
        status: 'cancelled',
        orderId,
        paymentError: { code: error.code, errorType: error.errorType, message: error.message },
      };
    }

    await ctx.step('send-confirmation', ({ idempotencyKey }) =>
      services.mailer.send(
        {
          to: order.email,
          subject: `Order ${orderId} confirmed`,
          text: `We charged ${(payment.amountCents / 100).toFixed(2)} ${currency} (${payment.chargeId}).`,
        },
        idempotencyKey,
      ),
    );
    return { status: 'confirmed', orderId, chargeId: payment.chargeId, amountCents: payment.amountCents };
  });
}

/** The order's total in cents; an order that can never be paid fails at once. */
export function priceOrder(order: Order): number {
  if (!Array.isArray(order?.lines) || order.lines.length === 0) throw new NonRetriableError('the order has no lines');
  return order.lines.reduce((sum, line) => sum + line.quantity * line.unitPriceCents, 0);
}

/** The production wiring: HTTP services at INVENTORY_URL and MAILER_URL. */
export function httpOrderSagaServices(): OrderSagaServices {
  return {
    inventory: {
      async reserve(orderId, lines, idempotencyKey) {
        const response = await callJson<{ reservationId: string }>(
          requireEnv('INVENTORY_URL'),
          'POST',
          '/reservations',
          { orderId, lines },
          { idempotencyKey },
        );
        return expectOk(response, 'reserve stock');
      },
      async release(reservationId, idempotencyKey) {
        const path = `/reservations/${encodeURIComponent(reservationId)}/release`;
        expectOk(
          await callJson(requireEnv('INVENTORY_URL'), 'POST', path, undefined, { idempotencyKey }),
          'release stock',
        );
      },
    },
    mailer: {
      async send(message, idempotencyKey) {
        expectOk(
          await callJson(requireEnv('MAILER_URL'), 'POST', '/messages', message, { idempotencyKey }),
          'send mail',
        );
      },
    },
  };
}

/** The saga's Lambda handler. */
export const handler = createOrderSagaHandler(httpOrderSagaServices());
