/** In-memory stand-ins for the invoice run's services, for tests and `npm start`. */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ApiResponse } from '../shared/http';
import type { Billing, Customer, InvoiceApi, InvoiceServices, Mailer } from './handler';

/** `count` customers, `cus-001` to `cus-100` for 100. */
export function sampleCustomers(count = 100): Customer[] {
  return Array.from({ length: count }, (_, i) => {
    const customerId = `cus-${String(i + 1).padStart(3, '0')}`;
    return { customerId, email: `${customerId}@example.com`, amountCents: 1_000 + i * 10, currency: 'EUR' };
  });
}

export class FakeBilling implements Billing {
  constructor(readonly customers: Customer[] = sampleCustomers()) {}

  async customersToInvoice(): Promise<Customer[]> {
    return this.customers;
  }
}

/**
 * An invoicing API whose calls take a little real time (1-3 ms), so calls overlap as they would
 * over a network. It records how many calls were in flight at once (the peak is what
 * `maxConcurrency` bounds), answers 422 for customers given to {@link reject}, and 503 once for
 * those given to {@link failOnce}.
 */
export class FakeInvoiceApi implements InvoiceApi {
  /** Calls in flight right now, and the most there ever were. */
  inFlight = 0;
  peakInFlight = 0;
  /** Every call, in the order received (customer ids). */
  readonly calls: string[] = [];
  /** Invoices actually issued. */
  readonly issued = new Map<string, string>();
  private readonly rejected = new Map<string, string>();
  private readonly flaky = new Set<string>();

  /** These customers' invoices are refused for good (HTTP 422). */
  reject(customerIds: string[], reason = 'no billing address on file'): this {
    for (const id of customerIds) this.rejected.set(id, reason);
    return this;
  }

  /** These customers' first call fails with a 503; the retry succeeds. */
  failOnce(customerIds: string[]): this {
    for (const id of customerIds) this.flaky.add(id);
    return this;
  }

  async send(invoice: { customerId: string }): Promise<ApiResponse<{ invoiceNumber: string; error?: string }>> {
    const { customerId } = invoice;
    this.calls.push(customerId);
    this.inFlight++;
    this.peakInFlight = Math.max(this.peakInFlight, this.inFlight);
    try {
      await sleep(1 + (this.calls.length % 3));
      const reason = this.rejected.get(customerId);
      if (reason) return { status: 422, body: { invoiceNumber: '', error: reason } };
      if (this.flaky.delete(customerId)) return { status: 503 };
      const invoiceNumber = this.issued.get(customerId) ?? `INV-${String(this.issued.size + 1).padStart(4, '0')}`;
      this.issued.set(customerId, invoiceNumber);
      return { status: 201, body: { invoiceNumber } };
    } finally {
      this.inFlight--;
    }
  }
}

export class FakeMailer implements Mailer {
  readonly sent: Array<{ to: string; subject: string; text: string }> = [];

  async send(message: { to: string; subject: string; text: string }): Promise<void> {
    this.sent.push(message);
  }
}

/** A fresh set of fakes (100 customers by default), plus the services object the handler takes. */
export function fakeInvoiceServices(customers?: Customer[]) {
  const fakes = { billing: new FakeBilling(customers), invoices: new FakeInvoiceApi(), mailer: new FakeMailer() };
  const services: InvoiceServices = fakes;
  return { ...fakes, services };
}
