/**
 * Section "bundle": minified bundle sizes (esbuild, minify, ESM, node22 target, @aws-sdk/* external
 * as on Lambda's Node.js runtimes) of a hello handler on our SDK and on AWS's SDK, and of our full
 * production runtime (the entry a DurableFunction bundles: the handler plus the CDK's injected
 * production backend, packages/cdk/src/runtime/backend-inject.ts); and the cold import time of each
 * in a fresh node process (median of several). Also: the cold import of the bundle a default
 * DurableFunction deploys (synthesized by the CDK, bundled by its local esbuild: ESM, `module` main
 * fields, minified; DynamoDB through the light client, no AWS SDK inside), against the 50 ms
 * target; what the AWS SDK clients it loads at their first call (modules of their own beside that
 * bundle) cost then; and, built the same way, the AWS SDK's DynamoDB document client alone (what
 * the light client spares every cold start; the floor of the deployed row while the store imported
 * it). The hello row's note
 * gives, as a diagnostic, the size of the same bundle with every operation but step and wait stubbed
 * out.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DurableFunction, DYNAMODB_SDK_LEFT_OUT, ESM_MAIN_FIELDS, ESM_REQUIRE_BANNER } from '@durable-lambda/cdk';
import { App, Stack } from 'aws-cdk-lib';
import { build } from 'esbuild';
import { emitRows, figure, medianOf, sizeArg } from './figure-rows';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
/** Fresh processes per cold import (their median); the smoke size has no figures, so one. */
const IMPORTS = { smoke: 1, quick: 5, full: 9 }[sizeArg()];

// esbuild resolves AWS's SDK from bench/node_modules, next to the entry; our bundles sit under the
// root's node_modules, so their external @aws-sdk clients load from one copy of the AWS SDK (the
// one our packages depend on), as on Lambda, not partly from the copy AWS's SDK brought to bench/.
const awsEntries = join(ROOT, 'bench', 'node_modules', '.cache', `figures-bundle-${process.pid}`);
const ourEntries = join(ROOT, 'node_modules', '.cache', `figures-bundle-${process.pid}`);
// The synthesized app: its handler outside node_modules (esbuild applies the root tsconfig's paths
// only there), in a folder git ignores (cdk.out).
const synthesized = join(ROOT, 'bench', 'cdk.out', `figures-bundle-${process.pid}`);
for (const dir of [awsEntries, ourEntries, synthesized]) mkdirSync(dir, { recursive: true });

const HELLO = {
  ours: `import { withDurableExecution } from '@durable-lambda/sdk';
export const handler = withDurableExecution(async (event, ctx) => {
  const greeting = await ctx.step('greet', async () => 'hello ' + event.name);
  return { greeting };
});
`,
  aws: `import { withDurableExecution } from '@aws/durable-execution-sdk-js';
export const handler = withDurableExecution(async (event, ctx) => {
  const greeting = await ctx.step('greet', async () => 'hello ' + event.name);
  return { greeting };
});
`,
};

/**
 * The SDK modules of the operations a hello handler never calls (everything but step and wait).
 * Replaced by stubs only for the "core" diagnostic of the hello row's note: how small a handler
 * that could reach nothing else would be.
 */
const NON_STEP_OPERATIONS =
  /packages\/sdk\/src\/operations\/(batch\/|callback|child-context|invoke|patch|promise-combinators|signal|wait-for-condition)/;
const OPERATION_STUBS = [
  'runMap',
  'runParallel',
  'runCreateCallback',
  'runWaitForCallback',
  'runChildContext',
  'runInvoke',
  'runDeprecatePatch',
  'runPatched',
  'passedPosition',
  'createPromiseCombinators',
  'runWaitForCondition',
  'runWaitForSignal',
];

