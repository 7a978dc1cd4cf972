/** In-memory stand-ins for the report job's services, for tests and `npm start`. */
import type { Mailer, ReportServices, ReportStorage, Warehouse } from './handler';

/**
 * A warehouse whose first `hangs` queries never answer: they only end when the caller's
 * signal aborts (as `fetch` does), and the abort reason is kept for tests to inspect.
 */
export class FakeWarehouse implements Warehouse {
  queries = 0;
  readonly abortReasons: unknown[] = [];

  constructor(private hangs = 0) {}

  async render(query: { month: string; format: string }, { signal }: { signal: AbortSignal }) {
    this.queries++;
    if (this.hangs > 0) {
      this.hangs--;
      return new Promise<never>((_resolve, reject) => {
        signal.addEventListener(
          'abort',
          () => {
            this.abortReasons.push(signal.reason);
            reject(signal.reason);
          },
          { once: true },
        );
      });
    }
    const rows = 1284;
    return { rows, content: `month,format,rows\n${query.month},${query.format},${rows}\n` };
  }
}

export class FakeStorage implements ReportStorage {
  readonly objects = new Map<string, string>();

  async put(key: string, content: string): Promise<{ url: string }> {
    this.objects.set(key, content);
    return { url: `https://files.example.com/${key}` };
  }
}

export class FakeMailer implements Mailer {
  readonly sent: Array<{ to: string[]; subject: string; text: string }> = [];

  async send(message: { to: string[]; subject: string; text: string }): Promise<void> {
    this.sent.push(message);
  }
}

/** A fresh set of fakes (the warehouse hangs on its first `hangs` queries), plus the services object. */
export function fakeReportServices(hangs = 0) {
  const fakes = { warehouse: new FakeWarehouse(hangs), storage: new FakeStorage(), mailer: new FakeMailer() };
  const services: ReportServices = fakes;
  return { ...fakes, services };
}
