import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createControlApi, toNodeListener } from '@durable-lambda/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveBackend, listen } from '../api/support';
import { runDurableCli, spawnDurableCli } from '../support/durable-cli';

const backend = new LiveBackend();
backend.register('measure', async (event: { blob: string }) => ({ length: event.blob.length }));
backend.register('approve', async (_e, ctx) => {
  const [promise] = await ctx.createCallback('approval');
  return { approved: JSON.parse((await promise) as string) };
});

let url = '';
let close: () => Promise<void> = async () => {};
beforeAll(async () => {
  const api = createControlApi({ engine: backend.engine, functions: [...backend.handlers.keys()] });
  const server = await listen(toNodeListener(api));
  url = server.url;
  close = server.close;
});
afterAll(() => close());

const folder = mkdtempSync(join(tmpdir(), 'durable-cli-json-'));

describe('durable CLI: JSON values from a file (@FILE) or standard input (-)', { timeout: 120_000 }, () => {
  it('start --input @file takes an input too large for an argument list (300 KB)', async () => {
    const blob = 'x'.repeat(300_000);
    const file = join(folder, 'big.json');
    writeFileSync(file, JSON.stringify({ blob }));
    const started = await runDurableCli(['start', 'measure', '--input', `@${file}`, '--json', '--url', url]);
    expect(started.code).toBe(0);
    const { runId } = JSON.parse(started.stdout) as { runId: string };
    await backend.waitForStatus(runId, 'SUCCEEDED');
    expect((await backend.engine.getRun(runId))?.result).toBe('{"length":300000}');
  });

  it('callback succeed --result - reads the result from standard input (the real binary)', async () => {
    const run = JSON.parse((await runDurableCli(['start', 'approve', '--json', '--url', url])).stdout) as {
      runId: string;
    };
    const callbackId = await backend.waitForCallback(run.runId);
    const done = await spawnDurableCli(
      ['callback', 'succeed', callbackId, '--result', '-', '--url', url],
      {},
      undefined,
      '{"by":"stdin"}\n',
    );
    expect(done).toMatchObject({ code: 0, stdout: `Callback ${callbackId} succeeded.\n` });
    await backend.waitForStatus(run.runId, 'SUCCEEDED');
    expect((await backend.engine.getRun(run.runId))?.result).toBe('{"approved":{"by":"stdin"}}');
  });

  it('a file that cannot be read or holds no JSON is a usage error naming the option and the file (exit 2)', async () => {
    const missing = join(folder, 'missing.json');
    const unread = await runDurableCli(['start', 'measure', '--input', `@${missing}`, '--url', url]);
    expect(unread.code).toBe(2);
    expect(unread.stderr).toContain(`--input: cannot read ${missing}`);

    const bad = join(folder, 'bad.json');
    writeFileSync(bad, '{not json');
    const invalid = await runDurableCli(['start', 'measure', '--input', `@${bad}`, '--url', url]);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain(`--input: not valid JSON (from ${bad})`);

    const empty = await runDurableCli(['skip', 'r1', 'op1', '--result', '@', '--url', url]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('--result: @ must be followed by a file path');
  });
});