/** How a bundle is built: the bench's minified ESM with the AWS SDK external (default), or as deployed. */
interface BundleForm {
  /**
   * `deployed`: the construct's esbuild defaults (`bundleDefaults` of @durable-lambda/cdk: ESM,
   * `module` main fields, whitespace and syntax minified with identifiers kept, the AWS SDK bundled in).
   */
  deployed?: boolean;
  /** Stub every operation but step and wait (a diagnostic, never a figure of its own). */
  coreOnly?: boolean;
}

/** Bundles `source` (plus `inject`); returns the output file and its size in bytes. */
async function bundle(
  name: string,
  source: string,
  inject: string[] = [],
  form: BundleForm = {},
): Promise<{ file: string; bytes: number; top: string; code: string }> {
  const entries = source.includes('@aws/durable-execution-sdk-js') ? awsEntries : ourEntries;
  const entry = join(entries, `${name}.mjs`);
  writeFileSync(entry, source);
  const outfile = join(entries, `${name}.out.mjs`);
  const result = await build({
    metafile: true,
    entryPoints: [entry],
    bundle: true,
    ...(form.deployed ? { minifyWhitespace: true, minifySyntax: true } : { minify: true }),
    format: 'esm',
    platform: 'node',
    target: 'node22',
    outfile,
    inject,
    external: form.deployed ? [] : ['@aws-sdk/*', '@smithy/*'],
    // Ours as the construct builds it: the AWS SDK's DynamoDB client left out (the light client).
    ...(entries === ourEntries ? { define: { ...DYNAMODB_SDK_LEFT_OUT } } : {}),
    ...(form.deployed ? { mainFields: [...ESM_MAIN_FIELDS] } : {}),
    // Our packages from their sources (as the tests run them), not a possibly stale dist/.
    plugins: [
      {
        name: 'durable-lambda-sources',
        setup(b) {
          b.onResolve({ filter: /^@durable-lambda\/[a-z]+$/ }, (args) => ({
            path: join(ROOT, 'packages', args.path.slice('@durable-lambda/'.length), 'src', 'index.ts'),
          }));
          if (form.coreOnly) {
            b.onLoad({ filter: NON_STEP_OPERATIONS }, () => ({
              contents: `const f=()=>{throw new Error('stub')};export const ${OPERATION_STUBS.map((n) => `${n}=f`).join(',')};`,
              loader: 'ts',
            }));
          }
        },
      },
    ],
    // A CommonJS dependency bundled as ESM may call require: give it one (the construct's banner).
    banner: { js: ESM_REQUIRE_BANNER },
    logLevel: 'error',
  });
  // The biggest contributors by package (or by folder of ours), for the note.
  const inputs = Object.values(result.metafile.outputs)[0]?.inputs ?? {};
  const byGroup = new Map<string, number>();
  for (const [path, { bytesInOutput }] of Object.entries(inputs)) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path) ?? /packages\/([^/]+\/src\/[^/]+)/.exec(path);
    const group = m?.[1] ?? path;
    byGroup.set(group, (byGroup.get(group) ?? 0) + bytesInOutput);
  }
  const top = [...byGroup]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([g, b]) => `${g} ${(b / 1024).toFixed(1)} KB`)
    .join(', ');
  return { file: outfile, bytes: statSync(outfile).size, top, code: readFileSync(outfile, 'utf8') };
}

/**
 * The AWS SDK packages a minified ESM bundle (the SDK external) imports at load, and those a deployed
 * bundle loads at their first use: the client modules the construct writes beside it (the backend
 * imports them by a name no bundler follows).
 */
