/** In-memory stand-ins for the checkout's services, for tests and `npm start`. */
import type { ApiResponse } from '../shared/http';
import type {
  ChargeRequest,
  CheckoutServices,
  Inventory,
  Mailer,
  Order,
  OrderLine,
  OrderStore,
  PaymentsApi,
} from './handler';

/**
 * A payment provider that deduplicates by idempotency key, like real ones: a key it has
 * answered before gets the same answer again and never a second charge. Queue answers with
 * {@link respondWith} (e.g. a 429) to be given before it starts succeeding.
 */
export class FakePaymentsApi implements PaymentsApi {
  /** Every charge request received, in order, duplicates included. */
  readonly chargeRequests: Array<ChargeRequest & { idempotencyKey: string }> = [];
  /** Charges actually made. */
  readonly charges: Array<{ chargeId: string; amountCents: number; idempotencyKey: string }> = [];
  readonly refunds: Array<{ refundId: string; chargeId: string; amountCents: number }> = [];
  /** Called after each successful charge (e.g. to have the customer cancel). */
  onCharge: (request: ChargeRequest) => void = () => {};
  private readonly queued: Array<ApiResponse<never>> = [];
  private failing: ApiResponse<never> | undefined;
  private readonly answered = new Map<string, ApiResponse<unknown>>();

  /** The next charge requests get these answers, in order, before the API succeeds. */
  respondWith(...responses: Array<ApiResponse<never>>): this {
    this.queued.push(...responses);
    return this;
  }

  /** Every charge request gets this answer (an outage). */
  alwaysRespondWith(response: ApiResponse<never>): this {
    this.failing = response;
    return this;
  }

  async charge(
    request: ChargeRequest,
    options: { idempotencyKey: string },
  ): Promise<ApiResponse<{ chargeId: string }>> {
    this.chargeRequests.push({ ...request, idempotencyKey: options.idempotencyKey });
    const seen = this.answered.get(options.idempotencyKey);
    if (seen) return seen as ApiResponse<{ chargeId: string }>;
    const scripted = this.failing ?? this.queued.shift();
    if (scripted) {
      // Rate limiting happens before the request is processed, so it is not remembered by key.
      if (scripted.status !== 429) this.answered.set(options.idempotencyKey, scripted);
      return scripted;
    }
    const chargeId = `ch_${this.charges.length + 1}`;
    this.charges.push({ chargeId, amountCents: request.amountCents, idempotencyKey: options.idempotencyKey });
    const response = { status: 201, body: { chargeId } };
    this.answered.set(options.idempotencyKey, response);
    this.onCharge(request);
    return response;
  }

  async refund(
    request: { chargeId: string; amountCents: number },
    options: { idempotencyKey: string },
  ): Promise<ApiResponse<{ refundId: string }>> {
    const seen = this.answered.get(options.idempotencyKey);
    if (seen) return seen as ApiResponse<{ refundId: string }>;
    if (!this.charges.some((c) => c.chargeId === request.chargeId)) return { status: 404 };
    const refundId = `re_${this.refunds.length + 1}`;
    this.refunds.push({ refundId, ...request });
    const response = { status: 201, body: { refundId } };
    this.answered.set(options.idempotencyKey, response);
    return response;
  }
}

export class FakeInventory implements Inventory {
  readonly reservations = new Map<string, { orderId: string; lines: OrderLine[]; released: boolean }>();

  async reserve(orderId: string, lines: OrderLine[]): Promise<{ reservationId: string }> {
    const reservationId = `res_${orderId}`;
    this.reservations.set(reservationId, { orderId, lines, released: false });
    return { reservationId };
  }

  async release(reservationId: string): Promise<void> {
    const reservation = this.reservations.get(reservationId);
    if (!reservation) throw new Error(`no reservation ${reservationId}`);
    reservation.released = true;
  }
}

export class FakeOrderStore implements OrderStore {
  private readonly cancelled = new Set<string>();

  cancel(orderId: string): void {
    this.cancelled.add(orderId);
  }

  async isCancelled(orderId: string): Promise<boolean> {
    return this.cancelled.has(orderId);
  }
}

export class FakeMailer implements Mailer {
  readonly sent: Array<{ to: string; subject: string; text: string; idempotencyKey: string }> = [];

  async send(message: { to: string; subject: string; text: string }, idempotencyKey: string): Promise<void> {
    this.sent.push({ ...message, idempotencyKey });
  }
}

/** A fresh set of fakes, plus the services object the handler takes. */
export function fakeCheckoutServices() {
  const fakes = {
    payments: new FakePaymentsApi(),
    inventory: new FakeInventory(),
    orders: new FakeOrderStore(),
    mailer: new FakeMailer(),
  };
  const services: CheckoutServices = fakes;
  return { ...fakes, services };
}

/** A valid order: 2 × 12.50 + 1 × 20.00 = 45.00 EUR. */
export function sampleOrder(overrides: Partial<Order> = {}): Order {
  return {
    orderId: 'order-1001',
    customerId: 'cus-42',
    email: 'ada@example.com',
    currency: 'EUR',
    lines: [
      { sku: 'MUG-BLUE', quantity: 2, unitPriceCents: 1250 },
      { sku: 'TEE-M', quantity: 1, unitPriceCents: 2000 },
    ],
    ...overrides,
  };
}
