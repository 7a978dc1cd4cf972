/**
 * `durable dev <entry.ts>` with an entry written for AWS's SDK (only `@aws/durable-execution-sdk-js`
 * imported): the command serves its handlers, and a run with a wait and a callback completes
 * through the control API.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { OperationListWire, RunWire } from '@durable-lambda/api';
import { afterAll, describe, expect, it } from 'vitest';
import { getJson, killAll, postJson, root, spawnNode, until } from './process';

const dir = mkdtempSync(join(tmpdir(), 'durable-cli-dev-aws-'));
mkdirSync(join(root, '.artifacts'), { recursive: true });
const entries = mkdtempSync(join(root, '.artifacts', 'cli-dev-aws-'));
afterAll(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
  rmSync(entries, { recursive: true, force: true });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** AWS's SDK's ESM file where the repository installs it (bench/node_modules). */
function awsSdkFile(): string {
  const pkgDir = join(root, 'bench', 'node_modules', '@aws', 'durable-execution-sdk-js');
  const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { module?: string };
  return join(pkgDir, pkg.module ?? 'dist/index.mjs');
}

describe('durable dev with an entry written for AWS SDK', () => {
  it('serves its AWS-wrapped handlers and runs one to its end', async () => {
    const entry = join(entries, 'approvals.ts');
    writeFileSync(
      entry,
      `import { withDurableExecution } from ${JSON.stringify(pathToFileURL(awsSdkFile()).href)};

export const approve = withDurableExecution(async (event: { doc: string }, ctx) => {
  await ctx.wait('settle', { seconds: 1 });
  const answer = await ctx.waitForCallback<string>('sign-off', async () => {});
  return { doc: event.doc, answer: JSON.parse(answer) };
});
`,
    );
    const port = await freePort();
    const child = spawnNode(
      ['packages/cli/bin/durable.mjs', 'dev', entry, '--port', String(port), '--db', join(dir, 'dev.sqlite')],
      { DURABLE_CLI_SOURCE: '1' },
    );
    const url = `http://127.0.0.1:${port}`;
    await child.waitFor(/Press Ctrl-C to stop/, 90_000);
    const { body: listed } = await getJson<{ functions: Array<{ name: string }> }>(`${url}/v1/functions`);
    expect(listed.functions.map((f) => f.name)).toEqual(['approve']);

    const started = await postJson<RunWire>(`${url}/v1/runs`, { function: 'approve', input: { doc: 'd-1' } });
    expect(started.status).toBe(201);
    const runId = started.body.runId;
    const callbackId = await until(async () => {
      const { body } = await getJson<OperationListWire>(`${url}/v1/runs/${runId}/operations`);
      const context = body.operations.find((op) => op.name === 'sign-off');
      return body.operations.find((op) => op.type === 'CALLBACK' && op.parentId === context?.id)?.callbackId;
    }, 60_000);
    expect((await postJson(`${url}/v1/callbacks/${callbackId}/succeed`, { result: 'yes' })).status).toBe(200);
    const done = await until(async () => {
      const { body } = await getJson<RunWire>(`${url}/v1/runs/${runId}`);
      return body.status === 'RUNNING' ? undefined : body;
    }, 60_000);
    expect([done.status, done.result]).toEqual(['SUCCEEDED', { doc: 'd-1', answer: 'yes' }]);

    child.process.kill('SIGTERM');
    expect(await child.exited).toEqual({ code: 0, signal: null });
  }, 180_000);
});
