import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalDurableTestRunner } from '@durable-lambda/local';
import {
  DURABLE_INSTRUMENTATION_PLUGIN_API_VERSION,
  type DurableInstrumentationPlugin,
  PluginInvocationStatus,
  retryPresets,
  withDurableExecution,
} from '@durable-lambda/sdk';
import { afterEach, describe, expect, it } from 'vitest';

/** A plugin that records every hook it gets, as `hook:detail`. */
function recorder(events: string[]): DurableInstrumentationPlugin {
  return {
    onInvocationStart: async (info) => {
      events.push(`invocationStart:first=${info.isFirstInvocation}`);
    },
    onInvocationEnd: async (info) => {
      events.push(`invocationEnd:${info.status}:${JSON.stringify(info.executionResult ?? null)}`);
    },
    onOperationStart: async (info) => {
      events.push(`operationStart:${info.type}:${info.name ?? info.id}`);
    },
    onOperationEnd: async (info) => {
      events.push(`operationEnd:${info.type}:${info.name ?? info.id}:${info.error ? 'error' : 'ok'}`);
    },
    onOperationAttemptStart: async (info) => {
      events.push(`attemptStart:${info.name}:${info.attempt}`);
    },
    onOperationAttemptEnd: async (info) => {
      events.push(`attemptEnd:${info.name}:${info.attempt}:${info.outcome}`);
    },
  };
}

describe('instrumentation plugins (AWS’s API) given in the config', () => {
  it('calls the invocation, operation and attempt hooks in order, for every invocation', async () => {
    const events: string[] = [];
    let tries = 0;
    const handler = withDurableExecution(
      async (_e, ctx) => {
        await ctx.step(
          'flaky',
          async () => {
            if (++tries === 1) throw new Error('once');
            return 'ok';
          },
          { retry: { maxAttempts: 2, initialMs: 1000 } },
        );
        await ctx.runInChildContext('group', async (c) => c.wait('pause', { seconds: 1 }));
        return 'done';
      },
      { plugins: [recorder(events)] },
    );
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getResult()).toBe('done');
    expect(events).toEqual([
      'invocationStart:first=true',
      'operationStart:STEP:flaky',
      'attemptStart:flaky:1',
      'attemptEnd:flaky:1:FAILED',
      `invocationEnd:${PluginInvocationStatus.PENDING}:null`,
      'invocationStart:first=false',
      'operationStart:STEP:flaky',
      'attemptStart:flaky:2',
      'attemptEnd:flaky:2:SUCCEEDED',
      'operationEnd:STEP:flaky:ok',
      'operationStart:CONTEXT:group',
      'operationStart:WAIT:pause',
      `invocationEnd:${PluginInvocationStatus.PENDING}:null`,
      'invocationStart:first=false',
      'operationStart:CONTEXT:group',
      // The wait ended between the invocations: this one is the first to see its end (AWS's).
      'operationEnd:WAIT:pause:ok',
      'operationEnd:CONTEXT:group:ok',
      `invocationEnd:${PluginInvocationStatus.SUCCEEDED}:"done"`,
    ]);
  });

  it('runs attempts and child contexts inside the wrap hooks (e.g. a tracing span), and the handler inside wrapInvocation', async () => {
    const span = new AsyncLocalStorage<string>();
    const seen: Array<string | undefined> = [];
    const tracing: DurableInstrumentationPlugin = {
      wrapInvocation: (info, fn) => span.run(`invocation ${info.executionArn}`, fn),
      wrapOperationAttemptFn: (info, fn) => span.run(`attempt ${info.name}#${info.attempt}`, fn),
      wrapChildContextFn: (info, fn) => span.run(`context ${info.name}`, fn),
    };
    const handler = withDurableExecution(
      async (_e, ctx) => {
        seen.push(span.getStore()?.split(' ')[0]);
        await ctx.step('work', async () => seen.push(span.getStore()));
        await ctx.runInChildContext('group', async () => {
          seen.push(span.getStore());
        });
        return 'ok';
      },
      { plugins: [tracing] },
    );
    await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(seen).toEqual(['invocation', 'attempt work#1', 'context group']);
  });

  it('never lets a plugin fail the run: throwing hooks are ignored, the step’s own failure still counts', async () => {
    const broken: DurableInstrumentationPlugin = {
      onInvocationStart: async () => {
        throw new Error('plugin start');
      },
      onOperationStart: async () => {
        throw new Error('plugin op');
      },
      wrapOperationAttemptFn: () => {
        throw new Error('plugin wrap');
      },
      enrichLogContext: () => {
        throw new Error('plugin log');
      },
    };
    const handler = withDurableExecution(
      async (_e, ctx) => {
        ctx.logger.info('still logs');
        const ok = await ctx.step('ok', async () => 1);
        const failed = await ctx
          .step(
            'bad',
            async () => {
              throw new Error('real failure');
            },
            { retryStrategy: retryPresets.noRetry },
          )
          .catch((error) => (error as Error).message);
        return [ok, failed];
      },
      { plugins: [broken] },
    );
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getResult()).toEqual([1, 'real failure']);
    expect(result.getLogs().map((l) => l.message)).toEqual(['still logs']);
  });

  it('adds the plugins’ log fields to the default logger’s entries', async () => {
    const handler = withDurableExecution(
      async (_e, ctx) => {
        ctx.logger.info('traced');
        await ctx.step('s', async ({ logger }) => logger.info('in step'));
        return 'ok';
      },
      { plugins: [{ enrichLogContext: () => ({ traceId: 't-1' }) }, { enrichLogContext: () => ({ sampled: true }) }] },
    );
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getLogs().map((l) => l.context)).toEqual([
      { traceId: 't-1', sampled: true },
      { traceId: 't-1', sampled: true },
    ]);
  });

  it('refuses plugins that are not objects, naming the field', () => {
    expect(() => withDurableExecution(async () => 1, { plugins: [42 as never] })).toThrow(/config\.plugins\[0\]/);
    expect(() => withDurableExecution(async () => 1, { plugins: 'x' as never })).toThrow(/config\.plugins/);
  });
});

