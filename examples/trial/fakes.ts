/** In-memory stand-ins for the trial's services, for tests and `npm start`. */
import type { Billing, Mailer, TrialServices } from './handler';

export class FakeMailer implements Mailer {
  readonly sent: Array<{ to: string; subject: string; text: string; idempotencyKey: string }> = [];

  async send(message: { to: string; subject: string; text: string }, idempotencyKey: string): Promise<void> {
    this.sent.push({ ...message, idempotencyKey });
  }
}

export class FakeBilling implements Billing {
  readonly subscriptions: Array<{ subscriptionId: string; customer: string; plan: string; idempotencyKey: string }> =
    [];
  readonly endedTrials: Array<{ customer: string; idempotencyKey: string }> = [];

  async activatePlan(
    request: { customer: string; plan: string },
    idempotencyKey: string,
  ): Promise<{ subscriptionId: string }> {
    // Idempotent as a real billing API is: a repeated key gets the first answer.
    const earlier = this.subscriptions.find((s) => s.idempotencyKey === idempotencyKey);
    if (earlier) return { subscriptionId: earlier.subscriptionId };
    const subscriptionId = `sub-${100 + this.subscriptions.length}`;
    this.subscriptions.push({ subscriptionId, ...request, idempotencyKey });
    return { subscriptionId };
  }

  async endTrial(request: { customer: string }, idempotencyKey: string): Promise<void> {
    this.endedTrials.push({ customer: request.customer, idempotencyKey });
  }
}

/** A fresh set of fakes, plus the services object the handler takes. */
export function fakeTrialServices() {
  const fakes = { mailer: new FakeMailer(), billing: new FakeBilling() };
  const services: TrialServices = fakes;
  return { ...fakes, services };
}
