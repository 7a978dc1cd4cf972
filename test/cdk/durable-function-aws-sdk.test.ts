/**
 * `DurableFunction` with `sdk: 'aws'`: a handler written with AWS's own SDK, unchanged, deployed
 * self-hosted. The construct bundles a generated entry that wraps the handler export with
 * `selfHosted`; the bundle is built for real (local esbuild, in a throwaway project that installs
 * AWS's SDK as a user would) and its handler run: in a fresh Node process, and in this process on
 * DynamoDB Local with Lambda and Scheduler faked, to the end of a run with a retry and a wait.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDurableTable, DynamoDbStore } from '@durable-lambda/aws';
import { DURABLE_SDKS, DurableFunction } from '@durable-lambda/cdk';
import { runIdFor } from '@durable-lambda/engine';
import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awsSdkEntry, GENERATED_ENTRY_BANNER } from '../../packages/cdk/src/durable-function-code';
import { ACCOUNT, FakeCloud, REGION } from '../compat/aws-sdk-on-lambda.cloud';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../support/dynamodb-local';
import { withFastNpx } from './fast-npx';
import { newApp, REPO_ROOT, registersItsBackend, resources } from './support';

const AWS_SDK_DIR = join(REPO_ROOT, 'bench', 'node_modules', '@aws', 'durable-execution-sdk-js');

/**
 * Imports the bundle in `asset` with Node's own loader, as Lambda loads it: from a copy under a
 * `node_modules` folder, which the test runner leaves to Node (it would otherwise transform the
 * bundle and resolve its imports through its aliases to our sources).
 */
async function importBundle(asset: string): Promise<unknown> {
  const copy = join(REPO_ROOT, 'node_modules', '.cache', 'durable-lambda-tests', `bundle-${process.pid}-${Date.now()}`);
  cpSync(asset, copy, { recursive: true });
  projects.push(copy);
  return import(pathToFileURL(join(copy, 'index.mjs')).href);
}

const projects: string[] = [];
afterAll(() => {
  for (const root of projects) rmSync(root, { recursive: true, force: true });
});

/**
 * A user's project: a handler file importing AWS's SDK (linked from bench/node_modules, where the
 * repository installs it), a lock file, and nothing of durable-lambda.
 */
function userProject(): { root: string; entry: string } {
  // Inside the repository (whose lock file makes it the project root), as a user's package
  // inside a workspace: the constructs' own runtime files must be under the project root too.
  const parent = join(REPO_ROOT, 'node_modules', '.cache', 'durable-lambda-tests');
  mkdirSync(parent, { recursive: true });
  const root = mkdtempSync(join(parent, 'aws-sdk-user-'));
  projects.push(root);
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'aws-sdk-user', private: true }));
  mkdirSync(join(root, 'node_modules', '@aws'), { recursive: true });
  symlinkSync(AWS_SDK_DIR, join(root, 'node_modules', '@aws', 'durable-execution-sdk-js'), 'dir');
  const entry = join(root, 'src', 'orders.ts');
  mkdirSync(join(root, 'src'));
  writeFileSync(
    entry,
    `import { withDurableExecution } from '@aws/durable-execution-sdk-js';

let attempts = 0;
export const main = withDurableExecution(async (event: { order: string }, ctx) => {
  const charged = await ctx.step('charge', async () => {
    attempts += 1;
    if (attempts === 1) throw new Error('card network busy');
    return 'charged ' + event.order;
  }, { retryStrategy: (_e, attempt) => ({ shouldRetry: attempt < 3, delay: { seconds: 1 } }) });
  await ctx.wait('cool-off', { seconds: 3 });
  return { charged, attempts };
});
`,
  );
  return { root, entry };
}

