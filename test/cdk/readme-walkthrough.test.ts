/**
 * The CDK README's "Deploy from nothing" stays true: its files (each code block under a
 * `<!-- file: path -->` line) are written out as a project and its app is run the way `cdk synth`
 * runs it (the `app` command of its cdk.json, from the project's folder, CDK_OUTDIR and
 * CDK_CONTEXT_JSON set, offline, no credentials; bundling skipped). The synth succeeds with the
 * app's cdk-nag plugin finding nothing, cfn-lint passes the template, the TypeScript compiles, and
 * the commands after it name what the app deploys (the stack, the `ApiUrl` output, the functions,
 * their log groups). Its table of what one function and the API create, and what each costs a
 * month, is compared with a synth priced by `fixedMonthlyCost`.
 *
 * The project sits under the repository's `.artifacts/` and the packages come from the sources
 * (tsx and tsc with the repository's path mapping): what `npm install` of the packed tarballs gives
 * a user's project (the pack-and-install path is tested in test/packaging).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import {
  type CloudFormationTemplate,
  DurableApi,
  DurableFunction,
  DurableTable,
  fixedMonthlyCost,
} from '@durable-lambda/cdk';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fastNpxDir } from './fast-npx';
import { newStack, REPO_ROOT } from './support';

const README = readFileSync(join(REPO_ROOT, 'packages/cdk/README.md'), 'utf8');
/** The README's prose with every run of white space one space (line breaks fall anywhere). */
const FLAT = README.replace(/\s+/g, ' ');
const SYNTH_TIMEOUT_MS = 300_000;
const CFN_LINT_TIMEOUT_MS = 240_000;

/** The README's project files: each fenced block right after a `<!-- file: path -->` line. */
function readmeFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const m of README.matchAll(/<!-- file: (\S+) -->\s*\n```\w*\n([\s\S]*?)\n```/g)) {
    files[m[1] as string] = `${m[2]}\n`;
  }
  return files;
}

/** The README's shell blocks, joined. */
const shell = [...README.matchAll(/```sh\n([\s\S]*?)\n```/g)].map((m) => m[1]).join('\n');

/** What the app's synth wrote. */
let project: string;
let outdir: string;
let run: { status: number | null; stdout: string; stderr: string };
let template: CloudFormationTemplate & { Outputs?: Record<string, unknown> };

beforeAll(() => {
  const files = readmeFiles();
  expect(Object.keys(files).sort()).toEqual(['app.ts', 'cdk.json', 'src/orders.ts', 'src/payments.ts']);
  mkdirSync(join(REPO_ROOT, '.artifacts'), { recursive: true });
  project = mkdtempSync(join(REPO_ROOT, '.artifacts', 'cdk-readme-app-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(project, path)), { recursive: true });
    writeFileSync(join(project, path), text);
  }
  // Step 1's `npm init -y && npm pkg set type=module`.
  writeFileSync(join(project, 'package.json'), `${JSON.stringify({ name: 'orders', type: 'module' }, null, 2)}\n`);
  const scratch = mkdtempSync(join(process.env.DURABLE_TEST_SCRATCH ?? tmpdir(), 'cdk-readme-'));
  outdir = join(scratch, 'cdk.out');
  const app = (JSON.parse(files['cdk.json'] as string) as { app: string }).app;
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(AWS_|CDK_|VITEST)/.test(key) && key !== 'NODE_OPTIONS') env[key] = value;
  }
  const npx = fastNpxDir(scratch);
  run = spawnSync('sh', ['-c', app], {
    cwd: project,
    encoding: 'utf8',
    timeout: SYNTH_TIMEOUT_MS,
    env: {
      ...env,
      ...(npx === undefined ? {} : { PATH: `${npx}${delimiter}${env.PATH ?? ''}` }),
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_CONFIG_FILE: join(scratch, 'no-aws-config'),
      AWS_SHARED_CREDENTIALS_FILE: join(scratch, 'no-aws-credentials'),
      // What `cdk synth` hands the app: where to write, and its context (bundling skipped: the
      // bundles are tested in synth-cli and deployed-bundle).
      CDK_OUTDIR: outdir,
      CDK_CONTEXT_JSON: JSON.stringify({ 'aws:cdk:bundling-stacks': [] }),
      // The installed packages: the repository's sources.
      TSX_TSCONFIG_PATH: join(REPO_ROOT, 'tsconfig.json'),
    },
  });
  if (run.status === 0) template = JSON.parse(readFileSync(join(outdir, 'Orders.template.json'), 'utf8'));
}, SYNTH_TIMEOUT_MS + 30_000);

afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

describe('the CDK README walkthrough', () => {
  it('synthesizes as cdk synth runs it, and cdk-nag (registered by the app) finds nothing', () => {
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8')) as {
      pluginReports: Array<{ pluginName: string; conclusion: string; violations: unknown[] }>;
    };
    expect(report.pluginReports.map((r) => [r.pluginName, r.conclusion, r.violations])).toEqual([
      ['AwsSolutions', 'success', []],
    ]);
  });

  it('deploys the two functions, one table, and the API whose URL is the output ApiUrl', () => {
    const t = Template.fromJSON(template);
    t.resourceCountIs('AWS::DynamoDB::Table', 1);
    t.hasResourceProperties('AWS::Lambda::Function', { FunctionName: 'orders' });
    t.hasResourceProperties('AWS::Lambda::Function', { FunctionName: 'payments' });
    t.hasResourceProperties('AWS::Logs::LogGroup', { LogGroupName: '/aws/lambda/orders' });
    t.hasResourceProperties('AWS::Lambda::Url', { AuthType: 'AWS_IAM' });
    expect(Object.keys(template.Outputs ?? {})).toEqual(['ApiUrl']);
    expect(fixedMonthlyCost(template).unknown).toEqual([]);
  });

  it('runs commands that name what the app deploys', () => {
    const app = readmeFiles()['app.ts'] as string;
    const stackName = /new Stack\(app, '([^']+)'\)/.exec(app)?.[1];
    expect(stackName).toBe('Orders');
    expect(shell).toContain(`describe-stacks --stack-name ${stackName} \\`);
    expect(shell).toContain(`--query "Stacks[0].Outputs[?OutputKey=='ApiUrl'].OutputValue"`);
    expect(shell).toMatch(/npx durable start orders --input '(.+)' --url "\$API"/);
    const input = JSON.parse(/npx durable start orders --input '(.+)' --url/.exec(shell)?.[1] as string);
    expect(Object.keys(input).sort()).toEqual(['amountCents', 'orderId']);
    for (const command of ['npx cdk bootstrap', 'npx cdk deploy', 'npx durable console --url "$API"']) {
      expect(shell).toContain(command);
    }
    expect(shell).toContain('npx durable list --url "$API" --sign');
    expect(shell).toContain('aws logs tail /aws/lambda/orders --follow');
  });

  it('is TypeScript that compiles', () => {
    // The packages as installed: their sources, by the repository's path mapping.
    const paths = Object.fromEntries(
      ['sdk', 'cdk'].map((pkg) => [`@durable-lambda/${pkg}`, [join(REPO_ROOT, `packages/${pkg}/src/index.ts`)]]),
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        extends: join(REPO_ROOT, 'tsconfig.json'),
        compilerOptions: { noEmit: true, paths },
        include: ['app.ts', 'src'],
      }),
    );
    const tsc = spawnSync(
      process.execPath,
      [join(REPO_ROOT, 'node_modules/typescript-native/bin/tsc'), '-p', join(project, 'tsconfig.json')],
      { encoding: 'utf8', timeout: 120_000 },
    );
    expect(tsc.status, `${tsc.stdout}\n${tsc.stderr}`).toBe(0);
  }, 150_000);

  const cfnLintMissing = spawnSync('sh', ['-c', 'command -v cfn-lint'], { encoding: 'utf8' }).status !== 0;
  if (cfnLintMissing && process.env.DURABLE_REQUIRE_CFN_LINT === '1') {
    throw new Error('cfn-lint is not installed (tested with 1.51.0: `pip install cfn-lint==1.51.0`).');
  }
  it.skipIf(cfnLintMissing)(
    'writes a template cfn-lint passes (W3005, CDK-made DependsOn, aside as in synth-cli)',
    () => {
      const lint = spawnSync('cfn-lint', ['--ignore-checks', 'W3005', '--', join(outdir, 'Orders.template.json')], {
        encoding: 'utf8',
        timeout: CFN_LINT_TIMEOUT_MS,
      });
      expect(lint.status, `${lint.stdout}\n${lint.stderr}`).toBe(0);
    },
    CFN_LINT_TIMEOUT_MS + 30_000,
  );
});

