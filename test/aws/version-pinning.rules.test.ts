/**
 * The rules of version pinning, without I/O: the name a run is recorded under when it starts and
 * when it is first leased, which wake-ups an invocation must hand to another version, the
 * configuration's errors, and starts repeated after a run was pinned.
 */
import { LambdaVersionPolicy, parseFunctionArn, readPinningConfig } from '@durable-lambda/aws';
import { Engine, MemoryStore, RunKeyConflictError } from '@durable-lambda/engine';
import { describe, expect, it } from 'vitest';
import { nameAtStart, namePinnedAtLease, runningCode, runsElsewhere } from '../../packages/aws/src/version-pinning';

const ARN = 'arn:aws:lambda:us-east-1:123456789012:function:orders';
const code = (qualifier: string | undefined, functionVersion?: string) =>
  runningCode(parseFunctionArn(qualifier === undefined ? ARN : `${ARN}:${qualifier}`) as never, functionVersion);

describe('version pinning rules', () => {
  it('records a run started on the alias under the version it runs on (policy version)', () => {
    expect(nameAtStart(code('live', '7'), 'version')).toBe('orders:7');
    expect(nameAtStart(code('7'), 'version')).toBe('orders:7');
    // No published version (a host that does not say): the alias it came through.
    expect(nameAtStart(code('live'), 'version')).toBe('orders:live');
    // A container of $LATEST: the run is on $LATEST, and stays there (a bare name would be
    // pinned by whichever version leased it next, after steps ran on $LATEST).
    expect(nameAtStart(code(undefined, '$LATEST'), 'version')).toBe('orders:$LATEST');
    expect(nameAtStart(code('$LATEST', '$LATEST'), 'alias')).toBe('orders:$LATEST');
    expect(nameAtStart(code('live', '7'), 'alias')).toBe('orders:live');
    expect(nameAtStart(code('7', '7'), 'alias')).toBe('orders:7');
    // Under `latest` a bare name is $LATEST's; a start through the alias is recorded there.
    expect(nameAtStart(code(undefined, '$LATEST'), 'latest')).toBe('orders');
    expect(nameAtStart(code('live', '7'), 'latest')).toBe('orders:live');
  });

  it('pins at the first lease only runs not pinned yet, of this function', () => {
    const v7 = code('live', '7');
    expect(namePinnedAtLease('orders', v7, 'version')).toBe('orders:7');
    expect(namePinnedAtLease('orders:live', v7, 'version')).toBe('orders:7');
    expect(namePinnedAtLease('orders:6', v7, 'version')).toBeUndefined();
    expect(namePinnedAtLease('orders:$LATEST', v7, 'version')).toBeUndefined();
    expect(namePinnedAtLease('orders:canary', v7, 'version')).toBeUndefined();
    expect(namePinnedAtLease('billing', v7, 'version')).toBeUndefined();
    expect(namePinnedAtLease('orders', v7, 'alias')).toBe('orders:live');
    expect(namePinnedAtLease('orders:live', v7, 'alias')).toBeUndefined();
    expect(namePinnedAtLease('orders', v7, 'latest')).toBeUndefined();
    // Leased on $LATEST: pinned there, never left bare for another version's lease.
    expect(namePinnedAtLease('orders', code(undefined, '$LATEST'), 'version')).toBe('orders:$LATEST');
    expect(namePinnedAtLease('orders:live', code(undefined, '$LATEST'), 'version')).toBeUndefined();
  });

  it('hands over any run recorded on other code, whatever this invocation runs', () => {
    const v7 = code('live', '7');
    const latest = code(undefined, '$LATEST');
    expect(runsElsewhere('orders:6', v7, 'version')).toBe('orders:6');
    expect(runsElsewhere('orders:6', latest, 'version')).toBe('orders:6');
    expect(runsElsewhere('orders:7', v7, 'version')).toBeUndefined();
    expect(runsElsewhere('orders:7', code('7', '7'), 'version')).toBeUndefined();
    // Not pinned yet: its lease here pins it here.
    expect(runsElsewhere('orders:live', v7, 'version')).toBeUndefined();
    expect(runsElsewhere('orders', v7, 'version')).toBeUndefined();
    expect(runsElsewhere('orders', latest, 'alias')).toBeUndefined();
    // On $LATEST: only $LATEST runs it, not the alias the wake-up queue feeds.
    expect(runsElsewhere('orders:$LATEST', v7, 'version')).toBe('orders:$LATEST');
    expect(runsElsewhere('orders:$LATEST', code('7', '7'), 'alias')).toBe('orders:$LATEST');
    expect(runsElsewhere('orders:$LATEST', latest, 'version')).toBeUndefined();
    expect(runsElsewhere('orders:$LATEST', code('$LATEST', '$LATEST'), 'version')).toBeUndefined();
    // On an alias: only invocations through it.
    expect(runsElsewhere('orders:live', code('7', '7'), 'alias')).toBe('orders:live');
    expect(runsElsewhere('orders:live', latest, 'version')).toBe('orders:live');
    expect(runsElsewhere('orders:canary', v7, 'alias')).toBe('orders:canary');
    // Under `latest` a bare name is $LATEST's.
    expect(runsElsewhere('orders', v7, 'latest')).toBe('orders');
    expect(runsElsewhere('orders', latest, 'latest')).toBeUndefined();
    // Other functions' runs (and ARNs) are not judged here.
    expect(runsElsewhere('billing:3', v7, 'version')).toBeUndefined();
  });

  it('targets the qualifier a run is recorded on; a bare own name the code running now', () => {
    const policy = (pinning: 'version' | 'alias' | 'latest', running = code('live', '7')) => {
      const versions = new LambdaVersionPolicy({ pinning, invokeAliases: { billing: 'live' } });
      versions.runningOn(running);
      return versions;
    };
    const version = policy('version');
    expect(version.invokeTarget('orders:6')).toBe('orders:6');
    expect(version.invokeTarget('orders:$LATEST')).toBe('orders');
    expect(version.invokeTarget('orders')).toBe('orders:7');
    expect(policy('alias').invokeTarget('orders')).toBe('orders:live');
    expect(policy('alias', code(undefined, '$LATEST')).invokeTarget('orders')).toBe('orders');
    expect(policy('latest').invokeTarget('orders')).toBe('orders');
    // Another function's bare name: its alias when one is configured, else unqualified.
    expect(version.invokeTarget('billing')).toBe('billing:live');
    expect(version.invokeTarget('billing:3')).toBe('billing:3');
    expect(version.invokeTarget('payments')).toBe('payments');
  });

  it('reads its configuration, naming a malformed variable', () => {
    expect(readPinningConfig({})).toEqual({ pinning: 'version', aliases: {} });
    expect(
      readPinningConfig({ DURABLE_VERSION_PINNING: 'latest', DURABLE_FUNCTION_ALIASES: '{"payments":"live"}' }),
    ).toEqual({ pinning: 'latest', aliases: { payments: 'live' } });
    expect(() => readPinningConfig({ DURABLE_VERSION_PINNING: 'newest' })).toThrow(
      expect.objectContaining({ code: 'invalid_configuration', variables: ['DURABLE_VERSION_PINNING'] }),
    );
    for (const aliases of ['[]', '{"payments":"7"}', 'nope', '{"payments":1}']) {
      expect(() => readPinningConfig({ DURABLE_FUNCTION_ALIASES: aliases }), aliases).toThrow(
        expect.objectContaining({ code: 'invalid_configuration', variables: ['DURABLE_FUNCTION_ALIASES'] }),
      );
    }
  });

  it('finds a run again by its key once it is pinned (a repeated start or invoke), and still refuses another input', async () => {
    const store = new MemoryStore();
    const versions = new LambdaVersionPolicy({ pinning: 'version' });
    const engine = new Engine({ store, waker: { wakeAt: async () => {} }, versions });
    // The run as its first invocation left it: pinned to version 7.
    const first = await engine.startRun({ functionName: 'orders:7', runKey: 'k-1', input: '{"n":1}' });
    const again = await engine.startRun({ functionName: 'orders:live', runKey: 'k-1', input: '{"n":1}' });
    expect(again).toEqual({ run: first.run, created: false });
    expect((await engine.startRun({ functionName: 'orders', runKey: 'k-1', input: '{"n":1}' })).created).toBe(false);
    await expect(engine.startRun({ functionName: 'orders:live', runKey: 'k-1', input: '{"n":2}' })).rejects.toThrow(
      RunKeyConflictError,
    );
    await expect(engine.startRun({ functionName: 'billing', runKey: 'k-1', input: '{"n":1}' })).rejects.toThrow(
      RunKeyConflictError,
    );
  });
});
