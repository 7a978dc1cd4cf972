/**
 * The plugin suite's handlers, written with our SDK's instrumentation plugin API from each
 * requirement's description. Plugins write JSON records to the run's log (`log-stream.ts`), as
 * AWS's print them to stdout; each record carries the execution ARN the invocation started with.
 */
import { type DurableInstrumentationPlugin, type OperationInfo, retryPresets } from '@durable-lambda/sdk';
import { withDurableExecution } from '../harness/durable';
import { emit, say } from '../harness/log-stream';
import type { HandlerEntry } from '../harness/requirement';

type Fields = Record<string, unknown>;

/** The ARN of the invocation under way (stamped on every record). */
let executionArn = '';

/** Writes one record of plugin `plugin`. */
const record = (plugin: string, hook: string, fields: Fields = {}) =>
  emit({ plugin, hook, ...fields, durableExecutionArn: executionArn });

const isStep = (info: OperationInfo) => info.type === 'STEP';
const isWait = (info: OperationInfo) => info.type === 'WAIT';
const parentOf = (info: OperationInfo) => info.parentId ?? 'NONE';
const TERMINAL = new Set(['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'STOPPED', 'CANCELLED']);

/** A plugin that only learns the ARN, plus `hooks`. */
const plugin = (hooks: DurableInstrumentationPlugin): DurableInstrumentationPlugin => ({
  ...hooks,
  onInvocationStart: async (info) => {
    executionArn = info.executionArn;
    await hooks.onInvocationStart?.(info);
  },
});

/** The invocation hooks with the first-invocation flag and the end's status. */
const invocationHooks = (name = 'CONFPLUGIN') =>
  plugin({
    onInvocationStart: async (info) => record(name, 'invocation-start', { first: info.isFirstInvocation }),
    onInvocationEnd: async (info) => record(name, 'invocation-end', { status: info.status }),
  });

/** Every hook writes its name, then throws. */
const faulty = (): DurableInstrumentationPlugin => {
  const fail = (hook: string) => {
    record('CONFPLUGIN-FAULTY', hook);
    throw new Error(`faulty plugin: ${hook}`);
  };
  return plugin({
    onInvocationStart: async () => fail('invocation-start'),
    onInvocationEnd: async () => fail('invocation-end'),
    onOperationStart: async (info) => (isStep(info) ? fail('operation-start') : undefined),
    onOperationEnd: async (info) => (isStep(info) ? fail('operation-end') : undefined),
    onOperationAttemptStart: async (info) => (isStep(info) ? fail('attempt-start') : undefined),
    onOperationAttemptEnd: async (info) => (isStep(info) ? fail('attempt-end') : undefined),
  });
};

/** A hook's info as one flat record: dates as ISO text, errors as their message, maps as counts. */
function dump(info: object): Fields {
  const out: Fields = {};
  for (const [key, value] of Object.entries(info)) {
    if (value === undefined) continue;
    if (value instanceof Date) out[key] = value.toISOString();
    else if (value instanceof Error) out[key] = value.message;
    else if (key === 'operations' || key === 'updatedOperations') out[`${key}Count`] = Object.keys(value).length;
    else if (key === 'failedAttempts' || key === 'executionInput' || key === 'executionResult') continue;
    else out[key] = value;
  }
  return out;
}

/** Greets the run's input in a step that prints a line first. */
const greeting = (plugins: DurableInstrumentationPlugin[]) =>
  withDurableExecution(
    async (who: string, ctx) =>
      ctx.step(async () => {
        say(`Greeting step running for: ${who}`);
        return `Hello, ${who}!`;
      }),
    { plugins },
  );

/** A 2-second wait. */
const twoSecondWait = (plugins: DurableInstrumentationPlugin[]) =>
  withDurableExecution(
    async (_e: unknown, ctx) => {
      await ctx.wait({ seconds: 2 });
      return 'waited';
    },
    { plugins },
  );

/** Fails on the first attempt, succeeds on the second (1 s apart). */
const flaky = {
  retryStrategy: (_error: unknown, attempt: number) => ({ shouldRetry: attempt < 2, delay: { seconds: 1 } }),
};

/** The first-invocation flag of the invocation under way (start and end run in one process). */
let firstInvocation = false;

export const PLUGIN_HANDLERS: Record<string, HandlerEntry> = {
  '10-1': greeting([invocationHooks()]),
  '10-2': greeting([
    plugin({
      onOperationStart: async (info) =>
        isStep(info) ? record('CONFPLUGIN', 'operation-start', { op: info.id }) : undefined,
      onOperationEnd: async (info) =>
        isStep(info) ? record('CONFPLUGIN', 'operation-end', { op: info.id, status: info.status }) : undefined,
    }),
  ]),
  '10-3': withDurableExecution(
    async (_e: unknown, ctx) =>
      ctx.step(async (step) => {
        if (step.attempt === 1) throw new Error('first attempt fails');
        return 'Operation succeeded';
      }, flaky),
    {
      plugins: [
        plugin({
          onOperationAttemptStart: async (info) =>
            isStep(info) ? record('CONFPLUGIN', 'attempt-start', { n: info.attempt, op: info.id }) : undefined,
          onOperationAttemptEnd: async (info) =>
            isStep(info)
              ? record('CONFPLUGIN', 'attempt-end', { n: info.attempt, outcome: info.outcome, op: info.id })
              : undefined,
        }),
      ],
    },
  ),
  '10-4': greeting([faulty()]),
  '10-5': greeting([invocationHooks('CONFPLUGIN-A'), invocationHooks('CONFPLUGIN-B')]),
  '10-6': twoSecondWait([invocationHooks()]),
  '10-7': withDurableExecution(
    async (_e: unknown, ctx) =>
      ctx.step(
        async () => {
          throw new Error('always fails');
        },
        { retryStrategy: retryPresets.noRetry },
      ),
    { plugins: [invocationHooks()] },
  ),
  '10-8': greeting([
    plugin({
      onOperationChange: async (info) => {
        for (const op of Object.values(info.updatedOperations)) {
          if (isStep(op)) {
            record('CONFPLUGIN', 'operation-change', {
              op: op.id,
              status: op.status,
              in_full_map: op.id in info.operations,
            });
          }
        }
      },
    }),
  ]),
  '10-9': twoSecondWait([
    plugin({
      onInvocationStart: async (info) => {
        for (const op of Object.values(info.updatedOperations)) {
          if (isWait(op)) {
            record('CONFPLUGIN', 'updated-on-invoke', { op: op.id, status: op.status, first: info.isFirstInvocation });
          }
        }
      },
    }),
  ]),
  '10-10': twoSecondWait([
    plugin({
      onOperationStart: async (info) =>
        isWait(info)
          ? record('CONFPLUGIN', 'operation-start', { op: info.id, type: info.type.toUpperCase() })
          : undefined,
      onOperationEnd: async (info) =>
        isWait(info)
          ? record('CONFPLUGIN', 'operation-end', { op: info.id, type: info.type.toUpperCase(), status: info.status })
          : undefined,
    }),
  ]),
  '10-11': withDurableExecution(
    async (who: string, ctx) =>
      ctx.runInChildContext('child', async (child) => child.step(async () => `Hello, ${who}!`)),
    {
      plugins: [
        plugin({
          onOperationEnd: async (info) =>
            TERMINAL.has(info.status ?? '')
              ? record('CONFPLUGIN', 'operation-end', { op: info.id, parent: parentOf(info), status: info.status })
              : undefined,
        }),
      ],
    },
  ),
  '10-12': withDurableExecution(
    async (_e: unknown, ctx) =>
      (
        await ctx.parallel('parallel', [async () => 'task-1', async () => 'task-2'], { maxConcurrency: 1 })
      ).getResults(),
    {
      plugins: [
        plugin({
          wrapChildContextFn: (info, fn) => {
            if (info.subType !== 'ParallelBranch') return fn();
            const ids = { op: info.id, parent: parentOf(info) };
            record('CONFPLUGIN', 'fn-start', ids);
            const end = (outcome: string) => record('CONFPLUGIN', 'fn-end', { ...ids, outcome });
            return Promise.resolve()
              .then(fn)
              .then(
                (value) => {
                  end('SUCCEEDED');
                  return value;
                },
                (error: unknown) => {
                  end('FAILED');
                  throw error;
                },
              );
          },
        }),
      ],
    },
  ),
  '10-13': withDurableExecution(
    async (_e: unknown, ctx) => {
      await ctx.step('a', async () => 'a done');
      return ctx.step(
        'b',
        async (step) => {
          if (step.attempt === 1) throw new Error('first attempt fails');
          return 'Operation succeeded';
        },
        flaky,
      );
    },
    {
      plugins: [
        plugin({
          onOperationStart: async (info) =>
            isStep(info) ? record('CONFPLUGIN', 'operation-start', { op: info.id, replay: info.isReplay }) : undefined,
          onOperationEnd: async (info) =>
            isStep(info) ? record('CONFPLUGIN', 'operation-end', { op: info.id, status: info.status }) : undefined,
        }),
      ],
    },
  ),
  '10-14': withDurableExecution(
    async (_e: unknown, ctx) => {
      await ctx.step('a', async () => 'task-a');
      return ctx.step(
        'b',
        async () => {
          throw new Error('boom');
        },
        { retryStrategy: retryPresets.noRetry },
      );
    },
    {
      plugins: [
        plugin({
          onOperationEnd: async (info) =>
            isStep(info)
              ? record('CONFPLUGIN', 'operation-end', {
                  op: info.id,
                  status: info.status,
                  result: info.result ?? 'NONE',
                  error: info.error?.message ?? 'NONE',
                })
              : undefined,
        }),
      ],
    },
  ),
  '10-15': withDurableExecution(
    async (_e: unknown, ctx) =>
      ctx.step(async () => {
        throw new Error('always fails');
      }, flaky),
    {
      plugins: [
        plugin({
          onOperationAttemptStart: async (info) =>
            isStep(info) ? record('CONFPLUGIN', 'attempt-start', { n: info.attempt, op: info.id }) : undefined,
          onOperationAttemptEnd: async (info) =>
            isStep(info)
              ? record('CONFPLUGIN', 'attempt-end', { n: info.attempt, outcome: info.outcome, op: info.id })
              : undefined,
          onOperationEnd: async (info) =>
            isStep(info) ? record('CONFPLUGIN', 'operation-end', { op: info.id, status: info.status }) : undefined,
        }),
      ],
    },
  ),
  '10-16': twoSecondWait([
    plugin({
      onInvocationStart: async (info) => {
        firstInvocation = info.isFirstInvocation;
        record('CONFPLUGIN', 'invocation-start', { first: info.isFirstInvocation });
      },
      onInvocationEnd: async (info) =>
        record('CONFPLUGIN', 'invocation-end', {
          first: firstInvocation,
          terminal: info.status === 'SUCCEEDED' || info.status === 'FAILED',
          status: info.status,
        }),
    }),
  ]),
  '10-17': greeting([
    faulty(),
    plugin({
      onInvocationStart: async (info) =>
        record('CONFPLUGIN-HEALTHY', 'invocation-start', { first: info.isFirstInvocation }),
      onOperationStart: async (info) =>
        isStep(info) ? record('CONFPLUGIN-HEALTHY', 'operation-start', { op: info.id }) : undefined,
      onOperationAttemptStart: async (info) =>
        isStep(info) ? record('CONFPLUGIN-HEALTHY', 'attempt-start', { op: info.id }) : undefined,
      onOperationAttemptEnd: async (info) =>
        isStep(info) ? record('CONFPLUGIN-HEALTHY', 'attempt-end', { op: info.id, outcome: info.outcome }) : undefined,
      onOperationEnd: async (info) =>
        isStep(info) ? record('CONFPLUGIN-HEALTHY', 'operation-end', { op: info.id, status: info.status }) : undefined,
      onInvocationEnd: async (info) => record('CONFPLUGIN-HEALTHY', 'invocation-end', { status: info.status }),
    }),
  ]),
  '10-18': withDurableExecution(
    async (_e: unknown, ctx) =>
      (
        await ctx.parallel(
          'waits',
          [
            async (c) => {
              await c.wait('short', { seconds: 2 });
              return 'short-done';
            },
            async (c) => {
              await c.wait('long', { seconds: 8 });
              return 'long-done';
            },
          ],
          { maxConcurrency: 2 },
        )
      ).getResults(),
    {
      plugins: [
        plugin({
          onOperationStart: async (info) =>
            isWait(info)
              ? record('CONFPLUGIN', 'operation-start', {
                  type: info.type.toUpperCase(),
                  name: info.name,
                  replay: info.isReplay,
                  pending: !TERMINAL.has(info.status ?? ''),
                })
              : undefined,
          onOperationEnd: async (info) =>
            isWait(info)
              ? record('CONFPLUGIN', 'operation-end', {
                  type: info.type.toUpperCase(),
                  name: info.name,
                  status: info.status,
                })
              : undefined,
        }),
      ],
    },
  ),
  '10-19': withDurableExecution(
    async (input: string, ctx) => {
      await ctx.wait({ seconds: 2 });
      return `done-${input}`;
    },
    {
      plugins: [
        plugin({
          onInvocationStart: async (info) => record('CONFPLUGIN', 'invocation-start', dump(info)),
          onInvocationEnd: async (info) =>
            record('CONFPLUGIN', 'invocation-end', {
              ...dump(info),
              terminal: info.status === 'SUCCEEDED' || info.status === 'FAILED',
            }),
        }),
      ],
    },
  ),
  '10-20': withDurableExecution(async (_e: unknown, ctx) => ctx.step('greet', async () => 'task-a'), {
    plugins: [
      plugin({
        onOperationStart: async (info) =>
          isStep(info) ? record('CONFPLUGIN', 'operation-start', dump(info)) : undefined,
        onOperationEnd: async (info) => (isStep(info) ? record('CONFPLUGIN', 'operation-end', dump(info)) : undefined),
      }),
    ],
  }),
  '10-21': withDurableExecution(
    async (_e: unknown, ctx) =>
      ctx.step(
        'flaky',
        async (step) => {
          if (step.attempt === 1) throw new Error('first attempt fails');
          return 'ok';
        },
        flaky,
      ),
    {
      plugins: [
        plugin({
          onOperationAttemptStart: async (info) =>
            isStep(info) ? record('CONFPLUGIN', 'attempt-start', dump(info)) : undefined,
          onOperationAttemptEnd: async (info) =>
            isStep(info) ? record('CONFPLUGIN', 'attempt-end', dump(info)) : undefined,
        }),
      ],
    },
  ),
  '10-22': withDurableExecution(async (_e: unknown, ctx) => ctx.step('greet', async () => 'task-a'), {
    plugins: [
      plugin({
        onOperationChange: async (info) => {
          for (const op of Object.values(info.updatedOperations)) {
            if (!isStep(op)) continue;
            record('CONFPLUGIN', 'operation-change', {
              executionArn: info.executionArn,
              updatedOperationsCount: Object.keys(info.updatedOperations).length,
              operationsCount: Object.keys(info.operations).length,
              inFullMap: op.id in info.operations,
              ...dump(op),
            });
          }
        },
      }),
    ],
  }),
  '10-23': withDurableExecution(
    async (_e: unknown, ctx) =>
      (
        await ctx.parallel(
          'ctx',
          [
            {
              name: 'branch-a',
              func: async (c) => {
                await c.step('inner', async () => 'x');
                await c.wait({ seconds: 2 });
                return 'a-done';
              },
            },
            { name: 'branch-b', func: async () => 'b-done' },
          ],
          { maxConcurrency: 1 },
        )
      ).getResults(),
    {
      plugins: [
        plugin({
          onOperationStart: async (info) =>
            info.type === 'CONTEXT' ? record('CONFPLUGIN', 'operation-start', dump(info)) : undefined,
          wrapChildContextFn: (info, fn) => {
            if (info.type === 'CONTEXT') record('CONFPLUGIN', 'fn-start', dump(info));
            return fn();
          },
        }),
      ],
    },
  ),
};
