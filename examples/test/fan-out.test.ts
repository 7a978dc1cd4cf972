import { LocalDurableTestRunner } from '@durable-lambda/local';
import { describe, expect, it } from 'vitest';
import { fakeInvoiceServices } from '../fan-out/fakes';
import { createFanOutHandler, type InvoiceRunResult } from '../fan-out/handler';

const PERIOD = { period: '2025-04' };

function setup() {
  const fakes = fakeInvoiceServices();
  const runner = new LocalDurableTestRunner<InvoiceRunResult>({
    handlerFunction: createFanOutHandler(fakes.services),
    startTime: Date.UTC(2025, 4, 1, 6, 0, 0),
  });
  return { ...fakes, runner };
}

/** The stored summary of the `send-invoices` map. */
function mapSummary(runner: LocalDurableTestRunner<InvoiceRunResult>) {
  return runner.getOperation('send-invoices').getContextDetails<{
    completionReason: string;
    status: string;
    totalCount: number;
    successCount: number;
    failureCount: number;
    startedCount: number;
  }>()?.result;
}

describe('fan-out', () => {
  it('sends 100 invoices with never more than 10 in flight at once', async () => {
    const { runner, invoices, mailer } = setup();

    const result = await runner.run({ payload: PERIOD });

    expect(result.getResult()).toEqual({ period: '2025-04', customers: 100, sent: 100, failed: [] });
    // The fake API saw overlapping calls, up to the bound and never beyond it.
    expect(invoices.peakInFlight).toBe(10);
    expect(invoices.calls).toHaveLength(100);
    expect(invoices.issued.size).toBe(100);
    // One child context per customer, named by itemNamer, each with its own step.
    const items = runner.getOperation('send-invoices').getChildOperations()!;
    expect(items).toHaveLength(100);
    expect(items[0]?.getName()).toBe('invoice-cus-001');
    expect(items[99]?.getChildOperations()?.map((op) => op.getName())).toEqual(['send-invoice']);
    expect(mapSummary(runner)).toMatchObject({ completionReason: 'ALL_COMPLETED', status: 'SUCCEEDED' });
    expect(mailer.sent.map((m) => m.subject)).toEqual(['Invoice run 2025-04: 100 sent, 0 failed']);
  });

  it('tolerates 3 failures out of 100 and reports them; a transient error is retried, not counted', async () => {
    const { runner, invoices, mailer } = setup();
    invoices.reject(['cus-007', 'cus-042', 'cus-093']).failOnce(['cus-050']);

    const result = await runner.run({ payload: PERIOD });

    expect(result.getStatus()).toBe('SUCCEEDED');
    const failure = { code: 'non_retriable', message: 'invoice rejected: no billing address on file' };
    expect(result.getResult()).toEqual({
      period: '2025-04',
      customers: 100,
      sent: 97,
      failed: [
        { customerId: 'cus-007', ...failure },
        { customerId: 'cus-042', ...failure },
        { customerId: 'cus-093', ...failure },
      ],
    });
    // 3 % is within the 5 % tolerated: every item ran. The batch's own status is FAILED (an item
    // failed), but it completed, and the handler decided what that means.
    expect(mapSummary(runner)).toEqual(
      expect.objectContaining({
        completionReason: 'ALL_COMPLETED',
        status: 'FAILED',
        totalCount: 100,
        successCount: 97,
        failureCount: 3,
      }),
    );
    expect(runner.getOperation('invoice-cus-042').getStatus()).toBe('FAILED');
    // cus-050's 503 was retried after a backoff (a second invocation) and then succeeded; the
    // bound held across the suspension too.
    const [retried] = runner.getOperation('invoice-cus-050').getChildOperations()!;
    expect(retried?.getStepDetails()).toMatchObject({ attempt: 2, error: undefined });
    expect(result.getInvocationCount()).toBe(2);
    expect(invoices.peakInFlight).toBeLessThanOrEqual(10);
    expect(invoices.issued.size).toBe(97);
    expect(mailer.sent).toEqual([
      {
        to: 'billing-team@example.com',
        subject: 'Invoice run 2025-04: 97 sent, 3 failed',
        text:
          'To follow up:\n' +
          'cus-007: invoice rejected: no billing address on file\n' +
          'cus-042: invoice rejected: no billing address on file\n' +
          'cus-093: invoice rejected: no billing address on file',
      },
    ]);
  });

  it('stops at 6 failures (over 5 %): FAILURE_TOLERANCE_EXCEEDED, alerts the team and fails the run', async () => {
    const { runner, invoices, mailer } = setup();
    const rejected = ['cus-003', 'cus-011', 'cus-019', 'cus-027', 'cus-035', 'cus-043'];
    invoices.reject(rejected);

    const result = await runner.run({ payload: PERIOD });

    expect(result.getStatus()).toBe('FAILED');
    expect(result.getError()).toMatchObject({ code: 'too_many_failures', errorType: 'InvoiceRunFailedError' });
    expect(result.getError()?.errorMessage).toMatch(
      /^invoice run 2025-04: 6 of 100 invoices failed, more than the 5% tolerated; stopped with \d+ sent, \d+ in flight and \d+ not started$/,
    );
    const summary = mapSummary(runner);
    expect(summary).toMatchObject({
      completionReason: 'FAILURE_TOLERANCE_EXCEEDED',
      status: 'FAILED',
      failureCount: 6,
    });
    // The batch stopped starting items at the sixth failure: the later customers were never called.
    const notStarted = 100 - (summary?.totalCount ?? 0);
    expect(notStarted).toBeGreaterThan(0);
    expect(invoices.calls.length).toBeLessThanOrEqual(100 - notStarted);
    expect(invoices.calls).not.toContain('cus-100');
    expect(invoices.peakInFlight).toBeLessThanOrEqual(10);
    expect(mailer.sent).toHaveLength(1);
    expect(mailer.sent[0]?.subject).toBe('Invoice run 2025-04 stopped');
    for (const customerId of rejected) expect(mailer.sent[0]?.text).toContain(`${customerId}: invoice rejected`);
    expect(runner.getOperation('send-report').exists()).toBe(false);
  });
});