describe("the CDK README's table of what one function and the API create", () => {
  /** A stack of `n` functions sharing a table, and the API: its template. */
  const synth = (n: number): CloudFormationTemplate => {
    const stack = newStack('Orders');
    const table = new DurableTable(stack, 'Runs');
    const entry = join(REPO_ROOT, 'examples/checkout/handler.ts');
    const functions = Array.from({ length: n }, (_, i) => new DurableFunction(stack, `Fn${i}`, { entry, table }));
    new DurableApi(stack, 'Api', { functions });
    return Template.fromStack(stack).toJSON() as CloudFormationTemplate;
  };

  it('lists every resource type with its count and its month, as a synth and fixedMonthlyCost have them', () => {
    const template = synth(1);
    const estimate = fixedMonthlyCost(template);
    const types = Object.fromEntries(Object.entries(template.Resources).map(([id, r]) => [id, r.Type]));
    const expected: Record<string, { count: number; usd: number }> = {};
    for (const type of Object.values(types)) {
      expected[type] = { count: (expected[type]?.count ?? 0) + 1, usd: 0 };
    }
    // Each priced line counts for the type of the first resource it covers (a scheduled function's
    // line covers it and its rule; the KMS requests' line, the table).
    for (const line of estimate.lines) {
      const type = types[line.logicalIds[0] as string] as string;
      (expected[type] as { usd: number }).usd += line.monthlyUsd;
    }
    const rows = [...README.matchAll(/^\| `(AWS::[A-Za-z:]+)` +\| +(\d+) \|.*\| +([\d.]+) \|$/gm)].map((m) => ({
      type: m[1] as string,
      count: Number(m[2]),
      usd: Number(m[3]),
    }));
    expect(Object.fromEntries(rows.map((r) => [r.type, { count: r.count, usd: r.usd }]))).toEqual(
      Object.fromEntries(
        Object.entries(expected).map(([type, e]) => [type, { count: e.count, usd: Number(e.usd.toFixed(2)) }]),
      ),
    );
    const total = /^\| \*\*total\*\* +\| +(\d+) \|.*\| +([\d.]+) \|$/m.exec(README);
    const count = Object.keys(template.Resources).length;
    expect([Number(total?.[1]), Number(total?.[2])]).toEqual([count, Number(estimate.monthlyUsd.toFixed(2))]);
    expect(FLAT).toContain(`**${count} resources, $${estimate.monthlyUsd.toFixed(2)} a month**`);
  });

  it('says what two and five functions come to', () => {
    const two = synth(2);
    const five = synth(5);
    const said = `${Object.keys(two.Resources).length} resources and $${fixedMonthlyCost(two).monthlyUsd.toFixed(2)} for two functions, ${Object.keys(five.Resources).length} and $${fixedMonthlyCost(five).monthlyUsd.toFixed(2)} for five`;
    expect(FLAT).toContain(said);
  });
});
