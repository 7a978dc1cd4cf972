/** Invokes and child contexts. */
import { type DualCase, describeError, runHandler } from '../harness/case';

export const compositionCases: DualCase[] = [
  {
    name: 'invoke: a registered durable function runs and returns its result',
    async run(m) {
      const child = m.sdk.withDurableExecution(async (event: { n: number }, ctx) => {
        const squared = await ctx.step('square', async () => event.n * event.n);
        await ctx.wait('child-nap', { seconds: 30 });
        return { squared };
      });
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        const out = await ctx.invoke('call-square', 'square-fn', { n: 7 });
        return { out };
      });
      const result = await runHandler(m, handler, {
        payload: {},
        register: (runner) => runner.registerDurableFunction('square-fn', child),
      });
      return { result };
    },
  },
  {
    name: 'invoke: a registered plain function (registerFunction) is invoked',
    async run(m) {
      const plain = async (event: { name: string }) => ({ greeting: `hi ${event.name}` });
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) =>
        ctx.invoke('greeter', { name: 'ada' }),
      );
      const result = await runHandler(m, handler, {
        payload: {},
        register: (runner) => runner.registerFunction('greeter', plain),
      });
      return { result };
    },
  },
  {
    name: 'invoke: a failing durable function is an InvokeError, caught',
    async run(m) {
      const child = m.sdk.withDurableExecution(async () => {
        throw new Error('child refused');
      });
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        try {
          await ctx.invoke('call-child', 'child-fn', {});
          return 'not reached';
        } catch (error) {
          return { described: describeError(error), isIt: error instanceof m.sdk.InvokeError };
        }
      });
      const result = await runHandler(m, handler, {
        payload: {},
        register: (runner) => runner.registerDurableFunction('child-fn', child),
      });
      return { result };
    },
  },
  {
    name: 'child context: steps and a wait inside runInChildContext',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        const inner = await ctx.runInChildContext('block', async (child) => {
          const a = await child.step('a', async () => 1);
          await child.wait('inner-wait', { seconds: 10 });
          const b = await child.step('b', async () => 2);
          return a + b;
        });
        const unnamed = await ctx.runInChildContext(async (child) => child.step('c', async () => 'c'));
        return { inner, unnamed };
      });
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
  {
    name: 'child context: nested child contexts',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) =>
        ctx.runInChildContext('outer', async (outer) =>
          outer.runInChildContext('inner', async (inner) => inner.step('deep', async () => 'deep value')),
        ),
      );
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
  {
    name: 'child context: a failure inside is a ChildContextError, caught',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        try {
          await ctx.runInChildContext('failing-block', async (child) => {
            await child.step('ok', async () => 'ok');
            throw new Error('block failed');
          });
          return 'not reached';
        } catch (error) {
          return { described: describeError(error), isIt: error instanceof m.sdk.ChildContextError };
        }
      });
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
  {
    name: 'child context: using the parent context inside a child is refused',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        try {
          await ctx.runInChildContext('misuse', async () => ctx.step('on-parent', async () => 'parent'));
          return 'not refused';
        } catch (error) {
          return describeError(error);
        }
      });
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
  {
    name: 'child context: using the context inside a step is refused',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        try {
          await ctx.step('outer-step', async () => ctx.step('nested-step', async () => 'nested'), {
            retryStrategy: m.sdk.retryPresets.noRetry,
          });
          return 'not refused';
        } catch (error) {
          return describeError(error);
        }
      });
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
  {
    name: 'runner: operations found by index, by name and index, by id, and filtered by status',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        await ctx.step('repeat', async () => 'first');
        await ctx.step('repeat', async () => 'second');
        await ctx
          .step(
            'broken',
            async () => {
              throw new Error('no');
            },
            { retryStrategy: m.sdk.retryPresets.noRetry },
          )
          .catch(() => undefined);
        return 'looked up';
      });
      const observed: Record<string, unknown> = {};
      const result = await runHandler(m, handler, {
        payload: {},
        after: (runner, run) => {
          const second = runner.getOperationByNameAndIndex('repeat', 1);
          observed.secondByNameAndIndex = second.getStepDetails()?.result;
          observed.secondByNameIndexArg = runner.getOperation('repeat', 1).getStepDetails()?.result;
          observed.byIndex = [0, 1, 2].map((i) => runner.getOperationByIndex(i).getName());
          const id = second.getId();
          observed.byIdSame = id === undefined ? 'no id' : runner.getOperationById(id).getStepDetails()?.result;
          observed.succeeded = run.getOperations({ status: m.testing.OperationStatus.SUCCEEDED }).length;
          observed.failed = run.getOperations({ status: m.testing.OperationStatus.FAILED }).map((op) => op.getName());
          observed.enums = [m.testing.ExecutionStatus.SUCCEEDED, m.testing.OperationType.STEP];
          observed.isCallback = second.isCallback();
          observed.children = second.getChildOperations()?.length ?? 'none';
        },
      });
      return { result, observed };
    },
  },
  {
    name: 'invoke: a registered plain function that throws fails the run uncaught',
    async run(m) {
      const plain = async () => {
        throw new Error('downstream exploded');
      };
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => ctx.invoke('fragile', {}));
      const result = await runHandler(m, handler, {
        payload: {},
        register: (runner) => runner.registerFunction('fragile', plain),
      });
      return { result };
    },
  },
  {
    name: 'child context: an uncaught failure inside fails the run',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) =>
        ctx.runInChildContext('doomed', async (child) => {
          await child.wait('before-failing', { seconds: 5 });
          throw new RangeError('out of range inside');
        }),
      );
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
];
