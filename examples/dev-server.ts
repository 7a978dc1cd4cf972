/**
 * `npm start`: the local dev server with every example workflow, wired to in-memory fakes of
 * their services so it all works offline. Runs live in a SQLite file (`.durable/dev.sqlite`):
 * stop the server (Ctrl-C) or kill it, start it again, and the runs go on where they were (a
 * step cut short by a kill counts as a lost attempt and runs again at once). One server per file:
 * a second one on the same file refuses to start.
 *
 *   PORT        the port (default 3000; 0 picks a free one)
 *   HOST        the interface (default 127.0.0.1)
 *   DURABLE_DB  the SQLite file (default .durable/dev.sqlite)
 *   DURABLE_ALLOWED_HOSTS  host names answered besides localhost and IP addresses (comma-separated)
 *
 * A few waits are shortened so their effect shows within minutes (the reminder interval, the
 * approval's reminder and timeout, the trial's length); the rest is as in the examples' handlers.
 */
import { onStopSignals } from '@durable-lambda/api';
import { startDevServer } from '@durable-lambda/local';
import type { DurableLambdaHandler } from '@durable-lambda/sdk';
import { fakeApprovalServices, sampleRequest } from './approval/fakes';
import { samples as approvalSamples, createApprovalHandler } from './approval/handler';
import { fakeCheckoutServices, sampleOrder } from './checkout/fakes';
import { samples as checkoutSamples, createCheckoutHandler } from './checkout/handler';
import { fakeInvoiceServices } from './fan-out/fakes';
import { createFanOutHandler, samples as fanOutSamples } from './fan-out/handler';
import { failingSagaSamples, fakeOrderSagaServices, sampleOrder as sampleSagaOrder } from './order-saga/fakes';
import { createOrderSagaHandler, samples as sagaSamples } from './order-saga/handler';
import { createPaymentsHandler, samples as paymentSamples } from './order-saga/payments';
import { fakeReminderServices } from './reminder/fakes';
import { createReminderHandler, samples as reminderSamples } from './reminder/handler';
import { fakeReportServices } from './report-job/fakes';
import { createReportJobHandler, samples as reportSamples } from './report-job/handler';
import { fakeTrialServices } from './trial/fakes';
import { createTrialHandler, samples as trialSamples } from './trial/handler';

/** Each example's sample inputs (declared next to its handler), offered by the dashboard's start form. */
const SAMPLES = {
  checkout: checkoutSamples,
  reminder: reminderSamples,
  'report-job': reportSamples,
  approval: approvalSamples,
  'fan-out': fanOutSamples,
  // The fakes decline or fail the payments of two of them: the saga compensates.
  'order-saga': [...sagaSamples, ...failingSagaSamples],
  payments: paymentSamples,
  trial: trialSamples,
};

/** The server's URL, known once it listens (the approval mails link to its callback routes). */
let baseUrl = 'http://localhost:3000';

/** Prints each mail a fake mailer is given (after it took it), so the terminal shows what went out. */
function announceMail(example: string, mailer: { send(...args: never[]): Promise<void> }, withText = false): void {
  const target = mailer as unknown as { send(...args: unknown[]): Promise<void> };
  const send = target.send.bind(mailer);
  target.send = async (...args) => {
    await send(...args);
    const message = args[0] as { to?: string | string[]; subject?: string; text?: string };
    const to = Array.isArray(message.to) ? message.to.join(', ') : message.to;
    console.log(`[${example}] mail to ${to}: ${message.subject}`);
    if (withText) for (const line of (message.text ?? '').split('\n')) console.log(`[${example}]   ${line}`);
  };
}

function exampleFunctions(): Record<string, DurableLambdaHandler> {
  const checkout = fakeCheckoutServices();
  // The first charge is rate-limited once (429, Retry-After: 7), to show a retry in the dashboard.
  checkout.payments.respondWith({ status: 429, retryAfter: '7' });
  announceMail('checkout', checkout.mailer);

  const reminder = fakeReminderServices();
  announceMail('reminder', reminder.mailer);

  const report = fakeReportServices();
  announceMail('report-job', report.mailer);

  const approval = fakeApprovalServices();
  // The "links" of the approval mail: the commands that complete its callback (printed below).
  approval.services.links = (callbackId) => ({
    approve: `${cliFor(baseUrl)} callback succeed ${callbackId} --result '{"approvedBy":"bob@example.com"}'`,
    reject: `${cliFor(baseUrl)} callback fail ${callbackId} --message 'over budget'`,
  });
  announceMail('approval', approval.mailer, true);

  const invoices = fakeInvoiceServices();
  announceMail('fan-out', invoices.mailer);

  const saga = fakeOrderSagaServices();
  announceMail('order-saga', saga.mailer);

  const trial = fakeTrialServices();
  announceMail('trial', trial.mailer);

  return {
    checkout: createCheckoutHandler(checkout.services),
    reminder: createReminderHandler(reminder.services, { interval: { seconds: 30 } }),
    'report-job': createReportJobHandler(report.services),
    approval: createApprovalHandler(approval.services, { remindAfter: { minutes: 1 }, timeout: { hours: 1 } }),
    'fan-out': createFanOutHandler(invoices.services),
    'order-saga': createOrderSagaHandler(saga.services),
    payments: createPaymentsHandler(saga.paymentServices),
    trial: createTrialHandler(trial.services, { trialLength: { minutes: 10 } }),
  };
}