describe('instrumentation plugins selected with DURABLE_EXECUTION_PLUGINS', () => {
  const dirs: string[] = [];
  const saved = process.env.DURABLE_EXECUTION_PLUGINS;
  afterEach(() => {
    if (saved === undefined) delete process.env.DURABLE_EXECUTION_PLUGINS;
    else process.env.DURABLE_EXECUTION_PLUGINS = saved;
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /** Writes a plugin module exporting `durableExecutionPluginProvider` built by `body`. */
  function pluginModule(body: string): string {
    const dir = mkdtempSync(join(tmpdir(), 'durable-plugin-'));
    dirs.push(dir);
    const file = join(dir, 'plugin.mjs');
    writeFileSync(file, body);
    return file;
  }

  const provider = (version: number) => `
    globalThis.__pluginEvents ??= [];
    class Counting {
      async onOperationStart(info) { globalThis.__pluginEvents.push('start ' + info.name); }
    }
    export const durableExecutionPluginProvider = {
      pluginApiVersion: ${version},
      pluginType: Counting,
      createPlugin: () => new Counting(),
    };`;

  it('loads each named module’s provider after the configured plugins', async () => {
    const events: string[] = [];
    process.env.DURABLE_EXECUTION_PLUGINS = pluginModule(provider(DURABLE_INSTRUMENTATION_PLUGIN_API_VERSION));
    const g = globalThis as { __pluginEvents?: string[] };
    g.__pluginEvents = [];
    const handler = withDurableExecution(async (_e, ctx) => ctx.step('work', async () => 'ok'), {
      plugins: [recorder(events)],
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getResult()).toBe('ok');
    expect(g.__pluginEvents).toEqual(['start work']);
    expect(events).toContain('operationStart:STEP:work');
  });

  it('fails the run with a PluginLoadError naming the module when its provider is incompatible or missing', async () => {
    const cases = [
      [pluginModule(provider(2)), "declares plugin API version '2'"],
      [pluginModule('export const other = 1;'), "must export 'durableExecutionPluginProvider'"],
      [join(tmpdir(), 'no-such-plugin-module.mjs'), 'Failed to load plugin module'],
      ['a,a', "duplicate module specifier 'a'"],
    ] as const;
    for (const [specifier, reason] of cases) {
      process.env.DURABLE_EXECUTION_PLUGINS = specifier;
      const handler = withDurableExecution(async () => 'never runs');
      const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
      expect(result.getStatus()).toBe('FAILED');
      expect(result.getError()).toMatchObject({ errorType: 'PluginLoadError', code: 'plugin_load_failed' });
      expect(result.getError()?.errorMessage).toContain('Dynamic plugin configuration failed:');
      expect(result.getError()?.errorMessage).toContain(reason);
    }
  });
});
