/**
 * `npm run demo`: runs each example workflow on the test runner (a virtual clock, so days pass
 * in milliseconds) and prints what every run did. `npm start` runs them live in the dev server.
 */
import {
  type DurableOperation,
  type DurableTestResult,
  LocalDurableTestRunner,
  WaitingOperationStatus,
} from '@durable-lambda/local';
import type { DurableLambdaHandler } from '@durable-lambda/sdk';
import { fakeApprovalServices, sampleRequest } from './approval/fakes';
import { createApprovalHandler } from './approval/handler';
import { fakeCheckoutServices, sampleOrder } from './checkout/fakes';
import { createCheckoutHandler } from './checkout/handler';
import { fakeInvoiceServices } from './fan-out/fakes';
import { createFanOutHandler } from './fan-out/handler';
import { fakeOrderSagaServices, sampleOrder as sampleSagaOrder } from './order-saga/fakes';
import { createOrderSagaHandler } from './order-saga/handler';
import { createPaymentsHandler } from './order-saga/payments';
import { fakeReminderServices } from './reminder/fakes';
import { createReminderHandler } from './reminder/handler';
import { fakeReportServices } from './report-job/fakes';
import { createReportJobHandler } from './report-job/handler';
import { fakeTrialServices } from './trial/fakes';
import { createTrialHandler, samples as trialSamples } from './trial/handler';

interface Scenario {
  example: string;
  title: string;
  handler: DurableLambdaHandler;
  payload: unknown;
  /** The status this scenario ends with when everything works. */
  expected: 'SUCCEEDED' | 'FAILED';
  /** What the fakes saw that the stored operations do not show (earlier attempts). */
  note?: () => string;
  /** Other durable functions the handler reaches with `context.invoke`, by name. */
  functions?: Record<string, DurableLambdaHandler>;
  /** Acts on the run while it goes, as an outside system would (e.g. completes a callback). */
  drive?: (runner: LocalDurableTestRunner) => Promise<void>;
}