function portFromEnv(): number {
  const text = process.env.PORT;
  if (text === undefined || text === '') return 3000;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    console.error(`PORT: must be a whole number from 0 to 65535, got ${JSON.stringify(text)}`);
    process.exit(2);
  }
  return port;
}

/** The `durable` CLI command line for the server at `url` (its default URL needs no `--url`). */
function cliFor(url: string): string {
  return url === 'http://localhost:3000' || url === 'http://127.0.0.1:3000'
    ? 'npx durable'
    : `npx durable --url ${url}`;
}

/** Example commands for another terminal. */
function printHowTo(url: string): void {
  const cli = cliFor(url);
  const json = (value: unknown) => `'${JSON.stringify(value)}'`;
  const lines = [
    '',
    `Open ${url}/ for the dashboard. From another terminal:`,
    `  ${cli} start approval --input ${json(sampleRequest())}`,
    `  ${cli} list --function approval --status RUNNING`,
    `  ${cli} history <runId>                        # shows the approval's callbackId`,
    `  ${cli} callback succeed <callbackId> --result '{"approvedBy":"bob@example.com"}'`,
    `  ${cli} start reminder --input '{"userId":"u-7","email":"grace@example.com"}'`,
    `  ${cli} start order-saga --input ${json(sampleSagaOrder())}`,
    `  ${cli} start trial --input ${json(trialSamples[0]?.input)} # a 10-minute trial`,
    `  ${cli} list --tag customer=cus-42             # the trial's runs, found by their tag`,
    `  ${cli} signal <runId> upgraded '{"plan":"pro"}' # the billing system: the customer paid`,
    `  curl -s -X POST ${url}/v1/runs -H 'content-type: application/json' \\`,
    `    -d '{"function":"checkout","input":${JSON.stringify(sampleOrder())}}'`,
    `  curl -s ${url}/v1/runs`,
    `  curl -s -X POST ${url}/v1/callbacks/<callbackId>/fail -H 'content-type: application/json' -d '{"error":{"message":"over budget"}}'`,
    `  ${cli} wake <runId>                           # ends a wait (checkout's 30 minutes) or a retry's backoff now`,
    "The start form of the dashboard offers each function's sample inputs (declared next to its handler).",
    'The services are in-memory fakes (examples/*/fakes.ts); the first checkout charge is rate-limited',
    'once. Ctrl-C stops the server; runs go on at the next start.',
    '',
  ];
  for (const line of lines) console.log(line);
}

/**
 * `DURABLE_FAULTS=<seed>` (optionally `DURABLE_FAULT_PROBABILITY=0.05`) injects seeded faults,
 * as the test runner does, to watch every run finish anyway in the dashboard.
 */
function faultsFromEnv(): { faults?: { seed: number; defaultProbability?: number } } {
  const seed = process.env.DURABLE_FAULTS;
  if (seed === undefined || seed === '') return {};
  const probability = process.env.DURABLE_FAULT_PROBABILITY;
  const faults = {
    seed: Number(seed),
    ...(probability ? { defaultProbability: Number(probability) } : {}),
  };
  console.log(`Injecting faults: DURABLE_FAULTS=${seed} (see the README's "Fault injection").`);
  return { faults };
}

let server: Awaited<ReturnType<typeof startDevServer>>;
try {
  server = await startDevServer({
    functions: exampleFunctions(),
    samples: SAMPLES,
    port: portFromEnv(),
    ...(process.env.HOST ? { host: process.env.HOST } : {}),
    db: process.env.DURABLE_DB || '.durable/dev.sqlite',
    allowedHosts: (process.env.DURABLE_ALLOWED_HOSTS ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== ''),
    ...faultsFromEnv(),
  });
} catch (error) {
  // One line (the port or the file in use by another server), not a stack trace.
  const message = error instanceof Error ? error.message : String(error);
  const hint =
    (error as { code?: unknown }).code === 'port_in_use'
      ? ': start it with another PORT, e.g. PORT=3001 npm start'
      : '';
  console.error(`durable-lambda dev server: ${message}${hint}`);
  process.exit(1);
}
baseUrl = server.url;
printHowTo(server.url);

// `npm start` runs this under tsx, which relays the terminal's Ctrl-C to this process: one key
// press can arrive twice. The second changes nothing; a third forces the exit.
const stopRequest = onStopSignals();
const signal = await stopRequest.requested;
console.log(`${signal}: stopping, waiting for the invocations under way (Ctrl-C twice more to force)`);
server.stop().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`durable-lambda dev server: stop failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
