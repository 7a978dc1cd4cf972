/** In-memory stand-ins for the approval's services, for tests and `npm start`. */
import type { ApprovalServices, Mailer, PurchaseRequest, Purchasing } from './handler';

export class FakeMailer implements Mailer {
  readonly sent: Array<{ to: string; subject: string; text: string; idempotencyKey: string }> = [];

  async send(message: { to: string; subject: string; text: string }, idempotencyKey: string): Promise<void> {
    this.sent.push({ ...message, idempotencyKey });
  }
}

export class FakePurchasing implements Purchasing {
  readonly orders: Array<{ purchaseOrderId: string; requestId: string; approvedBy: string; amountCents: number }> = [];

  async placeOrder(order: { requestId: string; approvedBy: string; amountCents: number }) {
    const purchaseOrderId = `PO-${1000 + this.orders.length}`;
    this.orders.push({
      purchaseOrderId,
      requestId: order.requestId,
      approvedBy: order.approvedBy,
      amountCents: order.amountCents,
    });
    return { purchaseOrderId };
  }
}

/** A fresh set of fakes, plus the services object the handler takes. */
export function fakeApprovalServices() {
  const fakes = { mailer: new FakeMailer(), purchasing: new FakePurchasing() };
  const services: ApprovalServices = {
    ...fakes,
    links: (callbackId) => ({
      approve: `https://approvals.example.com/${callbackId}?answer=approve`,
      reject: `https://approvals.example.com/${callbackId}?answer=reject`,
    }),
  };
  return { ...fakes, services };
}

/** A request for a 1,240.00 EUR laptop. */
export function sampleRequest(overrides: Partial<PurchaseRequest> = {}): PurchaseRequest {
  return {
    requestId: 'pr-311',
    requester: 'ada@example.com',
    approver: 'bob@example.com',
    description: 'a laptop for the new hire',
    amountCents: 124_000,
    currency: 'EUR',
    ...overrides,
  };
}
