/**
 * Checkout: validate an order, reserve its stock, charge the card, give the customer a
 * cancellation window, then confirm. A failed charge releases the stock; a cancellation in the
 * window refunds the charge. Every side effect is a step, so a crash or a re-invocation never
 * repeats one that already completed.
 */
import {
  type DurableLambdaHandler,
  JitterStrategy,
  NonRetriableError,
  RetryAfterError,
  type RetryPolicy,
  StepError,
  withDurableExecution,
} from '@durable-lambda/sdk';
import { type ApiResponse, type CallOptions, callJson, expectOk, requireEnv } from '../shared/http';

export interface OrderLine {
  sku: string;
  quantity: number;
  unitPriceCents: number;
}

/** The event that starts a checkout. */
export interface Order {
  orderId: string;
  customerId: string;
  email: string;
  /** ISO 4217, e.g. `EUR`. */
  currency: string;
  lines: OrderLine[];
}

/**
 * Inputs to try the workflow with: the dev server's start form offers them (its fakes stock
 * these SKUs). Each is a whole order, as the run's input.
 */
export const samples: ReadonlyArray<{ name: string; input: Order }> = [
  {
    name: 'two mugs and a tee',
    input: {
      orderId: 'order-1001',
      customerId: 'cus-42',
      email: 'ada@example.com',
      currency: 'EUR',
      lines: [
        { sku: 'MUG-BLUE', quantity: 2, unitPriceCents: 1250 },
        { sku: 'TEE-M', quantity: 1, unitPriceCents: 2000 },
      ],
    },
  },
];

export interface ChargeRequest {
  orderId: string;
  customerId: string;
  amountCents: number;
  currency: string;
}

/**
 * The payment provider's HTTP API. It deduplicates by `Idempotency-Key`: a request repeated with
 * a key it has seen gets the first answer, and the card is charged at most once per key.
 */
export interface PaymentsApi {
  charge(request: ChargeRequest, options: Required<CallOptions>): Promise<ApiResponse<{ chargeId: string }>>;
  refund(
    request: { chargeId: string; amountCents: number },
    options: Required<CallOptions>,
  ): Promise<ApiResponse<{ refundId: string }>>;
}

export interface Inventory {
  reserve(orderId: string, lines: OrderLine[], idempotencyKey: string): Promise<{ reservationId: string }>;
  release(reservationId: string, idempotencyKey: string): Promise<void>;
}

/** Where the shop records that a customer cancelled an order. */
export interface OrderStore {
  isCancelled(orderId: string): Promise<boolean>;
}

export interface Mailer {
  send(message: { to: string; subject: string; text: string }, idempotencyKey: string): Promise<void>;
}

/** Everything the workflow talks to; tests pass fakes. */
export interface CheckoutServices {
  payments: PaymentsApi;
  inventory: Inventory;
  orders: OrderStore;
  mailer: Mailer;
}

export type CheckoutResult =
  | { status: 'confirmed'; orderId: string; chargeId: string; amountCents: number }
  | { status: 'cancelled'; orderId: string; reason: string; refunded: boolean };

/**
 * Retries of the charge: 4 attempts, 2 s then 4 s then 8 s (HALF jitter: each between half
 * and all of that). A `Retry-After` from the API replaces the computed delay exactly.
 */
export const CHARGE_RETRY: RetryPolicy = {
  maxAttempts: 4,
  initialMs: 2_000,
  maxMs: 30_000,
  multiplier: 2,
  jitter: JitterStrategy.HALF,
};

/** How long a customer may cancel after paying, before the confirmation goes out. */
export const CANCELLATION_WINDOW = { minutes: 30 };

/** The longest `Retry-After` we honour; RetryAfterError accepts up to 24 h. */
const MAX_RETRY_AFTER_MS = 60 * 60 * 1000;

/** Builds the checkout handler on the given services. */
export function createCheckoutHandler(services: CheckoutServices): DurableLambdaHandler {
  return withDurableExecution<Order, CheckoutResult>(async (order, ctx) => {
    // A bad order can never succeed: NonRetriableError fails the step (and the run) at once.
    const amountCents = await ctx.step('validate-order', () => validateOrder(order));
    const { orderId } = order;

    const { reservationId } = await ctx.step('reserve-stock', ({ idempotencyKey }) =>
      services.inventory.reserve(orderId, order.lines, idempotencyKey),
    );

    // The key differs per attempt (`<runId>:<stepId>:<attempt>`), so the provider deduplicates
    // repeats of one attempt's request. It cannot tie a retry to an earlier attempt that timed out
    // after the card was charged: for that, the provider must also deduplicate by order id.
    let chargeId: string;
    try {
      chargeId = await ctx.step(
        'charge-card',
        async ({ idempotencyKey, signal }) => {
          const request = { orderId, customerId: order.customerId, amountCents, currency: order.currency };
          const response = await services.payments.charge(request, { idempotencyKey, signal });
          return paymentOutcome(response, 'charge').chargeId;
        },
        { retry: CHARGE_RETRY, timeout: { seconds: 30 } },
      );
    } catch (error) {
      // The retries are used up (or the card was declined): undo what was done so far.
      if (!(error instanceof StepError)) throw error;
      ctx.logger.warn('charge failed, releasing the stock', { code: error.code, message: error.message });
      await ctx.step('release-stock', ({ idempotencyKey }) =>
        services.inventory.release(reservationId, idempotencyKey),
      );
      await ctx.step('send-payment-failed', ({ idempotencyKey }) =>
        services.mailer.send(
          {
            to: order.email,
            subject: `Order ${orderId}: payment failed`,
            text: 'We could not charge your card, so the order was cancelled.',
          },
          idempotencyKey,
        ),
      );
      return { status: 'cancelled', orderId, reason: `payment failed (${error.code})`, refunded: false };
    }

    // A durable wait: the invocation ends here and the run is re-invoked 30 minutes later.
    await ctx.wait('cancellation-window', CANCELLATION_WINDOW);

    if (await ctx.step('check-cancellation', () => services.orders.isCancelled(orderId))) {
      await ctx.step('refund', async ({ idempotencyKey, signal }) => {
        const response = await services.payments.refund({ chargeId, amountCents }, { idempotencyKey, signal });
        return paymentOutcome(response, 'refund').refundId;
      });
      await ctx.step('release-stock', ({ idempotencyKey }) =>
        services.inventory.release(reservationId, idempotencyKey),
      );
      return { status: 'cancelled', orderId, reason: 'cancelled by the customer', refunded: true };
    }

    await ctx.step('send-confirmation', ({ idempotencyKey }) =>
      services.mailer.send(
        {
          to: order.email,
          subject: `Order ${orderId} confirmed`,
          text: `We charged ${formatMoney(amountCents, order.currency)}. Thank you!`,
        },
        idempotencyKey,
      ),
    );
    return { status: 'confirmed', orderId, chargeId, amountCents };
  });
}

