/**
 * The dev server runs handlers wrapped by AWS's own `withDurableExecution` (from
 * `@aws/durable-execution-sdk-js`, unchanged): found in an entry module next to its helpers and
 * samples, given as `functions`, or made `selfHosted` for Lambda. Runs go to their end through
 * the control API: a long wait ended by "wake now", a callback completed over HTTP.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DurableClient, type RunWire } from '@durable-lambda/api';
import { type DevServer, startDevServer } from '@durable-lambda/local';
import { withDurableExecution as ours } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAwsDurableHandler, isDurableHandler } from '../../../packages/local/src/dev-server/entries';
import { type AwsDurableSdk, importAwsSdk } from '../../support/aws-sdk';

const dir = mkdtempSync(join(tmpdir(), 'durable-dev-aws-'));
let aws: AwsDurableSdk;
let server: DevServer;
let client: DurableClient;
const lines: string[] = [];

/** The ESM file of AWS's SDK where the repository installs it (bench/node_modules), as test/support/aws-sdk.ts loads it. */
function awsSdkEntryFile(): string {
  const pkgDir = join(
    dirname(fileURLToPath(import.meta.url)),
    '../../../bench/node_modules/@aws/durable-execution-sdk-js',
  );
  const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as {
    exports?: { '.'?: { import?: string } };
    module?: string;
  };
  return join(pkgDir, pkg.exports?.['.']?.import ?? pkg.module ?? 'dist/index.mjs');
}

/** An entry module as a team on AWS's SDK writes it (AWS's SDK imported by its file, as installed). */
function writeEntry(): string {
  const file = join(dir, 'aws-entry.ts');
  writeFileSync(
    file,
    `import { withDurableExecution } from ${JSON.stringify(pathToFileURL(awsSdkEntryFile()).href)};
import { selfHosted } from '@durable-lambda/aws';

export const review = withDurableExecution(async (event: { item: string }, ctx) => {
  const checked = await ctx.step('check', async () => event.item.toUpperCase());
  await ctx.wait('cool-off', { hours: 1 });
  const verdict = await ctx.waitForCallback<string>('verdict', async () => {});
  return { checked, verdict: JSON.parse(verdict) };
});

// The same export deployed self-hosted on Lambda runs here too.
export const echo = selfHosted(withDurableExecution(async (event: unknown, ctx) => ctx.step('echo', async () => event)));

export const formatPrice = (cents: number) => (cents / 100).toFixed(2);

export const samples = { review: [{ name: 'one book', input: { item: 'book' } }] };
`,
  );
  return file;
}

async function ended(runId: string): Promise<RunWire> {
  const until = Date.now() + 60_000;
  for (;;) {
    const run = await client.getRun(runId);
    if (run.status !== 'RUNNING') return run;
    if (Date.now() > until) throw new Error(`run ${runId} is still RUNNING`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function eventually<T>(probe: () => Promise<T | undefined>): Promise<T> {
  const until = Date.now() + 60_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  aws = await importAwsSdk();
  const bare = aws.withDurableExecution(async (event: { n: number }, ctx) => {
    await ctx.wait({ seconds: 1 });
    return ctx.step('triple', async () => event.n * 3);
  });
  server = await startDevServer({
    functions: { bare },
    entries: [writeEntry()],
    port: 0,
    db: join(dir, 'dev.sqlite'),
    log: (line) => lines.push(line),
  });
  client = new DurableClient({ baseUrl: server.url });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('the dev server with AWS-wrapped handlers', () => {
  it('serves the AWS-wrapped exports of an entry and the given ones, with their samples, not the helpers', async () => {
    const { functions } = (await (await fetch(`${server.url}/v1/functions`)).json()) as {
      functions: Array<{ name: string; samples?: unknown[] }>;
    };
    expect(functions.map((f) => f.name).sort()).toEqual(['bare', 'echo', 'review']);
    expect(functions.find((f) => f.name === 'review')?.samples).toEqual([
      { name: 'one book', input: { item: 'book' } },
    ]);
  });

  it('runs a long wait ended by "wake now" and a callback completed through the API', async () => {
    const { run } = await client.startRun({ function: 'review', input: { item: 'book' } });
    const wait = await eventually(async () => {
      const { operations } = await client.getOperations(run.runId);
      return operations.find((op) => op.name === 'cool-off' && op.status === 'STARTED');
    });
    expect(wait.type).toBe('WAIT');
    const woken = await client.wakeRun(run.runId);
    expect(woken.woken.map((w) => w.name)).toEqual(['cool-off']);
    const callbackId = await eventually(async () => {
      const { operations } = await client.getOperations(run.runId);
      // AWS's waitForCallback: a context named as the call, around an unnamed callback.
      const context = operations.find((op) => op.name === 'verdict');
      return operations.find((op) => op.type === 'CALLBACK' && op.parentId === context?.id && op.status === 'STARTED')
        ?.callbackId;
    });
    await client.succeedCallback(callbackId, 'approved');
    const done = await ended(run.runId);
    expect([done.status, done.result]).toEqual(['SUCCEEDED', { checked: 'BOOK', verdict: 'approved' }]);
  }, 90_000);

  it('runs a selfHosted export and a given AWS-wrapped handler to their end', async () => {
    const echo = await client.startRun({ function: 'echo', input: { hello: 'world' } });
    const bare = await client.startRun({ function: 'bare', input: { n: 14 } });
    const [a, b] = await Promise.all([ended(echo.run.runId), ended(bare.run.runId)]);
    expect([a.status, a.result]).toEqual(['SUCCEEDED', { hello: 'world' }]);
    expect([b.status, b.result]).toEqual(['SUCCEEDED', 42]);
    expect(lines.filter((line) => line.startsWith('error'))).toEqual([]);
  });

  it('tells AWS-wrapped handlers from ours and from plain functions', () => {
    expect(isAwsDurableHandler(aws.withDurableExecution(async () => 1))).toBe(true);
    expect(isAwsDurableHandler(ours(async () => 1))).toBe(false);
    expect(isDurableHandler(ours(async () => 1))).toBe(true);
    expect(isDurableHandler(async (event: unknown) => event)).toBe(false);
  });

  it('refuses a given function that is no durable handler, naming it', async () => {
    await expect(
      startDevServer({ functions: { plain: async () => 1 } as never, port: 0, db: ':memory:', log: () => {} }),
    ).rejects.toThrow(/functions\.plain: expected a handler wrapped with withDurableExecution/);
  });
});
