/**
 * Fan-out: send this month's invoice to every customer, ten at a time. Each customer gets its
 * own child context (so its retries and result are checkpointed separately), at most 10 run at
 * once, and a few failures are expected: up to 5 % of the customers may fail, and the run
 * reports them. More failures than that mean something is broken: the batch stops starting
 * new invoices, the billing team is alerted and the run fails.
 */
import {
  type DurableLambdaHandler,
  JitterStrategy,
  NonRetriableError,
  type RetryPolicy,
  withDurableExecution,
} from '@durable-lambda/sdk';
import { type ApiResponse, callJson, expectOk, requireEnv } from '../shared/http';

/** The event that starts an invoice run. */
export interface InvoiceRun {
  /** `YYYY-MM`. */
  period: string;
}

/** Inputs to try the workflow with: the dev server's start form offers them. */
export const samples: ReadonlyArray<{ name: string; input: InvoiceRun }> = [
  { name: 'April invoices (100 customers)', input: { period: '2025-04' } },
];

export interface Customer {
  customerId: string;
  email: string;
  amountCents: number;
  currency: string;
}

export interface Billing {
  /** The customers to invoice for the period. */
  customersToInvoice(period: string): Promise<Customer[]>;
}

/**
 * The invoicing API. It deduplicates by idempotency key. A 422 means it will never accept this
 * invoice (for example, the customer has no billing address); 5xx answers are transient.
 */
export interface InvoiceApi {
  send(
    invoice: { period: string; customerId: string; email: string; amountCents: number; currency: string },
    options: { idempotencyKey: string },
  ): Promise<ApiResponse<{ invoiceNumber: string; error?: string }>>;
}

export interface Mailer {
  send(message: { to: string; subject: string; text: string }, idempotencyKey: string): Promise<void>;
}

export interface InvoiceServices {
  billing: Billing;
  invoices: InvoiceApi;
  mailer: Mailer;
}

export interface FanOutOptions {
  /** Invoices sent at once. Default 10. */
  maxConcurrency?: number;
  /** The share of customers that may fail, in percent. Default 5. */
  toleratedFailurePercentage?: number;
  /** Where reports and alerts go. Default `billing-team@example.com`. */
  billingTeam?: string;
}

export interface FailedInvoice {
  customerId: string;
  code: string;
  message: string;
}

export interface InvoiceRunResult {
  period: string;
  customers: number;
  sent: number;
  failed: FailedInvoice[];
}

/** A run with more failures than tolerated fails with this error (code `too_many_failures`). */
export class InvoiceRunFailedError extends Error {
  readonly code = 'too_many_failures';
  constructor(message: string) {
    super(message);
    this.name = 'InvoiceRunFailedError';
  }
}

/** Transient failures of one invoice: 3 attempts, 2 s then 4 s apart (HALF jitter). */
export const SEND_RETRY: RetryPolicy = { maxAttempts: 3, initialMs: 2_000, multiplier: 2, jitter: JitterStrategy.HALF };

/** Builds the invoice-run handler on the given services. */
export function createFanOutHandler(services: InvoiceServices, options: FanOutOptions = {}): DurableLambdaHandler {
  const maxConcurrency = options.maxConcurrency ?? 10;
  const toleratedFailurePercentage = options.toleratedFailurePercentage ?? 5;
  const billingTeam = options.billingTeam ?? 'billing-team@example.com';
  return withDurableExecution<InvoiceRun, InvoiceRunResult>(async ({ period }, ctx) => {
    const customers = await ctx.step('list-customers', () => services.billing.customersToInvoice(period));

    const batch = await ctx.map(
      'send-invoices',
      customers,
      // Each item runs in its own child context: its step ids are its own, so items can finish
      // in any order and still replay deterministically.
      (item, customer) =>
        item.step(
          'send-invoice',
          async ({ idempotencyKey }) => {
            const { customerId, email, amountCents, currency } = customer;
            const response = await services.invoices.send(
              { period, customerId, email, amountCents, currency },
              { idempotencyKey },
            );
            if (response.status === 422) {
              throw new NonRetriableError(`invoice rejected: ${response.body?.error ?? 'unprocessable'}`);
            }
            return expectOk(response, 'invoicing API').invoiceNumber; // other failures are retried
          },
          { retry: SEND_RETRY },
        ),
      {
        maxConcurrency,
        completionConfig: { toleratedFailurePercentage },
        itemNamer: (customer) => `invoice-${customer.customerId}`,
      },
    );

    const failed: FailedInvoice[] = batch.failed().map(({ index, error }) => ({
      customerId: customers[index]?.customerId ?? `#${index}`,
      code: error.code,
      message: error.message,
    }));
    const list = failed.map((f) => `${f.customerId}: ${f.message}`).join('\n');

    if (batch.completionReason === 'FAILURE_TOLERANCE_EXCEEDED') {
      // The batch stopped starting invoices once more than the tolerated share had failed. Items
      // still in flight at that moment are listed as STARTED: their calls may have gone through.
      const notStarted = customers.length - batch.totalCount;
      const summary =
        `${failed.length} of ${customers.length} invoices failed, more than the ${toleratedFailurePercentage}% ` +
        `tolerated; stopped with ${batch.successCount} sent, ${batch.startedCount} in flight and ${notStarted} not started`;
      await ctx.step('alert-billing-team', ({ idempotencyKey }) =>
        services.mailer.send(
          { to: billingTeam, subject: `Invoice run ${period} stopped`, text: `${summary}.\n${list}` },
          idempotencyKey,
        ),
      );
      throw new InvoiceRunFailedError(`invoice run ${period}: ${summary}`);
    }

    await ctx.step('send-report', ({ idempotencyKey }) =>
      services.mailer.send(
        {
          to: billingTeam,
          subject: `Invoice run ${period}: ${batch.successCount} sent, ${failed.length} failed`,
          text: failed.length === 0 ? 'Every invoice was sent.' : `To follow up:\n${list}`,
        },
        idempotencyKey,
      ),
    );
    return { period, customers: customers.length, sent: batch.successCount, failed };
  });
}

/** The production wiring: HTTP services at BILLING_URL, INVOICES_URL, MAILER_URL. */
export function httpInvoiceServices(): InvoiceServices {
  return {
    billing: {
      async customersToInvoice(period) {
        const path = `/periods/${encodeURIComponent(period)}/customers`;
        return expectOk(await callJson<Customer[]>(requireEnv('BILLING_URL'), 'GET', path, undefined), 'customers');
      },
    },
    invoices: {
      send: (invoice, { idempotencyKey }) =>
        callJson(requireEnv('INVOICES_URL'), 'POST', '/invoices', invoice, { idempotencyKey }),
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
export const handler = createFanOutHandler(httpInvoiceServices());
