import { LocalDurableTestRunner } from '@durable-lambda/local';
import { describe, expect, it } from 'vitest';
import { fakeReportServices } from '../report-job/fakes';
import { createReportJobHandler, type ReportJobOptions, type ReportResult } from '../report-job/handler';

const START = Date.UTC(2025, 1, 1, 2, 0, 0);
const REQUEST = { reportId: 'sales-2025-01', month: '2025-01', format: 'csv', recipients: ['finance@example.com'] };
// A short timeout keeps the test at about one second of real time.
const FAST: ReportJobOptions = { generateTimeout: { seconds: 1 } };

function setup(hangs: number, options: ReportJobOptions = FAST) {
  const fakes = fakeReportServices(hangs);
  const runner = new LocalDurableTestRunner<ReportResult>({
    handlerFunction: createReportJobHandler(fakes.services, options),
    startTime: START,
  });
  return { ...fakes, runner };
}

describe('report job', () => {
  it('times out a hung attempt, aborts its signal, and succeeds on attempt 2 after the policy delay', async () => {
    const { runner, warehouse, storage, mailer } = setup(1);
    const realStart = Date.now();

    const result = await runner.run({ payload: REQUEST });

    const realMs = Date.now() - realStart;
    expect(realMs).toBeGreaterThanOrEqual(990); // the timeout is real time: the attempt really ran
    expect(realMs).toBeLessThan(4_000); // generous: other test files may share the CPU
    expect(result.getResult()).toEqual({
      reportId: 'sales-2025-01',
      url: 'https://files.example.com/reports/sales-2025-01.csv',
      rows: 1284,
    });
    // The first attempt's failure: its signal was aborted with a step_timeout error.
    expect(warehouse.abortReasons).toHaveLength(1);
    expect(warehouse.abortReasons[0]).toMatchObject({
      name: 'StepTimeoutError',
      code: 'step_timeout',
      message: expect.stringContaining('timed out after 1s (attempt 1)'),
    });
    expect(warehouse.queries).toBe(2);
    expect(runner.getOperation('generate-report').getStepDetails()).toMatchObject({ attempt: 2, error: undefined });
    // The retry waited GENERATE_RETRY's first delay, 10 s, on the virtual clock.
    const [first, second] = result.getInvocations();
    expect(result.getInvocationCount()).toBe(2);
    expect((second?.startedAt.getTime() ?? 0) - (first?.startedAt.getTime() ?? 0)).toBe(10_000);
    // The hung attempt stored nothing; the report was stored once and sent once.
    expect([...storage.objects.keys()]).toEqual(['reports/sales-2025-01.csv']);
    expect(mailer.sent.map((m) => m.subject)).toEqual(['Report 2025-01 is ready']);
    expect(
      result
        .getLogs()
        .filter((e) => e.message === 'querying the warehouse')
        .map((e) => e.attempt),
    ).toEqual([1, 2]);
  });

  it('fails the run with step_timeout when the attempts are used up, after notifying', async () => {
    const { runner, mailer } = setup(1, { ...FAST, generateRetry: { maxAttempts: 1 } });

    const result = await runner.run({ payload: REQUEST });

    expect(result.getStatus()).toBe('FAILED');
    expect(result.getError()).toMatchObject({ code: 'step_timeout', errorType: 'StepError' });
    expect(runner.getOperation('generate-report').getStepDetails()).toMatchObject({
      attempt: 1,
      error: { code: 'step_timeout' },
    });
    expect(mailer.sent.map((m) => m.subject)).toEqual(['Report 2025-01 failed']);
    expect(mailer.sent[0]?.text).toMatch(/^step_timeout: step \d+ "generate-report" timed out after 1s/);
  });

  it('fails a bad request at once with non_retriable, before querying anything', async () => {
    const { runner, warehouse, mailer } = setup(0);

    const result = await runner.run({ payload: { ...REQUEST, month: '2025-13', recipients: [] } });

    expect(result.getStatus()).toBe('FAILED');
    expect(result.getError()).toMatchObject({
      code: 'non_retriable',
      errorType: 'StepError',
      errorMessage: 'invalid request: month must be YYYY-MM, got "2025-13"; recipients is empty',
    });
    expect(result.getInvocationCount()).toBe(1);
    expect(runner.getOperation('validate-request').getStepDetails()?.attempt).toBe(1);
    expect(runner.getOperation('generate-report').exists()).toBe(false);
    expect(warehouse.queries).toBe(0);
    expect(mailer.sent).toHaveLength(0);
  });
});
