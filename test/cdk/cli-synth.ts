/**
 * `npx cdk synth` of the repository's app as a user runs it (from the repository root, offline,
 * no AWS credentials), and readers of the cloud assembly it writes: its template, the validation
 * report cdk-nag's results go to, its annotations, and its bundles, each called in a fresh Node
 * process. Used by synth-cli.test.ts, the one test that synthesizes the app.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CloudAssembly, SynthesisMessageLevel } from 'aws-cdk-lib/cx-api';
import { fastNpxDir } from './fast-npx';
import { REPO_ROOT } from './support';

/**
 * The environment of a developer's shell without any AWS credentials or profile, nor the CDK_*
 * variables of the shell the tests run in (CDK_VALIDATION among them: the synth runs CDK's
 * built-in template validation, as a user's does).
 */
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
    // The CLI's usage telemetry (a detached sender process posting to AWS after each command) is no
    // part of the synth, and a test sends nothing off this machine.
    CDK_DISABLE_CLI_TELEMETRY: 'true',
  };
}

/** What `npx cdk synth` did, and where it wrote the cloud assembly. */
export interface CliSynth {
  status: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** The cloud assembly directory (`--output`). */
  outdir: string;
  /** The `*.template.json` files written there. */
  templates: string[];
}

/** Runs `npx cdk synth --no-notices --quiet` from the repository root into a fresh directory. */
export function synthWithCli(timeoutMs: number): CliSynth {
  const work = mkdtempSync(join(process.env.DURABLE_TEST_SCRATCH ?? tmpdir(), 'cdk-synth-'));
  const outdir = join(work, 'cdk.out');
  const started = performance.now();
  const result = spawnSync('npx', ['cdk', 'synth', '--no-notices', '--quiet', '--output', outdir], {
    cwd: REPO_ROOT,
    env: offlineEnv(work),
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  const templates = existsSync(outdir) ? readdirSync(outdir).filter((f) => f.endsWith('.template.json')) : [];
  return {
    status: result.status,
    stdout: result.stdout,
    stderr: result.stderr,
    ms: performance.now() - started,
    outdir,
    templates,
  };
}

/** A synthesized CloudFormation template, as JSON. */
export interface TemplateJson {
  Resources: Record<string, { Type: string; Properties?: Record<string, any> }>;
}

export const readTemplate = (synth: CliSynth, file: string) =>
  JSON.parse(readFileSync(join(synth.outdir, file), 'utf8')) as TemplateJson;

/** One finding of a validation plugin, as validation-report.json writes it. */
export interface Violation {
  ruleName: string;
  description: string;
  violatingConstructs: Array<{ constructPath: string }>;
  acknowledgedId?: string;
  reason?: string;
}

/** validation-report.json: what each validation plugin (cdk-nag among them) found. */
export interface ValidationReport {
  pluginReports: Array<{
    pluginName: string;
    conclusion: string;
    violations: Violation[];
    suppressedViolations?: Violation[];
  }>;
}

export const readValidationReport = (synth: CliSynth) =>
  JSON.parse(readFileSync(join(synth.outdir, 'validation-report.json'), 'utf8')) as ValidationReport;

/**
 * The error and warning annotations of stack `stackName` in the assembly: what
 * `Annotations.fromStack(stack).findError/findWarning('*', Match.anyValue())` reads in-process (the
 * stack artifact's messages, from the manifest and the stack's metadata file).
 */
export function annotationsOf(synth: CliSynth, stackName: string): { errors: string[]; warnings: string[] } {
  const messages = new CloudAssembly(synth.outdir).getStackByName(stackName).messages;
  const render = (level: SynthesisMessageLevel) =>
    messages.filter((m) => m.level === level).map((m) => `${m.id}: ${JSON.stringify(m.entry.data)}`);
  return { errors: render(SynthesisMessageLevel.ERROR), warnings: render(SynthesisMessageLevel.WARNING) };
}

/**
 * The CDK app's own counters (performance-counters.json): how often each synthesis step ran, e.g.
 * `CloudFormationValidate.validate(cnt)`.
 */
export function performanceCounters(synth: CliSynth): Record<string, number> {
  const file = join(synth.outdir, 'performance-counters.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { counters: Record<string, number> }).counters;
}

/** The asset directory of the Lambda function whose logical id starts with `idPrefix`. */
export function assetOf(synth: CliSynth, idPrefix: string): string {
  for (const file of synth.templates) {
    for (const [id, r] of Object.entries(readTemplate(synth, file).Resources)) {
      if (r.Type === 'AWS::Lambda::Function' && id.startsWith(idPrefix)) {
        return join(synth.outdir, `asset.${String(r.Properties?.Code.S3Key).replace(/\.zip$/, '')}`);
      }
    }
  }
  throw new Error(`no function ${idPrefix}`);
}

/** The file Lambda loads from a bundled asset: `index.mjs` (the constructs bundle ESM). */
export const bundleFile = (asset: string) => join(asset, 'index.mjs');

/**
 * Loads a bundled handler in a fresh Node process and calls it once, as Lambda's Node.js runtime
 * loads an ES module (`import()`); prints the outcome as JSON.
 */
export function callBundle(asset: string, event: unknown, context: unknown, env: Record<string, string> = {}) {
  const script = `
    const { handler } = await import(${JSON.stringify(pathToFileURL(bundleFile(asset)).href)});
    await handler(${JSON.stringify(event)}, ${JSON.stringify(context)}).then(
      (value) => console.log(JSON.stringify({ value })),
      (error) => console.log(JSON.stringify({ error: { name: error.name, message: error.message } })),
    );`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
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
