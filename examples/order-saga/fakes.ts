/** In-memory stand-ins for the order saga's and the payments function's services. */
import type { Inventory, Mailer, Order, OrderLine, OrderSagaServices } from './handler';
import type { CardGateway, PaymentRequest, PaymentServices } from './payments';

/** The customer whose card the fake gateway declines, and the one for whom it is down. */
const DECLINED = 'cus-declined';
const OUTAGE = 'cus-outage';

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
  /** Customers whose cards are declined, with the reason. */
  private readonly declinedCustomers = new Map<string, string>();
  /** Customers for whom the gateway is down (every call fails with a 503). */
  private readonly outageCustomers = new Set<string>();

  decline(reason: string): this {
    this.declineReason = reason;
    return this;
  }

  /** Declines the cards of `customerId` only. */
  declineCustomer(customerId: string, reason: string): this {
    this.declinedCustomers.set(customerId, reason);
    return this;
  }

  /** Fails every authorization of `customerId` as a gateway that is down (retried, then fatal). */
  outageFor(customerId: string): this {
    this.outageCustomers.add(customerId);
    return this;
  }

  async authorize(request: PaymentRequest) {
    if (this.outageCustomers.has(request.customerId)) throw new Error('card gateway: HTTP 503');
    const declined = this.declineReason ?? this.declinedCustomers.get(request.customerId);
    if (declined) return { approved: false as const, reason: declined };
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
  fakes.gateway.declineCustomer(DECLINED, 'insufficient funds').outageFor(OUTAGE);
  const services: OrderSagaServices = { inventory: fakes.inventory, mailer: fakes.mailer };
  const paymentServices: PaymentServices = { gateway: fakes.gateway };
  return { ...fakes, services, paymentServices };
}

/**
 * Orders whose payment fails on the gateway of {@link fakeOrderSagaServices}, so the dev server
 * shows both ways a saga compensates: a declined card (the saga catches the payments run's
 * failure and calls `compensate()`, then cancels the order) and a gateway down through every
 * retry (the saga rethrows; the SDK releases the stock before the run fails, and the run's error
 * says what was undone).
 */
export const failingSagaSamples: ReadonlyArray<{ name: string; input: Order }> = [
  {
    name: 'a declined card (compensates, cancels)',
    input: sampleOrder({ orderId: 'order-2002', customerId: DECLINED }),
  },
  { name: 'a gateway outage (compensates, fails)', input: sampleOrder({ orderId: 'order-2003', customerId: OUTAGE }) },
];

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
