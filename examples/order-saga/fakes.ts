/** In-memory stand-ins for the order saga's and the payments function's services. */
import type { Inventory, Mailer, Order, OrderLine, OrderSagaServices } from './handler';
import type { CardGateway, PaymentRequest, PaymentServices } from './payments';

export class FakeInventory implements Inventory {
  readonly reservations = new Map<string, { orderId: string; lines: OrderLine[]; released: boolean }>();
  /** Every release call, duplicates included. */
  readonly releaseCalls: string[] = [];

  async reserve(orderId: string, lines: OrderLine[]): Promise<{ reservationId: string }> {
    const reservationId = `res_${orderId}`;
    this.reservations.set(reservationId, { orderId, lines, released: false });
    return { reservationId };
  }

  async release(reservationId: string): Promise<void> {
    this.releaseCalls.push(reservationId);
    const reservation = this.reservations.get(reservationId);
    if (!reservation) throw new Error(`no reservation ${reservationId}`);
    reservation.released = true;
  }
}

/** A mailer whose first `failures` sends fail (a flaky mail API). */
export class FakeMailer implements Mailer {
  readonly sent: Array<{ to: string; subject: string; text: string }> = [];
  /** Every call, failed ones included. */
  calls = 0;

  constructor(private failures = 0) {}

  async send(message: { to: string; subject: string; text: string }): Promise<void> {
    this.calls++;
    if (this.failures > 0) {
      this.failures--;
      throw new Error('mail API: HTTP 503');
    }
    this.sent.push(message);
  }
}

/** A card gateway that approves, or declines every card once {@link decline} was called. */
export class FakeCardGateway implements CardGateway {
  readonly authorizations: Array<PaymentRequest & { authorizationId: string }> = [];
  readonly captures: Array<{ chargeId: string; authorizationId: string; amountCents: number }> = [];
  private declineReason: string | undefined;

  decline(reason: string): this {
    this.declineReason = reason;
    return this;
  }

  async authorize(request: PaymentRequest) {
    if (this.declineReason) return { approved: false as const, reason: this.declineReason };
    const authorizationId = `auth_${this.authorizations.length + 1}`;
    this.authorizations.push({ ...request, authorizationId });
    return { approved: true as const, authorizationId };
  }

  async capture(authorizationId: string, amountCents: number) {
    const chargeId = `ch_${this.captures.length + 1}`;
    this.captures.push({ chargeId, authorizationId, amountCents });
    return { chargeId };
  }
}

/**
 * Fresh fakes for the saga (`services`) and for the payments function (`paymentServices`).
 * `mailFailures`: how many sends fail before the mailer works.
 */
export function fakeOrderSagaServices(options: { mailFailures?: number } = {}) {
  const fakes = {
    inventory: new FakeInventory(),
    mailer: new FakeMailer(options.mailFailures),
    gateway: new FakeCardGateway(),
  };
  const services: OrderSagaServices = { inventory: fakes.inventory, mailer: fakes.mailer };
  const paymentServices: PaymentServices = { gateway: fakes.gateway };
  return { ...fakes, services, paymentServices };
}

/** An order of 3 × 15.00 EUR = 45.00 EUR. */
export function sampleOrder(overrides: Partial<Order> = {}): Order {
  return {
    orderId: 'order-2001',
    customerId: 'cus-42',
    email: 'ada@example.com',
    currency: 'EUR',
    lines: [{ sku: 'LAMP-OAK', quantity: 3, unitPriceCents: 1500 }],
    ...overrides,
  };
}
