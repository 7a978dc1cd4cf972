/**
 * Reminder: until the user confirms their email address, send a reminder, wait a few days and
 * check again; after the last reminder, open a ticket for a human. Each wait ends the
 * invocation, so the days in between cost nothing; the next invocation replays to the wait
 * and goes on.
 */
import {
  createRetryStrategy,
  type DurableLambdaHandler,
  type Duration,
  StepSemantics,
  withDurableExecution,
} from '@durable-lambda/sdk';
import { callJson, expectOk, requireEnv } from '../shared/http';

/** The event that starts a reminder run. */
export interface ReminderRequest {
  userId: string;
  email: string;
}

/** Inputs to try the workflow with: the dev server's start form offers them. */
export const samples: ReadonlyArray<{ name: string; input: ReminderRequest }> = [
  { name: 'a new sign-up', input: { userId: 'u-7', email: 'grace@example.com' } },
];

/** Where sign-ups are recorded as confirmed. */
export interface ConfirmationStore {
  isConfirmed(userId: string): Promise<boolean>;
}

export interface Mailer {
  send(message: { to: string; subject: string; text: string }, idempotencyKey: string): Promise<void>;
}

/** The support desk, where a person takes over. */
export interface SupportDesk {
  openTicket(
    ticket: { userId: string; email: string; summary: string },
    idempotencyKey: string,
  ): Promise<{ ticketId: string }>;
}

export interface ReminderServices {
  confirmations: ConfirmationStore;
  mailer: Mailer;
  support: SupportDesk;
}

export interface ReminderOptions {
  /** Reminders to send before escalating. Default 3. */
  maxReminders?: number;
  /** Time between a reminder and the next check. Default 3 days. */
  interval?: Duration;
}

export type ReminderResult =
  | { outcome: 'confirmed'; remindersSent: number }
  | { outcome: 'escalated'; remindersSent: number; ticketId: string };

/** Mail retries (compat strategy): 5 attempts, 1 min, 2 min, 4 min, 8 min, FULL jitter. */
const MAIL_RETRY = createRetryStrategy({ maxAttempts: 5, initialDelay: { minutes: 1 }, maxDelay: { minutes: 30 } });

/** Builds the reminder handler on the given services. */
export function createReminderHandler(services: ReminderServices, options: ReminderOptions = {}): DurableLambdaHandler {
  const maxReminders = options.maxReminders ?? 3;
  const interval = options.interval ?? { days: 3 };
  return withDurableExecution<ReminderRequest, ReminderResult>(async ({ userId, email }, ctx) => {
    let remindersSent = 0;
    for (;;) {
      // Read through a step: the answer is stored, so a replay sees the same one.
      const confirmed = await ctx.step('check-confirmed', () => services.confirmations.isConfirmed(userId));
      if (confirmed) return { outcome: 'confirmed', remindersSent };
      if (remindersSent === maxReminders) break;

      remindersSent++;
      const n = remindersSent;
      await ctx.step(
        'send-reminder',
        ({ idempotencyKey }) =>
          services.mailer.send(
            {
              to: email,
              subject: `Please confirm your email (reminder ${n} of ${maxReminders})`,
              text: 'Click the link in our first message to finish signing up.',
            },
            idempotencyKey,
          ),
        { retryStrategy: MAIL_RETRY },
      );
      // Silent while a later invocation replays this point, so each reminder is logged once.
      ctx.logger.info('reminder sent', { userId, reminder: n });
      await ctx.wait('wait-for-confirmation', interval);
    }

    const { ticketId } = await ctx.step(
      'escalate',
      ({ idempotencyKey }) =>
        services.support.openTicket(
          { userId, email, summary: `${email} has not confirmed after ${maxReminders} reminders` },
          idempotencyKey,
        ),
      // Its start is stored before the call, so a crash during the call counts as a lost attempt.
      { semantics: StepSemantics.AtMostOncePerRetry },
    );
    ctx.logger.warn('escalated to support', { userId, ticketId });
    return { outcome: 'escalated', remindersSent, ticketId };
  });
}

/** The production wiring: HTTP services at ACCOUNTS_URL, MAILER_URL, SUPPORT_URL. */
export function httpReminderServices(): ReminderServices {
  return {
    confirmations: {
      async isConfirmed(userId) {
        const path = `/users/${encodeURIComponent(userId)}`;
        const user = expectOk(
          await callJson<{ emailConfirmed: boolean }>(requireEnv('ACCOUNTS_URL'), 'GET', path, undefined),
          'user',
        );
        return user.emailConfirmed === true;
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
    support: {
      async openTicket(ticket, idempotencyKey) {
        const response = await callJson<{ ticketId: string }>(requireEnv('SUPPORT_URL'), 'POST', '/tickets', ticket, {
          idempotencyKey,
        });
        return expectOk(response, 'open ticket');
      },
    },
  };
}

/** The Lambda handler. */
export const handler = createReminderHandler(httpReminderServices());
