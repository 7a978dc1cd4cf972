/**
 * `durable signal <runId> <name> [json]` and `durable signals <runId>` (issue 27) against a real
 * API server: the signal reaches the run waiting for it, which ends with its payload; the list
 * shows it delivered; `--idempotency-key` sends once; an ended run's refusal is reported with its
 * code and a non-zero exit.
 */
import { createControlApi, toNodeListener } from '@durable-lambda/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveBackend, listen } from '../api/support';
import { type CliExit, runDurableCli } from '../support/durable-cli';

const backend = new LiveBackend();
backend.register('approve', async (_e, ctx) => {
  const decision = await ctx.waitForSignal<{ ok: boolean }>('decision');
  return decision.ok ? 'approved' : 'rejected';
});

let url = '';
let close: () => Promise<void> = async () => {};
beforeAll(async () => {
  const server = await listen(
    toNodeListener(createControlApi({ engine: backend.engine, functions: [...backend.handlers.keys()] })),
  );
  url = server.url;
  close = server.close;
});
afterAll(() => close());

function durable(args: string[]): Promise<CliExit> {
  return runDurableCli([...args, '--url', url]);
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('timed out');
}

describe('signals through the durable CLI', { timeout: 60_000 }, () => {
  it('signal sends the payload to the waiting run; signals lists it delivered; a repeat with its key sends once', async () => {
    const started = await fetch(`${url}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ function: 'approve' }),
    });
    const { runId } = (await started.json()) as { runId: string };
    await until(
      () => backend.engine.runSignals(runId),
      (view) => view.waiting.length === 1,
    );
    const waiting = await durable(['signals', runId]);
    expect(waiting.stdout).toContain('waiting: operation 1 for decision');
    const sent = await durable(['signal', runId, 'decision', '{"ok":true}', '--idempotency-key', 'ui-1']);
    expect(sent.code).toBe(0);
    expect(sent.stdout).toContain(`Sent signal "decision" (#1) to run ${runId}.`);
    const again = await durable(['signal', runId, 'decision', '{"ok":true}', '--idempotency-key', 'ui-1', '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ seq: 1, name: 'decision' });
    const run = await until(
      () => backend.engine.getRun(runId),
      (r) => r?.status !== 'RUNNING',
    );
    expect(run?.result).toBe('"approved"');
    const listed = await durable(['signals', runId, '--json']);
    expect(JSON.parse(listed.stdout).signals).toEqual([
      expect.objectContaining({ seq: 1, name: 'decision', payload: { ok: true }, state: 'delivered' }),
    ]);
    const late = await durable(['signal', runId, 'decision']);
    expect(late.code).not.toBe(0);
    expect(late.stderr).toContain('run_ended');
    const bad = await durable(['signal', runId]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('"signal" takes <runId> <name> [json]');
  });
});