describe("DurableFunction sdk: 'aws' (synthesized, bundling skipped)", () => {
  it('runs a generated entry that self-hosts the handler export, with the production environment', () => {
    const { root, entry } = userProject();
    const stack = new Stack(newApp(), 'AwsSdk');
    new DurableFunction(stack, 'Orders', { entry, handler: 'main', sdk: 'aws' });
    const template = Template.fromStack(stack);
    const fn = Object.values(resources(template)).find(
      (r) => r.Type === 'AWS::Lambda::Function' && r.Properties?.Environment?.Variables?.DURABLE_SCHEDULE_GROUP,
    );
    expect(fn?.Properties?.Handler).toBe('index.handler');
    expect(Object.keys(fn?.Properties?.Environment?.Variables ?? {})).toEqual(
      expect.arrayContaining(['DURABLE_TABLE_NAME', 'DURABLE_SCHEDULE_GROUP', 'DURABLE_SCHEDULER_ROLE_ARN']),
    );

    const generated = awsSdkEntry('AwsSdk/Orders', entry, 'main');
    expect(generated.startsWith(join(root, 'node_modules', '.cache'))).toBe(true);
    const source = readFileSync(generated, 'utf8');
    expect(source.split('\n')[0]).toBe(GENERATED_ENTRY_BANNER);
    expect(source).toContain(`import * as mod from ${JSON.stringify(entry)};`);
    expect(source).toContain('hostAwsHandler(mod, "main",');
    // Content-named: synthesizing again writes the same file.
    expect(awsSdkEntry('AwsSdk/Orders', entry, 'main')).toBe(generated);
    expect(awsSdkEntry('AwsSdk/Orders', entry, 'other')).not.toBe(generated);
  }, 120_000);

  it('leaves a durable-lambda handler as it is by default', () => {
    const stack = new Stack(newApp(), 'Ours');
    new DurableFunction(stack, 'Reminder', { entry: join(REPO_ROOT, 'examples', 'reminder', 'handler.ts') });
    const fn = Object.values(resources(Template.fromStack(stack))).find(
      (r) => r.Type === 'AWS::Lambda::Function' && r.Properties?.Environment?.Variables?.DURABLE_SCHEDULE_GROUP,
    );
    expect(fn?.Properties?.Handler).toBe('index.handler');
    expect(DURABLE_SDKS).toEqual(['durable-lambda', 'aws']);
  }, 120_000);

  it('refuses an unknown sdk and an export name that is not one, naming the field', () => {
    const { root, entry } = userProject();
    const stack = new Stack(newApp(), 'Bad');
    expect(() => new DurableFunction(stack, 'A', { entry, sdk: 'lambda' as never })).toThrow(
      /Bad\/A: sdk must be one of durable-lambda, aws, got "lambda"/,
    );
    expect(() => new DurableFunction(stack, 'B', { entry, handler: 'not-a-name', sdk: 'aws' })).toThrow(
      /Bad\/B: handler must be the name of an export/,
    );
    expect(() => new DurableFunction(stack, 'C', { entry: join(root, 'missing.ts'), sdk: 'aws' })).toThrow(
      /Bad\/C: entry .*missing\.ts is not a file/,
    );
  });
});

