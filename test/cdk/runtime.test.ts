/**
 * The code the constructs bundle into Lambda functions: run metrics (EMF), the control API's
 * configuration and the stuck-runs watchdog (the backend a bundle registers:
 * bundle-registration.own-modules.test.ts).
 */
import type { DurableBackend, InvocationOutput, OpenedInvocation } from '@durable-lambda/protocol';
import { describe, expect, it } from 'vitest';
import { functionTarget, readControlApiConfig } from '../../packages/cdk/src/runtime/control-api-config';
import { customMetricsOn, emfLine, withoutEmf } from '../../packages/cdk/src/runtime/metrics';
import { withRunMetrics } from '../../packages/cdk/src/runtime/run-metrics';
import { checkStuckRuns, readWatchedFunctions } from '../../packages/cdk/src/runtime/watchdog';

function fakeBackend(startedAt: number | undefined) {
  const closed: InvocationOutput[] = [];
  const opened: OpenedInvocation = {
    invocation: {
      runId: 'run-1',
      functionName: 'checkout:prod',
      input: undefined,
      operations:
        startedAt === undefined
          ? []
          : [{ Id: '0', Type: 'EXECUTION', Status: 'STARTED', StartTimestamp: startedAt } as never],
      previousInvocationLost: false,
      lostInvocations: 0,
      now: () => 0,
      remainingTimeMs: () => 0,
      checkpoint: async () => [],
      refresh: async () => [],
    },
    close: async (output) => {
      closed.push(output);
      return { Status: output.Status };
    },
    abort: async () => undefined,
  };
  const backend: DurableBackend = { open: async (event) => (event === 'nothing' ? { response: 'none' } : { opened }) };
  return { backend, closed };
}

describe('withRunMetrics', () => {
  it('publishes RunsSucceeded / RunsFailed and RunDuration (EMF) when a run ends, nothing while it waits', async () => {
    const lines: string[] = [];
    const { backend, closed } = fakeBackend(1_000);
    const wrapped = withRunMetrics(backend, { write: (line) => lines.push(line), now: () => 61_000 });
    for (const Status of ['PENDING', 'SUCCEEDED', 'FAILED'] as const) {
      const result = await wrapped.open({}, { functionName: 'checkout' });
      expect(await result.opened?.close({ Status })).toEqual({ Status });
    }
    expect(closed.map((o) => o.Status)).toEqual(['PENDING', 'SUCCEEDED', 'FAILED']);
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      {
        _aws: {
          Timestamp: 61_000,
          CloudWatchMetrics: [
            {
              Namespace: 'DurableLambda',
              Dimensions: [['FunctionName']],
              Metrics: [
                { Name: 'RunsSucceeded', Unit: 'Count' },
                { Name: 'RunDuration', Unit: 'Milliseconds' },
              ],
            },
          ],
        },
        FunctionName: 'checkout',
        RunsSucceeded: 1,
        RunDuration: 60_000,
      },
      expect.objectContaining({ FunctionName: 'checkout', RunsFailed: 1, RunDuration: 60_000 }),
    ]);
  });

  it('passes answers through untouched, and never fails a run over metrics', async () => {
    const { backend } = fakeBackend(undefined);
    const wrapped = withRunMetrics(backend, {
      write: () => {
        throw new Error('stdout closed');
      },
    });
    expect(await wrapped.open('nothing', {})).toEqual({ response: 'none' });
    const result = await wrapped.open({}, {});
    expect(await result.opened?.close({ Status: 'FAILED' })).toEqual({ Status: 'FAILED' });
  });

  it('names the function without its qualifier when the context has no name', async () => {
    const lines: string[] = [];
    const { backend } = fakeBackend(undefined);
    const result = await withRunMetrics(backend, { write: (line) => lines.push(line) }).open({}, {});
    await result.opened?.close({ Status: 'SUCCEEDED' });
    expect(JSON.parse(lines[0] as string)).toMatchObject({ FunctionName: 'checkout', RunsSucceeded: 1 });
    expect(JSON.parse(lines[0] as string)).not.toHaveProperty('RunDuration');
  });
});

describe('custom metrics, opt-in', () => {
  it('are on only when the construct set DURABLE_CUSTOM_METRICS=on', () => {
    expect(customMetricsOn({ DURABLE_CUSTOM_METRICS: 'on' })).toBe(true);
    for (const value of [undefined, 'off', 'true', 'ON'])
      expect(customMetricsOn({ DURABLE_CUSTOM_METRICS: value })).toBe(false);
  });

  it('leave a plain JSON line when off: the same fields, no metric directive', () => {
    const line = emfLine('checkout', { RunsFailed: [1, 'Count'] }, 5);
    expect(JSON.parse(withoutEmf(line))).toEqual({ FunctionName: 'checkout', RunsFailed: 1 });
    // Anything that is not an EMF object passes as it is.
    for (const other of ['not json', '[1,2]', '{"message":"hi"}', 'null']) expect(withoutEmf(other)).toBe(other);
  });
});

