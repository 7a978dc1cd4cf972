/**
 * The dev server the "recovery" section kills (recovery-figures.ts), in a process of its own:
 *   recovery-child.ts <db file>
 * It serves `flow`: two 400 ms steps, a 2 s durable wait (slept in-process, the SDK's default for
 * waits under 5 s), a third 400 ms step. A step attempt lost to the kill is retried at once (retry
 * `initialMs: 0`): the default policy would wait its backoff first (full jitter up to 5 s), time that
 * is the policy's, not the recovery's. It prints the dev server's URL line, then every 100 ms
 * `inflight <n>`: the step bodies running. SIGTERM stops it; the bench kills it with SIGKILL.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { startDevServer } from '@durable-lambda/local';
import { withDurableExecution } from '@durable-lambda/sdk';

const [db = 'recovery.sqlite'] = process.argv.slice(2);

let inflight = 0;
const body = async () => {
  inflight++;
  try {
    await sleep(400);
  } finally {
    inflight--;
  }
  return 'ok';
};

const retry = { retry: { initialMs: 0 } };
const flow = withDurableExecution(
  async (_event, ctx) => {
    await ctx.step('one', body, retry);
    await ctx.step('two', body, retry);
    await ctx.wait('pause', { seconds: 2 });
    await ctx.step('three', body, retry);
    return 'done';
  },
  { logSink: () => {} },
);

const server = await startDevServer({
  functions: { flow },
  port: 0,
  db,
  banner: 'short',
  log: (line) => void process.stdout.write(`${line}\n`),
});
setInterval(() => void process.stdout.write(`inflight ${inflight}\n`), 100);
process.on('SIGTERM', () => {
  void server.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
