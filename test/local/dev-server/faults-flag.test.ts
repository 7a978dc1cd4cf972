/**
 * The dev server behind its fault flag: `durable dev --faults <seed>` (and `DURABLE_FAULTS` for
 * `npm start`) injects seeded faults, and a run started through the control API still finishes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevServer } from '@durable-lambda/local';
import { withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../../packages/cli/src/args';
import { devOptions } from '../../../packages/cli/src/dev';

const dir = mkdtempSync(join(tmpdir(), 'durable-dev-faults-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('dev server with --faults', () => {
  it('parses --faults as a seed and refuses anything else, naming the flag', () => {
    expect(devOptions(parseCommandLine(['dev', 'app.ts', '--faults', '42']))).toMatchObject({ faults: { seed: 42 } });
    expect(() => devOptions(parseCommandLine(['dev', '--faults', 'lots']))).toThrow(/--faults/);
  });

  it('finishes a run started through the control API while faults are injected', async () => {
    const bodies: string[] = [];
    const server = await startDevServer({
      port: 0,
      db: join(dir, 'dev.sqlite'),
      log: () => {},
      functions: {
        steps: withDurableExecution(
          async (_e: unknown, ctx) => {
            for (let i = 0; i < 4; i++)
              await ctx.step(`s${i}`, async ({ idempotencyKey }) => bodies.push(idempotencyKey));
            return 'done';
          },
          { logSink: () => {} },
        ),
      },
      // Every Scheduler call throttled (the faults are keyed by run, so only a certainty is certain):
      // the run goes on; kills and lost responses, which wait for a lease to lapse, are proven on
      // LocalRuntime itself.
      faults: { seed: 7, defaultProbability: 0, throttleWaker: 1 },
    });
    try {
      const res = await fetch(`${server.url}/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'start-1' },
        body: JSON.stringify({ function: 'steps', input: {} }),
      });
      expect(res.status).toBe(201);
      const { runId } = (await res.json()) as { runId: string };
      const run = await server.runtime.waitForRun(runId, { timeoutMs: 120_000 });
      expect(run.status).toBe('SUCCEEDED');
      expect(new Set(bodies).size).toBe(bodies.length);
      const injected = Object.values(server.runtime.faultPlan?.counts() ?? {}).reduce((a, b) => a + b, 0);
      expect(injected).toBeGreaterThan(0);
    } finally {
      await server.stop();
    }
  }, 150_000);
});