function scenarios(): Scenario[] {
  const rateLimited = fakeCheckoutServices();
  rateLimited.payments.respondWith({ status: 429, retryAfter: '7' });
  const outage = fakeCheckoutServices();
  outage.payments.alwaysRespondWith({ status: 502 });
  const reminder = fakeReminderServices();
  const hangingWarehouse = fakeReportServices(1);
  const approval = fakeApprovalServices();
  const invoices = fakeInvoiceServices();
  invoices.invoices.reject(['cus-007', 'cus-042', 'cus-093']);
  const saga = fakeOrderSagaServices();
  saga.gateway.decline('insufficient funds');
  const trial = fakeTrialServices();
  return [
    {
      example: 'checkout',
      title: 'the payments API answers 429 with Retry-After: 7 once, then charges',
      handler: createCheckoutHandler(rateLimited.services),
      payload: sampleOrder(),
      expected: 'SUCCEEDED',
      note: () =>
        `the payments API saw ${plural(rateLimited.payments.chargeRequests.length, 'charge request')}, ` +
        `one idempotency key each: ${rateLimited.payments.chargeRequests.map((r) => r.idempotencyKey.replace(/^\w+:/, '<runId>:')).join(', ')}`,
    },
    {
      example: 'checkout',
      title: 'the payments API is down (502): 4 attempts, then the stock is released',
      handler: createCheckoutHandler(outage.services),
      payload: sampleOrder({ orderId: 'order-1002' }),
      expected: 'SUCCEEDED',
      note: () =>
        `stock reservation released: ${outage.inventory.reservations.get('res_order-1002')?.released}; ` +
        `mail sent: "${outage.mailer.sent[0]?.subject}"`,
    },
    {
      example: 'checkout',
      title: 'an order without lines fails at once, by design (NonRetriableError)',
      handler: createCheckoutHandler(fakeCheckoutServices().services),
      payload: sampleOrder({ orderId: 'order-1003', lines: [] }),
      expected: 'FAILED',
    },
    {
      example: 'reminder',
      title: 'the user never confirms: 3 reminders 3 days apart, then a support ticket',
      handler: createReminderHandler(reminder.services),
      payload: { userId: 'u-7', email: 'grace@example.com' },
      expected: 'SUCCEEDED',
      note: () =>
        `${plural(reminder.mailer.sent.length, 'reminder')} mailed; support ticket ${reminder.support.tickets[0]?.ticketId} opened`,
    },
    {
      example: 'report-job',
      title: 'the first warehouse query hangs: timed out after 1 s (real time), retried 10 s later',
      handler: createReportJobHandler(hangingWarehouse.services, { generateTimeout: { seconds: 1 } }),
      payload: { reportId: 'sales-2025-01', month: '2025-01', format: 'csv', recipients: ['finance@example.com'] },
      expected: 'SUCCEEDED',
      note: () => {
        const reason = hangingWarehouse.warehouse.abortReasons[0] as { code?: string; message?: string } | undefined;
        return `attempt 1 was aborted through its signal: ${reason?.code} (${reason?.message})`;
      },
    },
    {
      example: 'approval',
      title: 'the approver is reminded after a day, then approves (the callback is completed from here)',
      handler: createApprovalHandler(approval.services),
      payload: sampleRequest(),
      expected: 'SUCCEEDED',
      // Plays the approver: once the reminder is out, completes the callback as the approve link would.
      drive: async (runner) => {
        await runner.getOperation('send-reminder').waitForData(WaitingOperationStatus.COMPLETED);
        await runner.getOperation('approval').sendCallbackSuccess(JSON.stringify({ approvedBy: 'bob@example.com' }));
      },
      note: () => `mails sent: ${approval.mailer.sent.map((m) => `${m.subject.split(':')[0]} -> ${m.to}`).join(', ')}`,
    },
    {
      example: 'fan-out',
      title: '100 invoices, 10 at a time; 3 customers have no billing address (5 % tolerated)',
      handler: createFanOutHandler(invoices.services),
      payload: { period: '2025-04' },
      expected: 'SUCCEEDED',
      note: () =>
        `the invoicing API had at most ${invoices.invoices.peakInFlight} calls in flight at once; ` +
        `report: "${invoices.mailer.sent[0]?.subject}"`,
    },
    {
      example: 'order-saga',
      title: 'the card is declined: the payments run fails, the saga releases the stock and tells the customer',
      handler: createOrderSagaHandler(saga.services),
      functions: { payments: createPaymentsHandler(saga.paymentServices) },
      payload: sampleSagaOrder(),
      expected: 'SUCCEEDED',
      note: () =>
        `stock reservation released: ${saga.inventory.reservations.get('res_order-2001')?.released}; ` +
        `mail sent: "${saga.mailer.sent[0]?.subject}"`,
    },
    {
      example: 'trial',
      title: 'a 14-day trial, tagged with its customer; the billing system signals "upgraded" while it waits',
      handler: createTrialHandler(trial.services, { now: () => Date.UTC(2025, 0, 6, 9) }),
      payload: trialSamples[0]?.input,
      expected: 'SUCCEEDED',
      // Plays the billing system, as `durable signal <runId> upgraded '{"plan":"pro"}'` would.
      drive: async (runner) => {
        await runner.getOperation('upgraded').waitForData();
        await runner.sendSignal('upgraded', { plan: 'pro' });
      },
      note: () => `subscription ${trial.billing.subscriptions[0]?.subscriptionId} activated; no trial ended`,
    },
  ];
}

async function main(): Promise<void> {
  console.log('durable-lambda: the example workflows on the local runtime');
  console.log('Waits and retry backoffs run on a virtual clock, so days pass in milliseconds.');
  console.log('(This uses the test runner. To watch runs live, `npm start` runs the same workflows in the dev server,');
  console.log(
    ' with a dashboard at http://localhost:3000/: step them, wake a wait now, read their logs and stack traces.)',
  );

  let unexpected = 0;
  for (const scenario of scenarios()) {
    const runner = new LocalDurableTestRunner({
      handlerFunction: scenario.handler,
      startTime: Date.UTC(2025, 0, 6, 9),
    });
    for (const [name, handler] of Object.entries(scenario.functions ?? {})) {
      runner.registerDurableFunction(name, handler);
    }
    const realStart = performance.now();
    const running = runner.run({ payload: scenario.payload });
    await scenario.drive?.(runner);
    const result = await running;
    const realMs = performance.now() - realStart;
    printRun(scenario, result, realMs);
    if (result.getStatus() !== scenario.expected) {
      unexpected++;
      console.log(`   !! expected ${scenario.expected}, got ${result.getStatus()}`);
    }
  }

  console.log('');
  if (unexpected > 0) {
    console.log(`${unexpected} run(s) did not end as expected.`);
    process.exitCode = 1;
  } else {
    console.log('All runs ended as expected. Tests for these workflows: npx vitest run examples');
  }
}

