/** Logger, serdes, payloads, errors thrown at the top level, non-determinism. */
import { type DualCase, runHandler } from '../harness/case';

/** A logger that records what reaches it, and the durable log data it is handed. */
function recordingLogger() {
  const lines: unknown[] = [];
  let loggingContext: { getDurableLogData: () => Record<string, unknown> } | undefined;
  const record =
    (level: string) =>
    (...params: unknown[]) => {
      const data = loggingContext?.getDurableLogData();
      lines.push({
        level,
        params: params.map((p) => (typeof p === 'string' ? p : JSON.stringify(p))),
        data: data && {
          keys: Object.keys(data).sort(),
          operationName: data.operationName ?? '«none»',
          attempt: data.attempt ?? '«none»',
        },
      });
    };
  return {
    lines,
    logger: {
      info: record('info'),
      warn: record('warn'),
      error: record('error'),
      debug: record('debug'),
      configureDurableLoggingContext(context: { getDurableLogData: () => Record<string, unknown> }) {
        loggingContext = context;
      },
    },
  };
}

class Money {
  amount = 0;
  currency = 'EUR';
  format(): string {
    return `${this.amount.toFixed(2)} ${this.currency}`;
  }
}

class Booking {
  id = '';
  at: Date = new Date(0);
}

export const handlerSurfaceCases: DualCase[] = [
  {
    name: 'logger: configureLogger with a custom logger, replay-aware by default',
    needsReplay: true,
    async run(m) {
      const { lines, logger } = recordingLogger();
      let handlerRuns = 0;
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        handlerRuns += 1;
        ctx.configureLogger({ customLogger: logger });
        ctx.logger.info('starting', { order: 1 });
        await ctx.step('charge', async (stepCtx) => {
          stepCtx.logger.warn('charging');
          return 'charged';
        });
        await ctx.wait('settle', { hours: 1 });
        ctx.logger.error('after the wait');
        return 'logged';
      });
      const result = await runHandler(m, handler, { payload: {} });
      return { result, observed: { lines }, replayed: handlerRuns > 1 };
    },
  },
  {
    name: 'logger: modeAware false also logs while replaying',
    needsReplay: true,
    async run(m) {
      const { lines, logger } = recordingLogger();
      let handlerRuns = 0;
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        handlerRuns += 1;
        ctx.configureLogger({ customLogger: logger, modeAware: false });
        ctx.logger.info('every invocation');
        await ctx.wait('gap', { hours: 1 });
        return 'done';
      });
      const result = await runHandler(m, handler, { payload: {} });
      // Logged once per invocation, however many the run took.
      return {
        result,
        observed: { lines: lines.slice(0, 1), oncePerInvocation: lines.length === handlerRuns },
        replayed: handlerRuns > 1,
      };
    },
  },
  {
    name: 'serdes: createClassSerdes revives a class instance from a step',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        const money = await ctx.step(
          'price',
          async () => Object.assign(new Money(), { amount: 12.5, currency: 'USD' }),
          { serdes: m.sdk.createClassSerdes(Money) },
        );
        await ctx.wait('replay-me', { hours: 1 });
        return { isMoney: money instanceof Money, formatted: money.format() };
      });
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
  {
    name: 'serdes: createClassSerdesWithDates revives dates',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        const booking = await ctx.step(
          'book',
          async () => Object.assign(new Booking(), { id: 'b1', at: new Date('2030-01-02T03:04:05.000Z') }),
          { serdes: m.sdk.createClassSerdesWithDates(Booking, ['at']) },
        );
        await ctx.wait('replay-me', { hours: 1 });
        return {
          isBooking: booking instanceof Booking,
          isDate: booking.at instanceof Date,
          at: booking.at.toISOString(),
        };
      });
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
  {
    name: 'serdes: a custom step serdes and configureSerdes defaultSerdes',
    async run(m) {
      const written: string[] = [];
      const reversing = {
        serialize: async (value: unknown) => {
          const text = JSON.stringify(value);
          written.push(text);
          return text === undefined ? undefined : [...text].reverse().join('');
        },
        deserialize: async (data: string | undefined) =>
          data === undefined ? undefined : JSON.parse([...data].reverse().join('')),
      };
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        const custom = await ctx.step('custom', async () => ({ a: 1 }), { serdes: reversing });
        ctx.configureSerdes({ defaultSerdes: reversing });
        const defaulted = await ctx.step('defaulted', async () => ['x']);
        await ctx.wait('replay-me', { hours: 1 });
        return { custom, defaulted };
      });
      const result = await runHandler(m, handler, { payload: {} });
      return { result, observed: { written } };
    },
  },
  {
    name: 'payload: run() without a payload hands the handler {}',
    countInvocations: true,
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (event: unknown) => ({
        type: typeof event,
        isArray: Array.isArray(event),
        json: JSON.stringify(event),
      }));
      return { result: await runHandler(m, handler) };
    },
  },
  {
    name: 'payload: a nested payload arrives intact and the result round-trips',
    countInvocations: true,
    async run(m) {
      const payload = { order: { id: 7, lines: [{ sku: 'x', qty: 2 }] }, flags: [true, false], note: null };
      const handler = m.sdk.withDurableExecution(async (event: typeof payload) => ({ echo: event }));
      return { result: await runHandler(m, handler, { payload }) };
    },
  },
  {
    name: 'error: an Error thrown by the handler fails the run',
    countInvocations: true,
    async run(m) {
      const handler = m.sdk.withDurableExecution(async () => {
        throw new Error('top-level failure');
      });
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
  {
    name: 'error: a custom error subclass thrown after a step fails the run with its type',
    async run(m) {
      class OrderRejected extends Error {
        readonly reason = 'stock';
        constructor() {
          super('order rejected');
          this.name = 'OrderRejected';
        }
      }
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        await ctx.step('reserve', async () => 'reserved');
        throw new OrderRejected();
      });
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
  {
    name: 'error: a thrown string fails the run',
    countInvocations: true,
    async run(m) {
      const handler = m.sdk.withDurableExecution(async () => {
        throw 'just a string';
      });
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
  {
    name: 'error: a StepError rethrown to the top fails the run',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) =>
        ctx.step(
          'explodes',
          async () => {
            throw new Error('kaboom');
          },
          { retryStrategy: m.sdk.retryPresets.noRetry },
        ),
      );
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
  {
    name: 'non-determinism: a replay that takes a different operation is detected',
    needsReplay: true,
    async run(m) {
      let invocation = 0;
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        invocation += 1;
        if (invocation === 1) await ctx.step('first-path', async () => 1);
        else await ctx.wait('second-path', { seconds: 1 });
        await ctx.wait('pause', { days: 1 });
        return 'finished';
      });
      return { result: await runHandler(m, handler, { payload: {} }), replayed: invocation > 1 };
    },
  },
];
