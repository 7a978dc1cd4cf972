import { LocalDurableTestRunner } from '@durable-lambda/local';
import { describe, expect, it } from 'vitest';
import { fakeTrialServices } from '../trial/fakes';
import { createTrialHandler, type TrialOptions, type TrialResult } from '../trial/handler';

const START = Date.UTC(2025, 5, 2, 9, 0, 0);
const DAY_MS = 24 * 60 * 60 * 1000;
const CUSTOMER = { customer: 'cus-42', email: 'ada@example.com', plan: 'team' };
const ENDS_AT = new Date(START + 14 * DAY_MS).toISOString();

function setup(options: TrialOptions = {}) {
  const fakes = fakeTrialServices();
  const runner = new LocalDurableTestRunner<TrialResult>({
    handlerFunction: createTrialHandler(fakes.services, { now: () => START, ...options }),
    startTime: START,
  });
  return { ...fakes, runner };
}

describe('trial', () => {
  it('activates the plan the billing system signals while the run waits, and publishes paid', async () => {
    const { runner, mailer, billing } = setup();

    const running = runner.run({ payload: CUSTOMER });
    // The test plays the billing system: the customer pays while the trial runs.
    const wait = await runner.getOperation('upgraded').waitForData();
    const receipt = await runner.sendSignal('upgraded', { plan: 'pro' });
    const result = await running;

    expect(receipt).toMatchObject({ name: 'upgraded', created: true });
    expect(result.getResult()).toEqual({ outcome: 'upgraded', plan: 'pro', subscriptionId: 'sub-100' });
    // The wait may last the whole trial: 14 days.
    expect(wait.getCallbackDetails()?.timeoutTimestamp?.getTime()).toBe(START + 14 * DAY_MS);
    // The start, then the signal's wake-up.
    expect(result.getInvocationCount()).toBe(2);
    expect(mailer.sent).toEqual([
      {
        to: 'ada@example.com',
        subject: 'Welcome to your team trial',
        text: `Your trial ends at ${ENDS_AT}. Upgrade any time to keep your data.`,
        idempotencyKey: expect.any(String),
      },
    ]);
    expect(billing.subscriptions).toMatchObject([{ subscriptionId: 'sub-100', customer: 'cus-42', plan: 'pro' }]);
    expect(billing.endedTrials).toEqual([]);
    // Support finds the run by its customer; the plan tag follows the upgrade.
    expect(result.getTags()).toEqual({ customer: 'cus-42', plan: 'pro' });
    // Two states stored: 'trial' while it waited (with the first invocation's end), then 'paid'.
    expect(result.getPublished()).toMatchObject({ state: { stage: 'paid', plan: 'pro' }, seq: 2 });
  });

  it('takes an upgrade sent before the run reaches the wait, without waiting at all', async () => {
    const { runner, mailer, billing } = setup();
    // The welcome mail is held until the signal is sent, so the signal surely comes first.
    let releaseMail = () => {};
    const mailHeld = new Promise<void>((resolve) => {
      releaseMail = resolve;
    });
    let mailCalled = () => {};
    const mailReached = new Promise<void>((resolve) => {
      mailCalled = resolve;
    });
    const send = mailer.send.bind(mailer);
    mailer.send = async (message, key) => {
      mailCalled();
      await mailHeld;
      await send(message, key);
    };

    const running = runner.run({ payload: CUSTOMER });
    await mailReached;
    expect(runner.getOperation('upgraded').exists()).toBe(false);
    await runner.sendSignal('upgraded', { plan: 'enterprise' });
    releaseMail();
    const result = await running;

    expect(result.getResult()).toEqual({ outcome: 'upgraded', plan: 'enterprise', subscriptionId: 'sub-100' });
    // The kept signal was taken at the wait; the welcome mail went out once.
    expect(mailer.sent).toHaveLength(1);
    expect(runner.getOperation('upgraded').getCallbackDetails()?.result).toEqual({ plan: 'enterprise' });
    expect(billing.subscriptions).toMatchObject([{ customer: 'cus-42', plan: 'enterprise' }]);
    expect(result.getTags()).toEqual({ customer: 'cus-42', plan: 'enterprise' });
    expect(result.getPublished()?.state).toEqual({ stage: 'paid', plan: 'enterprise' });
  });

  it('ends the trial when no upgrade arrives within it, and publishes expired', async () => {
    const { runner, billing, mailer } = setup();

    const result = await runner.run({ payload: CUSTOMER });

    expect(result.getResult()).toEqual({ outcome: 'expired' });
    expect(result.getInvocations().map((inv) => (inv.startedAt.getTime() - START) / DAY_MS)).toEqual([0, 14]);
    expect(runner.getOperation('upgraded').getStatus()).toBe('TIMED_OUT');
    expect(billing.endedTrials).toMatchObject([{ customer: 'cus-42' }]);
    expect(billing.subscriptions).toEqual([]);
    expect(mailer.sent).toHaveLength(1);
    expect(result.getTags()).toEqual({ customer: 'cus-42', plan: 'team' });
    expect(result.getPublished()).toMatchObject({ state: { stage: 'expired', endedAt: ENDS_AT }, seq: 2 });
    expect(result.getLogs().map((entry) => entry.message)).toEqual(['trial expired']);
  });
});
