/**
 * What a DurableFunction deploys, bundled for real (local esbuild, `cdk synth` in-process) at its
 * defaults: an ES module (`index.mjs`) built from the `module` builds of its dependencies,
 * whitespace and syntax minified with every identifier kept, none of the AWS SDK in it: the light
 * client talks to DynamoDB (the SDK's DynamoDB client is bundled only when the function's
 * environment asks for it, `DURABLE_DYNAMODB_CLIENT: 'sdk'`), and the Scheduler, Lambda and SQS
 * clients are modules of their own beside it, loaded at their first call; nothing of our packages a
 * function never runs. The bundle then answers in a fresh Node process as Lambda loads it. How long its import
 * takes is a figure of the bench (`bundle` section), not asserted here.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DurableFunction, ESM_REQUIRE_BANNER } from '@durable-lambda/cdk';
import { Stack } from 'aws-cdk-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { withFastNpx } from './fast-npx';
import { newApp, REPO_ROOT, registersItsBackend } from './support';

interface Metafile {
  inputs: Record<string, { imports: Array<{ path: string; kind: string; external?: boolean }> }>;
  outputs: Record<
    string,
    { inputs: Record<string, { bytesInOutput: number }>; imports: Array<{ path: string; kind: string }> }
  >;
}

/** The inputs reached from the bundle's entry and injected files by static imports only. */
function staticallyReached(meta: Metafile, roots: string[]): Set<string> {
  const seen = new Set<string>();
  const queue = [...roots];
  while (queue.length > 0) {
    const path = queue.pop() as string;
    if (seen.has(path) || !meta.inputs[path]) continue;
    seen.add(path);
    for (const edge of meta.inputs[path].imports) {
      if (edge.kind !== 'dynamic-import' && !edge.external) queue.push(edge.path);
    }
  }
  return seen;
}

/** The AWS SDK's DynamoDB client packages. */
const DYNAMODB_SDK = /node_modules\/@aws-sdk\/(client-dynamodb|lib-dynamodb|util-dynamodb)\//;