function awsSdkImports(code: string, deployedFile: string): { atLoad: string[]; onFirstUse: string[] } {
  const atLoad = [...new Set([...code.matchAll(/from\s*"(@aws-sdk\/[^"]+)"/g)].map((m) => m[1] as string))].sort();
  const beside = join(dirname(deployedFile), 'node_modules', '@aws-sdk');
  const onFirstUse = existsSync(beside) ? readdirSync(beside).map((name) => `@aws-sdk/${name}`) : [];
  return { atLoad, onFirstUse: onFirstUse.sort() };
}

/** Median wall ms and CPU ms (user + system; what a loaded machine distorts least) of a cold import. */
interface ColdImport {
  ms: number;
  cpuMs: number;
}

/**
 * What a fresh node process takes to import `file` (process start excluded), median of `IMPORTS`:
 * `import()` of an ESM bundle, `require()` of a CommonJS one (as Lambda loads a CommonJS handler).
 * With `then`, that code run right after the import is timed instead (what a first call loads).
 */
function coldImport(file: string, then?: string): ColdImport {
  const load = file.endsWith('.cjs')
    ? `(await import('node:module')).createRequire(import.meta.url)(${JSON.stringify(file)})`
    : `await import(${JSON.stringify(`file://${file}`)})`;
  const timed = (code: string) =>
    `const c=process.cpuUsage(),t=performance.now();${code};const u=process.cpuUsage(c);console.log(performance.now()-t,(u.user+u.system)/1000)`;
  const script = then ? `${load};${timed(then)}` : timed(load);
  const ms: number[] = [];
  const cpuMs: number[] = [];
  for (let i = 0; i < IMPORTS; i++) {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: ROOT,
      env: { ...process.env },
      encoding: 'utf8',
    });
    const [wall, cpu] = (out.trim().split('\n').pop() ?? '').split(' ').map(Number);
    ms.push(wall ?? Number.NaN);
    cpuMs.push(cpu ?? Number.NaN);
  }
  return { ms: medianOf(ms), cpuMs: medianOf(cpuMs) };
}

/**
 * The bundle a default `DurableFunction` deploys for `source`: synthesized in-process with bundling
 * for real (the construct's NodejsFunction and its local esbuild, as `cdk synth` runs them), our
 * packages from their sources (the root tsconfig's paths). Its `index.mjs` and size.
 */
function deployedBundle(source: string): { file: string; bytes: number } {
  const entry = join(synthesized, 'handler.ts');
  writeFileSync(entry, source);
  const outdir = join(synthesized, 'assembly');
  // The construct runs `npx --no-install esbuild`: from the root, where esbuild is installed.
  const cwd = process.cwd();
  process.chdir(ROOT);
  try {
    const app = new App({ outdir });
    new DurableFunction(new Stack(app, 'Bundle'), 'Hello', {
      entry,
      projectRoot: ROOT,
      depsLockFilePath: join(ROOT, 'package-lock.json'),
      bundling: { tsconfig: join(ROOT, 'tsconfig.json') },
    });
    app.synth();
  } finally {
    process.chdir(cwd);
  }
  // The function's asset is the one whose bundle registers its backend (backend-inject.ts calls
  // registerProductionBackend; identifiers are kept): the other is the reconciler's.
  const asset = readdirSync(outdir)
    .map((name) => join(outdir, name))
    .find(
      (dir) =>
        existsSync(join(dir, 'index.mjs')) &&
        readFileSync(join(dir, 'index.mjs'), 'utf8').includes('registerProductionBackend('),
    );
  if (asset === undefined) throw new Error(`no DurableFunction asset in ${outdir}`);
  const file = join(asset, 'index.mjs');
  return { file, bytes: statSync(file).size };
}

/** The DynamoDB document client a deployed function builds at its first invocation, and nothing else. */
const DYNAMODB_CLIENT_ONLY = `import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
export const client = () => DynamoDBDocumentClient.from(new DynamoDBClient({}), { marshallOptions: { removeUndefinedValues: true } });
`;

/** The CPU part of a cold-import row's note. */
const cpuNote = (ours: ColdImport, reference?: ColdImport) =>
  `CPU ${ours.cpuMs.toFixed(0)} ms${reference ? ` (reference ${reference.cpuMs.toFixed(0)} ms)` : ''}`;

