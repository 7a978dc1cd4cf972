/**
 * `npx cdk synth` of the repository's app, as a user runs it: from the repository root, offline,
 * with no AWS credentials (AWS_EC2_METADATA_DISABLED=true, --no-notices). Its assets are bundled
 * for real by the local esbuild (no Docker) and work; every template it writes passes cfn-lint.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support';

/**
 * A directory whose `npx` runs the repository's own esbuild and tsx without npx's start-up (~0.6
 * CPU-s each, and CDK's local bundling runs `npx --no-install esbuild` once per function: a tenth of
 * the file's CPU), and hands everything else (`npx cdk synth` itself) to the real npx. The same
 * binaries run with the same arguments: only the launcher that finds them in node_modules/.bin is
 * skipped. DURABLE_SYNTH_REAL_NPX=1 runs the synth with the real npx throughout.
 */
function fastNpxDir(work: string): string | undefined {
  if (process.env.DURABLE_SYNTH_REAL_NPX === '1') return undefined;
  const realNpx = spawnSync('sh', ['-c', 'command -v npx'], { encoding: 'utf8' }).stdout.trim();
  const esbuild = join(REPO_ROOT, 'node_modules', '.bin', 'esbuild');
  const tsx = join(REPO_ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  if (!realNpx || !existsSync(esbuild) || !existsSync(tsx)) return undefined;
  const dir = join(work, 'fast-npx');
  mkdirSync(dir);
  const q = (path: string) => `'${path.replace(/'/g, `'\\''`)}'`;
  writeFileSync(
    join(dir, 'npx'),
    [
      '#!/bin/sh',
      `if [ "$1" = "--no-install" ] && [ "$2" = "esbuild" ]; then shift 2; exec ${q(esbuild)} "$@"; fi`,
      `if [ "$1" = "tsx" ]; then shift; exec ${q(process.execPath)} ${q(tsx)} "$@"; fi`,
      `exec ${q(realNpx)} "$@"`,
      '',
    ].join('\n'),
  );
  chmodSync(join(dir, 'npx'), 0o755);
  return dir;
}

/** The environment of a developer's shell without any AWS credentials or profile. */
function offlineEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith('AWS_') || key.startsWith('CDK_') || key.startsWith('VITEST') || key === 'NODE_OPTIONS')
      continue;
    env[key] = value;
  }
  const npxDir = fastNpxDir(home);
  if (npxDir !== undefined) env.PATH = `${npxDir}${delimiter}${env.PATH ?? ''}`;
  return {
    ...env,
    AWS_EC2_METADATA_DISABLED: 'true',
    // No shared config or credentials files either.
    AWS_CONFIG_FILE: join(home, 'no-aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(home, 'no-aws-credentials'),
  };
}

interface Template {
  Resources: Record<string, { Type: string; Properties?: Record<string, any> }>;
}

/**
 * The synth takes 50-140 s and cfn-lint 15-40 s on a loaded 2-core machine (`npm test` runs them
 * next to the type-check, the build and the other tests): far above both.
 */
const SYNTH_TIMEOUT_MS = 480_000;
const CFN_LINT_TIMEOUT_MS = 240_000;

let outdir: string;
let synth: { status: number | null; stdout: string; stderr: string; ms: number };
let templates: string[];

beforeAll(() => {
  const work = mkdtempSync(join(tmpdir(), 'cdk-synth-'));
  outdir = join(work, 'cdk.out');
  const started = performance.now();
  const result = spawnSync('npx', ['cdk', 'synth', '--no-notices', '--quiet', '--output', outdir], {
    cwd: REPO_ROOT,
    env: offlineEnv(work),
    encoding: 'utf8',
    timeout: SYNTH_TIMEOUT_MS,
  });
  synth = { status: result.status, stdout: result.stdout, stderr: result.stderr, ms: performance.now() - started };
  templates = existsSync(outdir) ? readdirSync(outdir).filter((f) => f.endsWith('.template.json')) : [];
}, SYNTH_TIMEOUT_MS + 30_000);

const readTemplate = (file: string) => JSON.parse(readFileSync(join(outdir, file), 'utf8')) as Template;

/** The asset directory of the Lambda function named `name`, or whose logical id starts with `idPrefix`. */
function assetOf(which: { name: string } | { idPrefix: string }): string {
  for (const file of templates) {
    for (const [id, r] of Object.entries(readTemplate(file).Resources)) {
      if (r.Type !== 'AWS::Lambda::Function') continue;
      if ('name' in which ? r.Properties?.FunctionName === which.name : id.startsWith(which.idPrefix)) {
        return join(outdir, `asset.${String(r.Properties?.Code.S3Key).replace(/\.zip$/, '')}`);
      }
    }
  }
  throw new Error(`no function ${JSON.stringify(which)}`);
}

/** Loads a bundled handler in a fresh Node process and calls it once; prints the outcome as JSON. */
function callBundle(asset: string, event: unknown, context: unknown, env: Record<string, string> = {}) {
  const script = `
    const { handler } = require(${JSON.stringify(join(asset, 'index.js'))});
    handler(${JSON.stringify(event)}, ${JSON.stringify(context)}).then(
      (value) => console.log(JSON.stringify({ value })),
      (error) => console.log(JSON.stringify({ error: { name: error.name, message: error.message } })),
    );`;
  const result = spawnSync(process.execPath, ['-e', script], {
    cwd: tmpdir(), // nothing of the repository's node_modules on the way
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  const last = result.stdout.trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(last) as { value?: any; error?: { name: string; message: string } };
  } catch {
    throw new Error(`the bundle did not answer:\n${result.stdout}\n${result.stderr}`);
  }
}

describe('npx cdk synth (offline, no credentials)', () => {
  it('succeeds', () => {
    expect(synth.status, `${synth.stdout}\n${synth.stderr}`).toBe(0);
    expect(templates).toEqual(['DurableLambdaExamples.template.json']);
    console.log(`npx cdk synth: ${Math.round(synth.ms)} ms`);
  });

  it('bundled every function locally with esbuild, the durable ones with the backend shim', () => {
    expect(synth.stderr).not.toMatch(/docker/i);
    const template = readTemplate(templates[0] as string);
    const functions = Object.values(template.Resources).filter((r) => r.Type === 'AWS::Lambda::Function');
    expect(functions).toHaveLength(10);
    for (const fn of functions) {
      const asset = join(outdir, `asset.${String(fn.Properties?.Code.S3Key).replace(/\.zip$/, '')}`);
      expect(statSync(join(asset, 'index.js')).size, asset).toBeGreaterThan(1_000);
      // The reconciler imports the backend statically: only handlers need the shim.
      const variables = fn.Properties?.Environment?.Variables ?? {};
      const durable =
        variables.DURABLE_SCHEDULE_GROUP !== undefined && variables.DURABLE_RECONCILER_FUNCTIONS === undefined;
      expect(existsSync(join(asset, 'node_modules/@durable-lambda/aws/package.json')), asset).toBe(durable);
    }
  });

  it('makes durable function bundles that load the production backend at run time', () => {
    // No DURABLE_* variables: the production backend (bundled, reached through the shim) says so.
    const outcome = callBundle(
      assetOf({ idPrefix: 'OrderSagaFunction' }),
      { orderId: 'o-1' },
      {
        functionName: 'order-saga',
        awsRequestId: 'req-1',
        invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:order-saga',
      },
    );
    expect(outcome.error?.name).toBe('ConfigurationError');
    expect(outcome.error?.message).toMatch(/missing environment variables DURABLE_TABLE_NAME, DURABLE_SCHEDULE_GROUP/);
  });

  it('makes a reconciler bundle that builds its backend at the first invocation and names what is missing', () => {
    const outcome = callBundle(
      assetOf({ idPrefix: 'DurableReconciler' }),
      {},
      { functionName: 'reconciler', invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:reconciler' },
    );
    expect(outcome.error?.name).toBe('ConfigurationError');
    expect(outcome.error?.message).toMatch(/missing environment variables DURABLE_TABLE_NAME, DURABLE_SCHEDULE_GROUP/);
  });

  it('makes a control API bundle that answers HTTP requests', () => {
    const outcome = callBundle(
      assetOf({ idPrefix: 'ControlApiFunction' }),
      { version: '2.0', rawPath: '/v1/functions', requestContext: { http: { method: 'GET' } } },
      {},
      {
        AWS_REGION: 'eu-west-1',
        DURABLE_TABLE_NAME: 'runs',
        DURABLE_API_FUNCTIONS: JSON.stringify({
          checkout: 'arn:aws:lambda:eu-west-1:123456789012:function:checkout',
          payments: 'arn:aws:lambda:eu-west-1:123456789012:function:payments',
        }),
      },
    );
    expect(outcome.value?.statusCode).toBe(200);
    expect(JSON.parse(outcome.value?.body)).toEqual({ functions: [{ name: 'checkout' }, { name: 'payments' }] });
  });

  // cfn-lint is a Python tool no registry we can reach serves: this machine has it, and .ci/run puts
  // it on PATH when it is there. Where it is missing the check cannot run, and says so loudly;
  // DURABLE_REQUIRE_CFN_LINT=1 makes its absence a failure instead.
  // Found on PATH, not asked for its version: `cfn-lint --version` alone costs ~2.5 CPU-s (its
  // imports), so the version is only asked for when the lint fails, for the message.
  const cfnLintMissing = spawnSync('sh', ['-c', 'command -v cfn-lint'], { encoding: 'utf8' }).status !== 0;
  if (cfnLintMissing && process.env.DURABLE_REQUIRE_CFN_LINT === '1') {
    throw new Error('cfn-lint is not installed (tested with 1.51.0: `pip install cfn-lint==1.51.0`).');
  }
  if (cfnLintMissing)
    console.warn('WARNING: cfn-lint is not installed: the cfn-lint check of the templates is skipped.');

  it.skipIf(cfnLintMissing)(
    'writes templates that cfn-lint passes with no error and no warning',
    () => {
      expect(templates.length).toBeGreaterThan(0);
      // W3005 (a DependsOn already implied by a GetAtt) is how CDK makes every Lambda function wait for
      // its role's policy: redundant for the role itself, harmless, and not ours to change.
      const lint = spawnSync('cfn-lint', ['--ignore-checks', 'W3005', '--', ...templates.map((t) => join(outdir, t))], {
        encoding: 'utf8',
        timeout: CFN_LINT_TIMEOUT_MS,
      });
      const version = () => spawnSync('cfn-lint', ['--version'], { encoding: 'utf8' }).stdout?.trim();
      expect(lint.status, lint.status === 0 ? '' : `${version()}\n${lint.stdout}\n${lint.stderr}`).toBe(0);
    },
    CFN_LINT_TIMEOUT_MS + 30_000,
  );
});
