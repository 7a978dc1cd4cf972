/**
 * Report job: build a monthly report from the warehouse, store it, and send the link. The
 * warehouse query sometimes hangs, so the generating step has a timeout: an attempt that runs
 * too long is aborted through its `signal` and fails with code `step_timeout`, and the retry
 * policy runs it again.
 */
import {
  type DurableLambdaHandler,
  type Duration,
  JitterStrategy,
  NonRetriableError,
  type RetryPolicy,
  StepError,
  withDurableExecution,
} from '@durable-lambda/sdk';
import { callJson, expectOk, requireEnv } from '../shared/http';

/** The event that starts a report job. */
export interface ReportRequest {
  reportId: string;
  /** `YYYY-MM`. */
  month: string;
  format: 'csv' | 'pdf';
  recipients: string[];
}

/** Inputs to try the workflow with: the dev server's start form offers them. */
export const samples: ReadonlyArray<{ name: string; input: ReportRequest }> = [
  {
    name: 'January sales as CSV',
    input: { reportId: 'sales-2025-01', month: '2025-01', format: 'csv', recipients: ['finance@example.com'] },
  },
];

export interface Warehouse {
  /** Runs the report query; must stop when `signal` aborts. */
  render(
    query: { month: string; format: 'csv' | 'pdf' },
    options: { signal: AbortSignal },
  ): Promise<{ rows: number; content: string }>;
}

export interface ReportStorage {
  /** Stores the content under `key` (same key, same object) and returns a download URL. */
  put(key: string, content: string, options: { signal: AbortSignal }): Promise<{ url: string }>;
}

export interface Mailer {
  send(message: { to: string[]; subject: string; text: string }, idempotencyKey: string): Promise<void>;
}

export interface ReportServices {
  warehouse: Warehouse;
  storage: ReportStorage;
  mailer: Mailer;
}

export interface ReportJobOptions {
  /** The longest one attempt at generating may run. Default 5 minutes. */
  generateTimeout?: Duration;
  /** Retries of the generating step. Default {@link GENERATE_RETRY}. */
  generateRetry?: RetryPolicy;
}

export interface ReportResult {
  reportId: string;
  url: string;
  rows: number;
}

/** 3 attempts, 10 s then 20 s apart. One job on its own: no herd to spread, so no jitter. */
export const GENERATE_RETRY: RetryPolicy = {
  maxAttempts: 3,
  initialMs: 10_000,
  multiplier: 2,
  maxMs: 60_000,
  jitter: JitterStrategy.NONE,
};

/** Builds the report-job handler on the given services. */
export function createReportJobHandler(services: ReportServices, options: ReportJobOptions = {}): DurableLambdaHandler {
  const timeout = options.generateTimeout ?? { minutes: 5 };
  const retry = options.generateRetry ?? GENERATE_RETRY;
  return withDurableExecution<ReportRequest, ReportResult>(async (request, ctx) => {
    await ctx.step('validate-request', () => validateRequest(request));
    const { reportId, month, format, recipients } = request;

    let report: { url: string; rows: number };
    try {
      // The step stores only the link and the row count: a large result belongs in storage,
      // not in the run's history.
      report = await ctx.step(
        'generate-report',
        async ({ signal, attempt, logger }) => {
          logger.info('querying the warehouse', { month, attempt });
          const rendered = await services.warehouse.render({ month, format }, { signal });
          const { url } = await services.storage.put(`reports/${reportId}.${format}`, rendered.content, { signal });
          return { url, rows: rendered.rows };
        },
        { timeout, retry },
      );
    } catch (error) {
      if (!(error instanceof StepError)) throw error;
      await ctx.step('send-failure-notice', ({ idempotencyKey }) =>
        services.mailer.send(
          { to: recipients, subject: `Report ${month} failed`, text: `${error.code}: ${error.message}` },
          idempotencyKey,
        ),
      );
      // Rethrown: the run fails with the step's code (e.g. step_timeout), for dashboards and alarms.
      throw error;
    }

    await ctx.step('send-report', ({ idempotencyKey }) =>
      services.mailer.send(
        { to: recipients, subject: `Report ${month} is ready`, text: `${report.rows} rows: ${report.url}` },
        idempotencyKey,
      ),
    );
    return { reportId, url: report.url, rows: report.rows };
  });
}

/** Rejects requests that can never succeed. */
export function validateRequest(request: ReportRequest): void {
  const problems: string[] = [];
  if (!request || typeof request !== 'object') throw new NonRetriableError('invalid request: not an object');
  if (typeof request.reportId !== 'string' || !/^[\w-]{1,64}$/.test(request.reportId))
    problems.push('reportId is invalid');
  if (typeof request.month !== 'string' || !/^\d{4}-(0[1-9]|1[0-2])$/.test(request.month)) {
    problems.push(`month must be YYYY-MM, got ${JSON.stringify(request.month)}`);
  }
  if (request.format !== 'csv' && request.format !== 'pdf') problems.push('format must be csv or pdf');
  if (!Array.isArray(request.recipients) || request.recipients.length === 0) problems.push('recipients is empty');
  if (problems.length > 0) throw new NonRetriableError(`invalid request: ${problems.join('; ')}`);
}

/** The production wiring: HTTP services at WAREHOUSE_URL, STORAGE_URL, MAILER_URL. */
export function httpReportServices(): ReportServices {
  return {
    warehouse: {
      async render(query, { signal }) {
        const response = await callJson<{ rows: number; content: string }>(
          requireEnv('WAREHOUSE_URL'),
          'POST',
          '/reports',
          query,
          { signal },
        );
        return expectOk(response, 'render report');
      },
    },
    storage: {
      async put(key, content, { signal }) {
        const response = await callJson<{ url: string }>(
          requireEnv('STORAGE_URL'),
          'PUT',
          `/${key}`,
          { content },
          { signal },
        );
        return expectOk(response, 'store report');
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
  };
}

/** The Lambda handler. */
export const handler = createReportJobHandler(httpReportServices());