function printRun(scenario: Scenario, result: DurableTestResult, realMs: number): void {
  const invocations = result.getInvocations();
  const first = invocations[0]?.startedAt.getTime() ?? 0;
  const last = invocations.at(-1)?.startedAt.getTime() ?? first;
  console.log('');
  console.log(`== ${scenario.example}: ${scenario.title}`);
  console.log(
    `   ${result.getStatus()} after ${plural(result.getInvocationCount(), 'invocation')}` +
      ` · ${formatDuration(last - first)} of virtual time · ${Math.round(realMs)} ms of real time`,
  );
  if (invocations.length > 1) {
    const offsets = invocations.map((inv) => `+${formatDuration(inv.startedAt.getTime() - first)}`);
    console.log(`   invocations started at ${offsets.join(', ')}`);
  }
  console.log('');

  const rows = operationRows(result.getOperations().map((view) => view.getStoredOperation()));
  printTable(['id', 'type', 'name', 'status', 'attempt', 'wait / result', 'error code'], rows);

  console.log('');
  if (result.getStatus() === 'SUCCEEDED') {
    console.log(`   result: ${JSON.stringify(result.getResult())}`);
  } else {
    const error = result.getError();
    console.log(`   error:  ${error?.code} (${error?.errorType}): ${error?.errorMessage}`);
  }
  if (scenario.note) console.log(`   note:   ${scenario.note()}`);
}

/** A stored operation, as the test runner gives it. */
type Operation = ReturnType<DurableOperation['getStoredOperation']>;

/** Batches with more items than this show only their first and failed items, and a count of the rest. */
const ITEMS_SHOWN = 3;

/** One table row per operation, children under their parent; large map/parallel batches are folded. */
function operationRows(operations: readonly Operation[]): string[][] {
  const children = new Map<string | undefined, Operation[]>();
  for (const op of operations) {
    const siblings = children.get(op.ParentId) ?? [];
    siblings.push(op);
    children.set(op.ParentId, siblings);
  }
  const rows: string[][] = [];
  const visit = (op: Operation, depth: number) => {
    rows.push(operationRow(op, depth));
    const items = children.get(op.Id) ?? [];
    const fold = (op.SubType === 'Map' || op.SubType === 'Parallel') && items.length > ITEMS_SHOWN + 1;
    const hidden = new Map<string, number>();
    items.forEach((item, i) => {
      if (!fold || i < ITEMS_SHOWN || item.Status === 'FAILED') visit(item, depth + 1);
      else hidden.set(item.Status, (hidden.get(item.Status) ?? 0) + 1);
    });
    if (hidden.size > 0) {
      const count = [...hidden.values()].reduce((a, b) => a + b, 0);
      const statuses = [...hidden].map(([status, n]) => `${n} ${status}`).join(', ');
      rows.push(['', '', `${'  '.repeat(depth + 1)}... ${count} more items (${statuses})`, '', '', '', '']);
    }
  };
  for (const op of children.get(undefined) ?? []) visit(op, 0);
  return rows;
}

function operationRow(op: Operation, depth: number): string[] {
  let detail = '';
  if (op.Type === 'WAIT') {
    detail = `waits ${formatDuration((op.WaitDetails?.ScheduledEndTimestamp ?? op.StartTimestamp) - op.StartTimestamp)}`;
  } else if (op.Type === 'CHAINED_INVOKE') {
    const invoke = op.ChainedInvokeDetails;
    detail = `${invoke?.FunctionName ?? '?'}${invoke?.Result === undefined ? '' : ` -> ${summarize(invoke.Result, 36)}`}`;
  } else {
    const result = op.StepDetails?.Result ?? op.ContextDetails?.Result ?? op.CallbackDetails?.Result;
    if (result !== undefined) detail = `-> ${summarize(result)}`;
  }
  const error =
    op.StepDetails?.Error ?? op.ContextDetails?.Error ?? op.CallbackDetails?.Error ?? op.ChainedInvokeDetails?.Error;
  return [
    op.Id,
    op.Type,
    `${'  '.repeat(depth)}${op.Name ?? '(unnamed)'}`,
    op.Status,
    op.Type === 'STEP' ? String(op.StepDetails?.Attempt ?? '') : '',
    detail,
    error?.ErrorCode ?? '',
  ];
}

function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    `   ${cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd()}`;
  console.log(line(header));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const row of rows) console.log(line(row));
}

/** A stored JSON value, shortened for a table cell. */
function summarize(json: string, max = 48): string {
  return json.length > max ? `${json.slice(0, max - 3)}...` : json;
}

/** `9d`, `30m 7s`, `1.5s`, `12ms`. */
function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const parts: string[] = [];
  let rest = ms / 1000;
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  const seconds = Math.round(rest * 10) / 10;
  if (seconds > 0) parts.push(`${seconds}s`);
  return parts.join(' ');
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

await main();