try {
  const ours = await bundle('hello-ours', HELLO.ours);
  const core = await bundle('hello-core-only', HELLO.ours, [], { coreOnly: true });
  const aws = await bundle('hello-aws', HELLO.aws);
  const backendInject = join(ROOT, 'packages', 'cdk', 'src', 'runtime', 'backend-inject.ts');
  const full = await bundle('hello-production', HELLO.ours, [backendInject]);
  const deployed = deployedBundle(HELLO.ours);
  const dynamodb = await bundle('dynamodb-client-only', DYNAMODB_CLIENT_ONLY, [], { deployed: true });
  const sdk = awsSdkImports(full.code, deployed.file);
  // What the first wake-up schedule, queued wake-up or invoke loads (the clients the production
  // runtime imports at first use: modules of their own beside the deployed bundle), timed in a fresh
  // process right after the deployed bundle's import, resolved from its folder as the bundle's own
  // import() resolves them.
  const firstUse = join(dirname(deployed.file), 'first-use.mjs');
  writeFileSync(
    firstUse,
    `export const load = () => Promise.all(${JSON.stringify(sdk.onFirstUse)}.map((m) => import(m)));\n`,
  );
  const helloImport = coldImport(ours.file);
  const awsImport = coldImport(aws.file);
  const fullImport = coldImport(full.file);
  const firstUseImport = coldImport(
    deployed.file,
    `await (await import(${JSON.stringify(`file://${firstUse}`)})).load()`,
  );
  // Each alone, as an invocation loads the one it calls (each module carries its own SDK core).
  const firstUseEach = sdk.onFirstUse.map((name) => {
    const one = join(dirname(deployed.file), `first-use-${name.split('/').pop()}.mjs`);
    writeFileSync(one, `export const load = () => import(${JSON.stringify(name)});\n`);
    return `${name.split('/').pop()} ${coldImport(deployed.file, `await (await import(${JSON.stringify(`file://${one}`)})).load()`).ms.toFixed(0)} ms`;
  });
  const deployedImport = coldImport(deployed.file);
  const dynamodbImport = coldImport(dynamodb.file);
  const kb = (b: number) => b / 1024;
  const over = ours.bytes / 1024 - aws.bytes / 2048;
  const rows = [
    figure({
      section: 'bundle',
      metric: 'hello handler bundle (SDK only, minified)',
      unit: 'KB',
      ours: kb(ours.bytes),
      reference: kb(aws.bytes),
      referenceName: "AWS's @aws/durable-execution-sdk-js 2.4.0, same handler and build",
      target: 'ratio ≥ 2 (at most half)',
      met: (r) => r !== null && r >= 2,
      note:
        `esbuild, minify, ESM, node22, @aws-sdk/* and @smithy/* external. Largest parts of ours: ${ours.top}; of AWS's: ${aws.top}.` +
        (aws.bytes / ours.bytes < 2
          ? ` Missed: ${over.toFixed(1)} KB over half of AWS's. Why: the handler gets a DurableContext whose every operation must work from a bare withDurableExecution import (AWS's API), and esbuild keeps every method of a class and all they reach; the metafile finds nothing else to drop. Even with every operation but step and wait stubbed out, the bundle is ${kb(core.bytes).toFixed(1)} KB (${(kb(core.bytes) - kb(aws.bytes) / 2).toFixed(1)} KB over). What would close it: operations a handler imports (an API change AWS's compatibility rules out), or a far more compact SDK — see docs/performance.md.`
          : ''),
    }),
    figure({
      section: 'bundle',
      metric: 'full production runtime bundle (hello + production backend)',
      unit: 'KB',
      ours: kb(full.bytes),
      reference: kb(aws.bytes),
      referenceName: "AWS's hello bundle (its backend is the managed service, not in the bundle)",
      note: `what a DurableFunction deploys: the handler plus the injected createProductionBackend (DynamoDB store, wakers, Lambda invoker); AWS SDK clients external: imported at load ${sdk.atLoad.join(', ') || 'none'}; at first use ${sdk.onFirstUse.join(', ') || 'none'}`,
    }),
    figure({
      section: 'bundle',
      metric: 'cold import, hello bundle (fresh node process)',
      unit: 'ms',
      ours: helloImport.ms,
      reference: awsImport.ms,
      referenceName: "AWS's hello bundle",
      note: `median of ${IMPORTS} fresh processes, import() of the bundle only; ${cpuNote(helloImport, awsImport)}`,
    }),
    figure({
      section: 'bundle',
      metric: 'cold import, full production runtime bundle',
      unit: 'ms',
      ours: fullImport.ms,
      reference: awsImport.ms,
      referenceName: "AWS's hello bundle",
      note: `median of ${IMPORTS}; AWS SDK clients it imports at load: ${sdk.atLoad.join(', ') || 'none (DynamoDB through the light client)'}; ${sdk.onFirstUse.join(', ')} load at their first call (next row); ${cpuNote(fullImport, awsImport)}`,
    }),
    figure({
      section: 'bundle',
      metric: 'first-call load of the lazily imported AWS SDK clients',
      unit: 'ms',
      ours: firstUseImport.ms,
      reference: null,
      referenceName: 'none (paid once per container, at the first schedule, queued wake-up or invoke)',
      note: `median of ${IMPORTS}: import() of all of ${sdk.onFirstUse.join(', ')} right after the deployed bundle, in a fresh process, each the module the construct writes beside the bundle (an invocation loads only the ones it calls; alone: ${firstUseEach.join(', ')}; DynamoDB needs none: the light client); ${cpuNote(firstUseImport)}`,
    }),
    figure({
      section: 'bundle',
      metric: 'cold import, deployed bundle of a default DurableFunction (cdk synth)',
      unit: 'ms',
      ours: deployedImport.ms,
      reference: awsImport.ms,
      referenceName: "AWS's hello bundle",
      target: '≤ 50 ms',
      met: (_ratio, ours) => ours <= 50,
      note:
        `${kb(deployed.bytes).toFixed(0)} KB index.mjs as the construct bundles it (ESM, module main fields, whitespace and syntax minified with identifiers kept), no AWS SDK inside: DynamoDB through the light client (node:https, SigV4 from node:crypto), the Scheduler, Lambda and SQS clients modules of their own beside it, loaded at their first call (row above); import() in a fresh process, median of ${IMPORTS}; ${cpuNote(deployedImport, awsImport)}.` +
        (deployedImport.ms > 50
          ? ` Missed by ${(deployedImport.ms - 50).toFixed(0)} ms. Why: the bundle is our own code alone (the SDK, the engine, the DynamoDB store and the light client), so this is what evaluating it costs on this machine; compare the CPU figures, which a loaded machine distorts least.`
          : ''),
    }),
    figure({
      section: 'bundle',
      metric: 'cold import, DynamoDB document client alone (built as deployed)',
      unit: 'ms',
      ours: dynamodbImport.ms,
      reference: awsImport.ms,
      referenceName: "AWS's hello bundle",
      note: `${kb(dynamodb.bytes).toFixed(0)} KB: @aws-sdk/client-dynamodb and lib-dynamodb, built with the construct's esbuild options, and nothing else: what the light client spares every cold start (a deployed function neither imports nor loads it at first use; with DURABLE_DYNAMODB_CLIENT=sdk it loads at the first request); import() in a fresh process, median of ${IMPORTS}; ${cpuNote(dynamodbImport, awsImport)}`,
    }),
  ];
  emitRows(rows);
} finally {
  for (const dir of [awsEntries, ourEntries, synthesized]) rmSync(dir, { recursive: true, force: true });
  // bench/cdk.out itself, unless another run's folder is in it.
  const cdkOut = join(ROOT, 'bench', 'cdk.out');
  if (existsSync(cdkOut) && readdirSync(cdkOut).length === 0) rmSync(cdkOut, { recursive: true, force: true });
}