/** Checks an order and returns its total in cents. */
export function validateOrder(order: Order): number {
  const problems: string[] = [];
  if (!order || typeof order !== 'object') throw new NonRetriableError('invalid order: not an object');
  if (typeof order.orderId !== 'string' || order.orderId === '') problems.push('orderId is missing');
  if (typeof order.customerId !== 'string' || order.customerId === '') problems.push('customerId is missing');
  if (typeof order.email !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(order.email)) problems.push('email is invalid');
  if (typeof order.currency !== 'string' || !/^[A-Z]{3}$/.test(order.currency)) problems.push('currency is invalid');
  if (!Array.isArray(order.lines) || order.lines.length === 0) problems.push('the order has no lines');
  let total = 0;
  for (const [i, line] of (Array.isArray(order.lines) ? order.lines : []).entries()) {
    if (!Number.isInteger(line?.quantity) || line.quantity < 1) problems.push(`lines[${i}].quantity must be >= 1`);
    if (!Number.isInteger(line?.unitPriceCents) || line.unitPriceCents < 0) {
      problems.push(`lines[${i}].unitPriceCents must be a whole number >= 0`);
    }
    total += (line?.quantity ?? 0) * (line?.unitPriceCents ?? 0);
  }
  if (problems.length === 0 && total <= 0) problems.push('the total must be above zero');
  if (problems.length > 0) throw new NonRetriableError(`invalid order: ${problems.join('; ')}`);
  return total;
}

/**
 * What an answer of the payments API means for the step: a 2xx is the result; 429 or 503 with
 * `Retry-After` retries after exactly that delay; another 4xx (a declined card, a bad request)
 * can never succeed; anything else is retried by the policy.
 */
export function paymentOutcome<T>(response: ApiResponse<T>, what: string): T {
  const { status } = response;
  if (status >= 200 && status < 300) {
    if (response.body === undefined) throw new Error(`${what}: HTTP ${status} without a body`);
    return response.body;
  }
  const retryAfterMs = parseRetryAfter(response.retryAfter);
  if ((status === 429 || status === 503) && retryAfterMs !== undefined) {
    throw new RetryAfterError(`${what}: HTTP ${status}, retry after ${retryAfterMs / 1000}s`, retryAfterMs);
  }
  if (status >= 400 && status < 500 && status !== 408 && status !== 429) {
    throw new NonRetriableError(`${what}: HTTP ${status}`);
  }
  throw new Error(`${what}: HTTP ${status}`);
}

/** A `Retry-After` in delta-seconds, in ms (capped); undefined when absent or not a number. */
function parseRetryAfter(header: string | undefined): number | undefined {
  if (header === undefined || !/^\d+$/.test(header.trim())) return undefined;
  return Math.min(Number(header.trim()) * 1000, MAX_RETRY_AFTER_MS);
}

function formatMoney(cents: number, currency: string): string {
  return `${(cents / 100).toFixed(2)} ${currency}`;
}

/** The production wiring: HTTP services at the URLs in PAYMENTS_URL, INVENTORY_URL, ORDERS_URL, MAILER_URL. */
export function httpCheckoutServices(): CheckoutServices {
  return {
    payments: {
      charge: (request, options) => callJson(requireEnv('PAYMENTS_URL'), 'POST', '/charges', request, options),
      refund: (request, options) => callJson(requireEnv('PAYMENTS_URL'), 'POST', '/refunds', request, options),
    },
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
        expectOk(await callJson(requireEnv('INVENTORY_URL'), 'POST', path, {}, { idempotencyKey }), 'release stock');
      },
    },
    orders: {
      async isCancelled(orderId) {
        const path = `/orders/${encodeURIComponent(orderId)}`;
        const order = expectOk(
          await callJson<{ cancelled: boolean }>(requireEnv('ORDERS_URL'), 'GET', path, undefined),
          'order',
        );
        return order.cancelled === true;
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

/** The Lambda handler. Deployed, its runs are stored by the production backend (see the README's Status). */
export const handler = createCheckoutHandler(httpCheckoutServices());
