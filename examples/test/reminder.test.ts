import { LocalDurableTestRunner } from '@durable-lambda/local';
import { describe, expect, it } from 'vitest';
import { fakeReminderServices } from '../reminder/fakes';
import { createReminderHandler, type ReminderOptions, type ReminderResult } from '../reminder/handler';

const START = Date.UTC(2025, 2, 3, 8, 0, 0);
const DAY_MS = 24 * 60 * 60 * 1000;
const USER = { userId: 'u-7', email: 'grace@example.com' };

function setup(options?: ReminderOptions) {
  const fakes = fakeReminderServices();
  const runner = new LocalDurableTestRunner<ReminderResult>({
    handlerFunction: createReminderHandler(fakes.services, options),
    startTime: START,
  });
  return { ...fakes, runner };
}

describe('reminder', () => {
  it('sends 3 reminders 3 days apart, then escalates: 9 virtual days in a blink', async () => {
    const { runner, mailer, support, confirmations } = setup();
    const realStart = Date.now();

    const result = await runner.run({ payload: USER });

    expect(Date.now() - realStart).toBeLessThan(1_000);
    expect(result.getResult()).toEqual({ outcome: 'escalated', remindersSent: 3, ticketId: 'T-100' });
    // One invocation per wake-up: the start, then one after each 3-day wait.
    expect(result.getInvocationCount()).toBe(4);
    expect(result.getInvocations().map((inv) => (inv.startedAt.getTime() - START) / DAY_MS)).toEqual([0, 3, 6, 9]);
    for (let i = 0; i < 3; i++) {
      expect(runner.getOperation('wait-for-confirmation', i).getWaitDetails()?.waitSeconds).toBe(3 * 24 * 60 * 60);
    }
    expect(runner.getOperation('wait-for-confirmation', 3).exists()).toBe(false);

    expect(mailer.sent.map((m) => m.subject)).toEqual([
      'Please confirm your email (reminder 1 of 3)',
      'Please confirm your email (reminder 2 of 3)',
      'Please confirm your email (reminder 3 of 3)',
    ]);
    expect(new Set(mailer.sent.map((m) => m.idempotencyKey)).size).toBe(3);
    expect(confirmations.checks).toBe(4);
    expect(support.tickets).toEqual([
      { ticketId: 'T-100', userId: 'u-7', summary: 'grace@example.com has not confirmed after 3 reminders' },
    ]);
    expect(runner.getOperation('escalate').getStepDetails()).toMatchObject({
      attempt: 1,
      result: { ticketId: 'T-100' },
    });
    // The logger stays silent while an invocation replays, so nothing is logged twice.
    expect(result.getLogs().map((entry) => entry.message)).toEqual([
      'reminder sent',
      'reminder sent',
      'reminder sent',
      'escalated to support',
    ]);
  });

  it('stops as soon as the user confirms', async () => {
    const { runner, mailer, support, confirmations } = setup();
    // The user clicks the link right after the second reminder arrives.
    mailer.onSend = (count) => {
      if (count === 2) confirmations.confirm(USER.userId);
    };

    const result = await runner.run({ payload: USER });

    expect(result.getResult()).toEqual({ outcome: 'confirmed', remindersSent: 2 });
    expect(result.getInvocationCount()).toBe(3);
    expect(mailer.sent).toHaveLength(2);
    expect(support.tickets).toHaveLength(0);
  });

  it('sends nothing to a user who already confirmed', async () => {
    const { runner, mailer, confirmations } = setup();
    confirmations.confirm(USER.userId);

    const result = await runner.run({ payload: USER });

    expect(result.getResult()).toEqual({ outcome: 'confirmed', remindersSent: 0 });
    expect(result.getInvocationCount()).toBe(1);
    expect(mailer.sent).toHaveLength(0);
  });

  it('takes its schedule from options: 5 weekly reminders span 5 weeks', async () => {
    const { runner, mailer } = setup({ maxReminders: 5, interval: { days: 7 } });

    const result = await runner.run({ payload: USER });

    expect(result.getResult()).toMatchObject({ outcome: 'escalated', remindersSent: 5 });
    expect(result.getInvocationCount()).toBe(6);
    const last = result.getInvocations().at(-1);
    expect(((last?.startedAt.getTime() ?? 0) - START) / DAY_MS).toBe(35);
    expect(mailer.sent).toHaveLength(5);
  });
});