describe('control API configuration', () => {
  const functions = {
    checkout: 'arn:aws:lambda:eu-west-1:123456789012:function:checkout',
    payments: 'arn:aws:lambda:eu-west-1:123456789012:function:payments',
  };

  it('reads the table, the region and the served functions', () => {
    expect(
      readControlApiConfig({
        DURABLE_TABLE_NAME: 'runs',
        AWS_REGION: 'eu-west-1',
        DURABLE_API_FUNCTIONS: JSON.stringify(functions),
      }),
    ).toEqual({ tableName: 'runs', region: 'eu-west-1', functions, aliases: {} });
  });

  it('names what is missing or malformed', () => {
    expect(() => readControlApiConfig({})).toThrow(/DURABLE_TABLE_NAME, DURABLE_API_FUNCTIONS, AWS_REGION/);
    expect(() =>
      readControlApiConfig({ DURABLE_TABLE_NAME: 'runs', AWS_REGION: 'eu-west-1', DURABLE_API_FUNCTIONS: '{"a":"b"}' }),
    ).toThrow(/DURABLE_API_FUNCTIONS must be a JSON object/);
  });

  it('targets the served functions, keeping a run’s alias, and nothing else', () => {
    expect(functionTarget(functions, 'checkout')).toBe(functions.checkout);
    expect(functionTarget(functions, 'checkout:prod')).toBe(`${functions.checkout}:prod`);
    expect(functionTarget(functions, 'unknown')).toBe('unknown');
    expect(functionTarget(functions, 'constructor')).toBe('constructor');
  });
});

describe('stuck-runs watchdog', () => {
  it('publishes StuckRuns for every watched function, zero included', async () => {
    const lines: string[] = [];
    const asked: Array<[string, number]> = [];
    const counts = await checkStuckRuns(
      readWatchedFunctions({
        DURABLE_WATCHDOG_FUNCTIONS: JSON.stringify([
          { name: 'checkout', thresholdMs: 7_200_000 },
          { name: 'reminder', thresholdMs: 864_000_000 },
        ]),
      }),
      async (name, before) => {
        asked.push([name, before]);
        return name === 'checkout' ? 3 : 0;
      },
      { now: 1_000_000_000_000, write: (line) => lines.push(line) },
    );
    expect(counts).toEqual({ checkout: 3, reminder: 0 });
    expect(asked.sort()).toEqual([
      ['checkout', 1_000_000_000_000 - 7_200_000],
      ['reminder', 1_000_000_000_000 - 864_000_000],
    ]);
    expect(lines.sort()).toEqual(
      [
        emfLine('checkout', { StuckRuns: [3, 'Count'] }, 1_000_000_000_000),
        emfLine('reminder', { StuckRuns: [0, 'Count'] }, 1_000_000_000_000),
      ].sort(),
    );
  });

  it('counts the runs of every alias and version (recorded as name:qualifier) with the unqualified ones', async () => {
    const lines: string[] = [];
    const asked: string[] = [];
    const running: Record<string, number> = {
      checkout: 1,
      'checkout:live': 2,
      'checkout:7': 4,
      'checkout:$LATEST': 100,
    };
    const counts = await checkStuckRuns(
      [{ name: 'checkout', thresholdMs: 60_000 }],
      async (name) => {
        asked.push(name);
        return running[name] ?? 0;
      },
      {
        now: 1_000_000,
        write: (line) => lines.push(line),
        listQualifiers: async () => ['live', '$LATEST', '6', '7', 'live'],
      },
    );
    expect(counts).toEqual({ checkout: 7 });
    expect(asked.sort()).toEqual(['checkout', 'checkout:6', 'checkout:7', 'checkout:live']);
    expect(lines).toEqual([emfLine('checkout', { StuckRuns: [7, 'Count'] }, 1_000_000)]);
  });

  it('still counts the unqualified runs when the aliases and versions cannot be listed, and says so', async () => {
    const warnings: string[] = [];
    const counts = await checkStuckRuns([{ name: 'checkout', thresholdMs: 60_000 }], async () => 2, {
      now: 1_000_000,
      write: () => {},
      warn: (line) => warnings.push(line),
      listQualifiers: async () => {
        throw new Error('AccessDeniedException');
      },
    });
    expect(counts).toEqual({ checkout: 2 });
    expect(warnings).toEqual([expect.stringContaining('cannot list the aliases and versions of checkout')]);
  });

  it('refuses a malformed configuration', () => {
    expect(() => readWatchedFunctions({})).toThrow(/DURABLE_WATCHDOG_FUNCTIONS/);
    expect(() => readWatchedFunctions({ DURABLE_WATCHDOG_FUNCTIONS: '[{"name":"a","thresholdMs":0}]' })).toThrow();
  });
});
