/**
 * `npm start`: runs each example workflow on the local runtime and prints what every run did.
 * A stopgap until the local dev server and its dashboard exist.
 */
import { type DurableTestResult, LocalDurableTestRunner } from '@durable-lambda/local';
import type { DurableLambdaHandler } from '@durable-lambda/sdk';
import { fakeCheckoutServices, sampleOrder } from './checkout/fakes';
import { createCheckoutHandler } from './checkout/handler';
import { fakeReminderServices } from './reminder/fakes';
import { createReminderHandler } from './reminder/handler';
import { fakeReportServices } from './report-job/fakes';
import { createReportJobHandler } from './report-job/handler';

interface Scenario {
  example: string;
  title: string;
  handler: DurableLambdaHandler;
  payload: unknown;
  /** The status this scenario ends with when everything works. */
  expected: 'SUCCEEDED' | 'FAILED';
  /** What the fakes saw that the stored operations do not show (earlier attempts). */
  note?: () => string;
}

function scenarios(): Scenario[] {
  const rateLimited = fakeCheckoutServices();
  rateLimited.payments.respondWith({ status: 429, retryAfter: '7' });
  const outage = fakeCheckoutServices();
  outage.payments.alwaysRespondWith({ status: 502 });
  const reminder = fakeReminderServices();
  const hangingWarehouse = fakeReportServices(1);
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
  ];
}

async function main(): Promise<void> {
  console.log('durable-lambda: the example workflows on the local runtime');
  console.log('Waits and retry backoffs run on a virtual clock, so days pass in milliseconds.');
  console.log('(A stopgap: this uses the test runner; the local dev server with a dashboard comes later.)');

  let unexpected = 0;
  for (const scenario of scenarios()) {
    const runner = new LocalDurableTestRunner({
      handlerFunction: scenario.handler,
      startTime: Date.UTC(2025, 0, 6, 9),
    });
    const realStart = performance.now();
    const result = await runner.run({ payload: scenario.payload });
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

  const rows = result.getOperations().map((view) => {
    const op = view.getOperationData();
    const depth = op.ParentId === undefined ? 0 : op.Id.split('-').length - 1;
    let detail = '';
    if (op.Type === 'WAIT') detail = `waits ${formatDuration(view.getWaitDetails().waitSeconds * 1000)}`;
    else if (op.Type === 'STEP' && op.StepDetails?.Result !== undefined)
      detail = `-> ${summarize(op.StepDetails.Result)}`;
    else if (op.Type === 'CONTEXT' && op.ContextDetails?.Result !== undefined) {
      detail = `-> ${summarize(op.ContextDetails.Result)}`;
    }
    const error = op.StepDetails?.Error ?? op.ContextDetails?.Error;
    return [
      op.Id,
      op.Type,
      `${'  '.repeat(depth)}${op.Name ?? '(unnamed)'}`,
      op.Status,
      op.Type === 'STEP' ? String(op.StepDetails?.Attempt ?? '') : '',
      detail,
      error?.ErrorCode ?? '',
    ];
  });
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