describe("DurableFunction sdk: 'aws' (bundled for real)", () => {
  let asset: string;
  let client: DynamoDBDocumentClient;
  const cloud = new FakeCloud();
  const saved: Record<string, string | undefined> = {};

  beforeAll(async () => {
    const { entry } = userProject();
    const app = newApp({ bundle: true });
    const stack = new Stack(app, 'Bundled');
    // Bundling runs as the constructs are made: its `npx --no-install esbuild` (three functions: ours
    // and the table's two service functions) runs the repository's esbuild without npx's start-up.
    withFastNpx(
      () => new DurableFunction(stack, 'Orders', { entry, handler: 'main', sdk: 'aws', functionName: 'orders' }),
    );
    const outdir = app.synth().directory;
    const assets = readdirSync(outdir).filter((name) => name.startsWith('asset.'));
    const durable = assets.filter((name) => registersItsBackend(join(outdir, name)));
    expect(durable).toHaveLength(1);
    asset = join(outdir, durable[0] as string);
  }, 180_000);

  afterAll(async () => {
    await cloud.stop().catch(() => {});
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    client?.destroy();
  }, 60_000);

  it("bundles AWS's SDK from the user's install and our host around the export", () => {
    const code = readFileSync(join(asset, 'index.mjs'), 'utf8');
    expect(code).toContain('validateDurableExecutionEvent');
    expect(code).toContain('hostAwsHandler');
    expect(code).toContain('durable-lambda.aws-sdk-handler');
  });

  it('answers as our host in a fresh process: the production backend it loads names what is missing', () => {
    const script = `
      const { handler } = await import(${JSON.stringify(pathToFileURL(join(asset, 'index.mjs')).href)});
      await handler({ order: 'o-1' }, { functionName: 'orders', awsRequestId: 'req-1', invokedFunctionArn: 'arn:aws:lambda:${REGION}:${ACCOUNT}:function:orders' }).then(
        (value) => console.log(JSON.stringify({ value })),
        (error) => console.log(JSON.stringify({ error: { name: error.name, message: error.message } })),
      );`;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: tmpdir(),
      env: { PATH: process.env.PATH ?? '' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    const outcome = JSON.parse(result.stdout.trim().split('\n').pop() ?? '{}') as {
      error?: { name: string; message: string };
    };
    // AWS's SDK alone would refuse the plain event; our host opens it on the production backend.
    expect(outcome.error?.name, `${result.stdout}\n${result.stderr}`).toBe('ConfigurationError');
    expect(outcome.error?.message).toMatch(/missing environment variables DURABLE_TABLE_NAME, DURABLE_SCHEDULE_GROUP/);
  });

  it('runs a whole run on DynamoDB Local, publishing the run metrics the alarms watch', async () => {
    const dynamodb = await dynamoDbLocalEndpoint();
    client = localDocumentClient(dynamodb);
    const tableName = uniqueTableName('aws-sdk-bundle');
    await createDurableTable(client, tableName);
    const fake = await cloud.start();
    const variables: Record<string, string> = {
      AWS_ENDPOINT_URL_DYNAMODB: dynamodb,
      AWS_ENDPOINT_URL_LAMBDA: fake,
      AWS_ENDPOINT_URL_SCHEDULER: fake,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_REGION: REGION,
      DURABLE_TABLE_NAME: tableName,
      DURABLE_SCHEDULE_GROUP: 'durable-orders',
      DURABLE_SCHEDULER_ROLE_ARN: `arn:aws:iam::${ACCOUNT}:role/durable-orders-scheduler`,
      // What the construct sets with `metrics` (or `alarms`): the run metrics are published.
      DURABLE_CUSTOM_METRICS: 'on',
    };
    for (const [name, value] of Object.entries(variables)) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
    const lines: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    // The bundle's run metrics go to stdout as EMF lines: kept here to be read.
    process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
      lines.push(String(chunk));
      return write(chunk, ...rest);
    }) as typeof process.stdout.write;
    try {
      const bundle = (await importBundle(asset)) as {
        handler: (event: unknown, context: unknown) => Promise<unknown>;
      };
      cloud.register('orders', bundle.handler as never);
      const requestId = 'bundle-start-1';
      await cloud.invoke('orders', { order: 'o-9' }, requestId);
      const store = new DynamoDbStore({ client, tableName });
      const runId = runIdFor(requestId);
      const until = Date.now() + 120_000;
      let run = await store.getRun(runId);
      while (run?.status === 'RUNNING' && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        run = await store.getRun(runId);
      }
      await cloud.settled();
      expect([run?.status, JSON.parse(run?.result ?? 'null')]).toEqual([
        'SUCCEEDED',
        { charged: 'charged o-9', attempts: 2 },
      ]);
      const emf = lines.flatMap((line) => line.split('\n')).filter((line) => line.includes('"RunsSucceeded"'));
      expect(emf.map((line) => JSON.parse(line).FunctionName)).toEqual(['orders']);
      expect(cloud.deliveries.some((d) => d.via === 'schedule')).toBe(true);
    } finally {
      process.stdout.write = write;
    }
  }, 180_000);
});
