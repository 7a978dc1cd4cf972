import { LocalDurableTestRunner, WaitingOperationStatus } from '@durable-lambda/local';
import { describe, expect, it } from 'vitest';
import { fakeApprovalServices, sampleRequest } from '../approval/fakes';
import { type ApprovalResult, createApprovalHandler } from '../approval/handler';

const START = Date.UTC(2025, 3, 7, 9, 0, 0);
const DAY_MS = 24 * 60 * 60 * 1000;

function setup() {
  const fakes = fakeApprovalServices();
  const runner = new LocalDurableTestRunner<ApprovalResult>({
    handlerFunction: createApprovalHandler(fakes.services),
    startTime: START,
  });
  return { ...fakes, runner };
}

/** The virtual day (since START) each invocation of the run began on. */
function invocationDays(result: { getInvocations(): readonly { startedAt: Date }[] }): number[] {
  return result.getInvocations().map((inv) => (inv.startedAt.getTime() - START) / DAY_MS);
}

describe('approval', () => {
  it('reminds the approver after a day, then places the order once they approve', async () => {
    const { runner, mailer, purchasing } = setup();

    const running = runner.run({ payload: sampleRequest() });
    // The test plays the approver: it answers only once the reminder has gone out.
    const approval = await runner.getOperation('approval').waitForData(WaitingOperationStatus.STARTED);
    const { callbackId, timeoutTimestamp } = approval.getCallbackDetails()!;
    await runner.getOperation('send-reminder').waitForData(WaitingOperationStatus.COMPLETED);
    await approval.sendCallbackSuccess(JSON.stringify({ approvedBy: 'bob@example.com', comment: 'go ahead' }));
    const result = await running;

    expect(result.getStatus()).toBe('SUCCEEDED');
    expect(result.getResult()).toEqual({
      outcome: 'approved',
      requestId: 'pr-311',
      approvedBy: 'bob@example.com',
      purchaseOrderId: 'PO-1000',
    });
    // The callback may wait 3 days; the reminder went out after exactly 1.
    expect(timeoutTimestamp?.getTime()).toBe(START + 3 * DAY_MS);
    expect(runner.getOperation('reminder-delay').getWaitDetails()?.waitSeconds).toBe(24 * 60 * 60);
    // Invocations: the start; the reminder at day 1; the approval, which arrived right after it.
    expect(invocationDays(result)).toEqual([0, 1, 1]);
    expect(mailer.sent.map((m) => [m.to, m.subject])).toEqual([
      ['bob@example.com', 'Approval needed: a laptop for the new hire (1240.00 EUR)'],
      ['bob@example.com', 'Reminder: approval needed: a laptop for the new hire (1240.00 EUR)'],
      ['ada@example.com', 'Approved: a laptop for the new hire (1240.00 EUR)'],
    ]);
    // Both the request and the reminder carry the links of the one callback.
    for (const mail of mailer.sent.slice(0, 2)) {
      expect(mail.text).toContain(`https://approvals.example.com/${callbackId}?answer=approve`);
      expect(mail.text).toContain(`https://approvals.example.com/${callbackId}?answer=reject`);
    }
    expect(purchasing.orders).toEqual([
      { purchaseOrderId: 'PO-1000', requestId: 'pr-311', approvedBy: 'bob@example.com', amountCents: 124_000 },
    ]);
    expect(approval.getStatus()).toBe('SUCCEEDED');
    expect(approval.getCallbackDetails()?.result).toEqual({ approvedBy: 'bob@example.com', comment: 'go ahead' });
  });

  it('tells the requester why when the approver rejects, with no reminder and no order', async () => {
    const { runner, mailer, purchasing } = setup();

    const running = runner.run({ payload: sampleRequest() });
    const approval = await runner.getOperation('approval').waitForData();
    // The reject link fails the callback; its message is the reason.
    await approval.sendCallbackFailure({ errorMessage: 'over the team budget this quarter', code: 'rejected' });
    const result = await running;

    expect(result.getStatus()).toBe('SUCCEEDED');
    expect(result.getResult()).toEqual({
      outcome: 'rejected',
      requestId: 'pr-311',
      reason: 'over the team budget this quarter',
    });
    expect(approval.getStatus()).toBe('FAILED');
    expect(approval.getCallbackDetails()?.error).toMatchObject({ code: 'rejected' });
    // Answered on day 0: the batch completed with the decision and the reminder never went out.
    expect(invocationDays(result)).toEqual([0, 0]);
    expect(runner.getOperation('send-reminder').exists()).toBe(false);
    expect(runner.getOperation('await-decision').getContextDetails()?.result).toMatchObject({
      completionReason: 'CUSTOM_COMPLETION_SUCCEEDED',
    });
    expect(mailer.sent.map((m) => m.subject)).toEqual([
      'Approval needed: a laptop for the new hire (1240.00 EUR)',
      'Rejected: a laptop for the new hire (1240.00 EUR)',
    ]);
    expect(mailer.sent[1]).toMatchObject({
      to: 'ada@example.com',
      text: expect.stringContaining('over the team budget'),
    });
    expect(purchasing.orders).toHaveLength(0);
  });

  it('escalates when nobody answers in 3 days (CallbackTimeoutError), in no real time', async () => {
    const { runner, mailer, purchasing } = setup();
    const realStart = Date.now();

    const result = await runner.run({ payload: sampleRequest() });

    expect(Date.now() - realStart).toBeLessThan(1_000);
    expect(result.getStatus()).toBe('SUCCEEDED');
    expect(result.getResult()).toEqual({
      outcome: 'escalated',
      requestId: 'pr-311',
      escalatedTo: 'purchasing-leads@example.com',
    });
    // The start, the reminder after 1 day, the callback's timeout after 3.
    expect(invocationDays(result)).toEqual([0, 1, 3]);
    const approval = runner.getOperation('approval');
    expect(approval.getStatus()).toBe('TIMED_OUT');
    expect(approval.getCallbackDetails()?.error).toMatchObject({ code: 'callback_timeout' });
    expect(mailer.sent.map((m) => [m.to, m.subject])).toEqual([
      ['bob@example.com', 'Approval needed: a laptop for the new hire (1240.00 EUR)'],
      ['bob@example.com', 'Reminder: approval needed: a laptop for the new hire (1240.00 EUR)'],
      ['purchasing-leads@example.com', 'Unanswered approval: a laptop for the new hire (1240.00 EUR)'],
    ]);
    expect(runner.getOperation('escalate').getStepDetails()?.attempt).toBe(1);
    expect(purchasing.orders).toHaveLength(0);
    expect(result.getLogs().map((entry) => entry.message)).toEqual(['approval escalated']);
  });

  it('fails the run with serdes_failed on a malformed approval, rather than guess', async () => {
    const { runner, purchasing } = setup();

    const running = runner.run({ payload: sampleRequest() });
    await (await runner.getOperation('approval').waitForData()).sendCallbackSuccess('yes');
    const result = await running;

    expect(result.getStatus()).toBe('FAILED');
    expect(result.getError()).toMatchObject({ code: 'serdes_failed' });
    expect(result.getError()?.errorMessage).toContain('"yes" is not valid JSON');
    expect(purchasing.orders).toHaveLength(0);
  });
});
