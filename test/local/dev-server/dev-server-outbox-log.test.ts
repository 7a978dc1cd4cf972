/**
 * The dev server delivers the events steps emit (`context.emit`, issue 27) in process and logs
 * each delivery with its stable id and where it would go.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, describe, expect, it } from 'vitest';
import { startDevServer } from '../../../packages/local/src/dev-server/dev-server';

const dir = mkdtempSync(join(tmpdir(), 'durable-dev-outbox-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the dev server and the outbox', () => {
  it('logs each event a step emitted as it delivers it', async () => {
    const shop = withDurableExecution(
      async (_e: unknown, ctx) =>
        ctx.step('place', (step) => {
          step.emit({ source: 'shop', detailType: 'OrderPlaced', detail: { order: 'o-1' } });
          step.emit({ queueUrl: 'https://sqs.local/1/mail', body: 'o-1' });
          return 'o-1';
        }),
      { logSink: () => {} },
    );
    const lines: string[] = [];
    const server = await startDevServer({
      functions: { shop },
      port: 0,
      db: join(dir, 'dev.sqlite'),
      log: (l) => lines.push(l),
    });
    try {
      const { runId } = await server.runtime.startRun('shop', {});
      for (let i = 0; i < 300 && lines.filter((l) => l.startsWith('event ')).length < 2; i++) await sleep(10);
      expect(lines.filter((l) => l.startsWith('event '))).toEqual([
        `event ${runId}:1:0 to EventBridge: shop OrderPlaced`,
        `event ${runId}:1:1 to SQS https://sqs.local/1/mail`,
      ]);
    } finally {
      await server.stop();
    }
  });
});