describe('the deployed bundle of a DurableFunction, at its defaults', () => {
  const assets: Record<'function' | 'reconciler', string> = { function: '', reconciler: '' };

  beforeAll(() => {
    const app = newApp({ bundle: true });
    const stack = new Stack(app, 'Bundle');
    withFastNpx(
      () =>
        new DurableFunction(stack, 'Checkout', {
          entry: join(REPO_ROOT, 'examples', 'checkout', 'handler.ts'),
          projectRoot: REPO_ROOT,
          depsLockFilePath: join(REPO_ROOT, 'package-lock.json'),
          // Our packages from their sources (the root tsconfig's paths), and esbuild's metafile to
          // read what went in; every other bundling option is the construct's default.
          bundling: { tsconfig: join(REPO_ROOT, 'tsconfig.json'), metafile: true },
        }),
    );
    const outdir = app.synth().directory;
    for (const name of readdirSync(outdir).filter((n) => n.startsWith('asset.'))) {
      const dir = join(outdir, name);
      if (registersItsBackend(dir)) assets.function = dir;
      else assets.reconciler = dir;
    }
  }, 240_000);

  const meta = (asset: string) => JSON.parse(readFileSync(join(asset, 'index.meta.json'), 'utf8')) as Metafile;
  const output = (m: Metafile) => Object.values(m.outputs)[0] as Metafile['outputs'][string];
  /** The inputs that put bytes into the bundle. */
  const bundled = (m: Metafile) =>
    Object.entries(output(m).inputs)
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([path]) => path);

  it('is an ES module, index.mjs, minified with its names kept, that defines require for the CommonJS code in it', () => {
    for (const asset of [assets.function, assets.reconciler]) {
      expect(existsSync(join(asset, 'index.js')), asset).toBe(false);
      const code = readFileSync(join(asset, 'index.mjs'), 'utf8');
      // (Booleans: a failed match would print the whole bundle.)
      expect(code.startsWith(ESM_REQUIRE_BANNER), asset).toBe(true);
      expect(/export\s*\{[^}]*\bhandler\b[^}]*\}/.test(code), `${asset}: export { handler }`).toBe(true);
      // Not esbuild's CommonJS output, whose exports are `module.exports = __toCommonJS(...)`.
      expect(/\bmodule\.exports\s*=\s*__toCommonJS\(/.test(code), `${asset}: CommonJS exports`).toBe(false);
      // Minified: few lines, however large.
      expect(code.split('\n').length).toBeLessThan(code.length / 1_000);
    }
    // Identifiers are not renamed: errors keep their class's name (`new.target.name`), stack traces
    // their functions'.
    const code = readFileSync(join(assets.function, 'index.mjs'), 'utf8');
    expect(/\bnew StepError\(/.test(code), 'new StepError(').toBe(true);
    expect(/\bfunction withDurableExecution\(/.test(code), 'function withDurableExecution(').toBe(true);
  });

  it('holds none of the AWS SDK, and imports nothing but Node', () => {
    for (const asset of [assets.function, assets.reconciler]) {
      const m = meta(asset);
      expect(bundled(m).filter((path) => /node_modules\/@(aws-sdk|smithy)\//.test(path))).toEqual([]);
      expect(output(m).imports.filter((i) => !i.path.startsWith('node:'))).toEqual([]);
    }
  });

  it('has the Scheduler, Lambda and SQS clients beside it, each a module of its own, loaded at its first call', () => {
    const clients = {
      'client-scheduler': ['CreateScheduleCommand', 'DeleteScheduleCommand', 'SchedulerClient'],
      'client-lambda': ['InvokeCommand', 'LambdaClient'],
      'client-sqs': ['SQSClient', 'SendMessageCommand'],
    };
    for (const asset of [assets.function, assets.reconciler]) {
      // Resolved from the bundle's folder, as the backend's import() in index.mjs resolves it.
      const script = `const names = {};
        for (const client of ${JSON.stringify(Object.keys(clients))}) names[client] = Object.keys(await import('@aws-sdk/' + client)).sort();
        console.log(JSON.stringify(names));`;
      const result = spawnSync(process.execPath, ['--input-type=module', '--no-warnings', '-e', script], {
        cwd: asset,
        env: { PATH: process.env.PATH ?? '' },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(JSON.parse(result.stdout.trim() || '{}'), result.stderr).toEqual(clients);
    }
  });

  it("leaves the AWS SDK's DynamoDB client out of the function and the reconciler: the light client talks to DynamoDB", () => {
    for (const asset of [assets.function, assets.reconciler]) {
      const inputs = bundled(meta(asset));
      expect(inputs.filter((path) => DYNAMODB_SDK.test(path))).toEqual([]);
      expect(inputs).toContain('packages/aws/src/light-dynamodb/client.ts');
      // Nor its classes in the code: nothing of it is parsed at a cold start.
      const code = readFileSync(join(asset, 'index.mjs'), 'utf8');
      expect(/\bclass DynamoDB(Document)?Client\b/.test(code), asset).toBe(false);
    }
  });

  it('leaves out what a function never runs: the reconciler handler, signed fetch, the AWS-SDK host, dev tooling', () => {
    const ours = bundled(meta(assets.function)).filter((path) => path.startsWith('packages/'));
    for (const unused of [
      'packages/aws/src/reconciler-handler.ts',
      'packages/aws/src/signed-fetch.ts',
      'packages/aws/src/aws-sdk-host.ts',
    ]) {
      expect(ours).not.toContain(unused);
    }
    expect(ours.filter((path) => /packages\/(local|api|otel|cdk\/src\/(?!runtime\/))/.test(path))).toEqual([]);
  });

  it('answers in a fresh Node process, loaded as Lambda loads an ES module handler', () => {
    const script = `
      const { handler } = await import(${JSON.stringify(pathToFileURL(join(assets.function, 'index.mjs')).href)});
      await handler({ cart: 'c-1' }, { functionName: 'checkout', awsRequestId: 'r-1', invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:checkout' }).then(
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
    // The production backend, registered by the bundle, names what the construct would have set.
    expect(outcome.error?.name, `${result.stdout}\n${result.stderr}`).toBe('ConfigurationError');
    expect(outcome.error?.message).toMatch(/missing environment variables DURABLE_TABLE_NAME/);
  });
});

describe("the deployed bundle of a DurableFunction whose environment asks for the AWS SDK's DynamoDB client", () => {
  let asset = '';

  beforeAll(() => {
    const app = newApp({ bundle: true });
    const stack = new Stack(app, 'SdkBundle');
    withFastNpx(
      () =>
        new DurableFunction(stack, 'Checkout', {
          entry: join(REPO_ROOT, 'examples', 'checkout', 'handler.ts'),
          projectRoot: REPO_ROOT,
          depsLockFilePath: join(REPO_ROOT, 'package-lock.json'),
          environment: { DURABLE_DYNAMODB_CLIENT: 'sdk' },
          bundling: { tsconfig: join(REPO_ROOT, 'tsconfig.json'), metafile: true },
        }),
    );
    const outdir = app.synth().directory;
    for (const name of readdirSync(outdir).filter((n) => n.startsWith('asset.'))) {
      const dir = join(outdir, name);
      if (registersItsBackend(dir)) asset = dir;
    }
  }, 240_000);

  it('bundles it, reached only through import(): loaded at the first request', () => {
    const m = JSON.parse(readFileSync(join(asset, 'index.meta.json'), 'utf8')) as Metafile;
    const inputs = Object.entries((Object.values(m.outputs)[0] as Metafile['outputs'][string]).inputs)
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([path]) => path);
    for (const name of ['client-dynamodb', 'lib-dynamodb']) {
      expect(inputs.some((path) => path.includes(`@aws-sdk/${name}/dist-es/`))).toBe(true);
    }
    const roots = Object.keys(m.inputs).filter((p) => /examples\/checkout\/handler\.ts$|backend-inject\.ts$/.test(p));
    expect([...staticallyReached(m, roots)].filter((path) => DYNAMODB_SDK.test(path))).toEqual([]);
  });
});
