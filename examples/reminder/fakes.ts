/** In-memory stand-ins for the reminder's services, for tests and `npm start`. */
import type { ConfirmationStore, Mailer, ReminderServices, SupportDesk } from './handler';

export class FakeConfirmationStore implements ConfirmationStore {
  private readonly confirmed = new Set<string>();
  /** How many times the workflow asked. */
  checks = 0;

  confirm(userId: string): void {
    this.confirmed.add(userId);
  }

  async isConfirmed(userId: string): Promise<boolean> {
    this.checks++;
    return this.confirmed.has(userId);
  }
}

export class FakeMailer implements Mailer {
  readonly sent: Array<{ to: string; subject: string; idempotencyKey: string }> = [];
  /** Called after each message (e.g. to have the user confirm). */
  onSend: (count: number) => void = () => {};

  async send(message: { to: string; subject: string }, idempotencyKey: string): Promise<void> {
    this.sent.push({ to: message.to, subject: message.subject, idempotencyKey });
    this.onSend(this.sent.length);
  }
}

export class FakeSupportDesk implements SupportDesk {
  readonly tickets: Array<{ ticketId: string; userId: string; summary: string }> = [];

  async openTicket(ticket: { userId: string; summary: string }): Promise<{ ticketId: string }> {
    const ticketId = `T-${100 + this.tickets.length}`;
    this.tickets.push({ ticketId, userId: ticket.userId, summary: ticket.summary });
    return { ticketId };
  }
}

/** A fresh set of fakes, plus the services object the handler takes. */
export function fakeReminderServices() {
  const fakes = {
    confirmations: new FakeConfirmationStore(),
    mailer: new FakeMailer(),
    support: new FakeSupportDesk(),
  };
  const services: ReminderServices = fakes;
  return { ...fakes, services };
}
