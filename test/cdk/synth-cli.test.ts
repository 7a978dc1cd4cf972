/**
 * The repository's app (infra/), synthesized once, by `npx cdk synth` as a user runs it: from the
 * repository root, offline, with no AWS credentials (AWS_EC2_METADATA_DISABLED=true, --no-notices).
 * Its assets are bundled for real by the local esbuild (no Docker) and work; every template it
 * writes passes cfn-lint and CDK's built-in validation; cdk-nag's AwsSolutions checks ran with every
 * remaining finding acknowledged in code, with a reason; and the template deploys every example as
 * a DurableFunction sharing one table, served by the control API. Everything here reads the cloud
 * assembly that one synth wrote (the app is not synthesized in-process a second time).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { IN_PROCESS_SERVICES_URL } from '../../infra/demo-services/url';
import { EXAMPLE_SERVICES } from '../../infra/examples-stack';
import {
  annotationsOf,
  assetOf,
  bundleFile,
  type CliSynth,
  callBundle,
  performanceCounters,
  readTemplate,
  readValidationReport,
  synthWithCli,
  type ValidationReport,
} from './cli-synth';
import { arnOf, logicalId, newApp, REPO_ROOT, registersItsBackend, resources, statementsOfRole } from './support';

/**
 * The synth takes 50-140 s and cfn-lint 15-40 s on a loaded 2-core machine (`npm test` runs them
 * next to the type-check, the build and the other tests): far above both.
 */
const SYNTH_TIMEOUT_MS = 480_000;
const CFN_LINT_TIMEOUT_MS = 240_000;

const STACK = 'DurableLambdaExamples';
const EXAMPLES = ['checkout', 'approval', 'fan-out', 'order-saga', 'payments', 'reminder', 'report-job'];

let synth: CliSynth;
let template: Template;
let report: ValidationReport;

beforeAll(() => {
  synth = synthWithCli(SYNTH_TIMEOUT_MS);
  // Only a synth that succeeded wrote what the tests below read; 'succeeds' says why it did not.
  if (synth.status === 0 && synth.templates.includes(`${STACK}.template.json`)) {
    template = Template.fromJSON(readTemplate(synth, `${STACK}.template.json`));
    report = readValidationReport(synth);
  }
}, SYNTH_TIMEOUT_MS + 30_000);

describe('npx cdk synth (offline, no credentials)', () => {
  it('succeeds', () => {
    expect(synth.status, `${synth.stdout}\n${synth.stderr}`).toBe(0);
    expect(synth.templates).toEqual([`${STACK}.template.json`]);
    console.log(`npx cdk synth: ${Math.round(synth.ms)} ms`);
  });

  it('bundled every function locally with esbuild, the durable ones registering their backend', () => {
    expect(synth.stderr).not.toMatch(/docker/i);
    const functions = Object.values(readTemplate(synth, synth.templates[0] as string).Resources).filter(
      (r) => r.Type === 'AWS::Lambda::Function',
    );
    expect(functions).toHaveLength(10);
    for (const fn of functions) {
      const asset = join(synth.outdir, `asset.${String(fn.Properties?.Code.S3Key).replace(/\.zip$/, '')}`);
      expect(statSync(bundleFile(asset)).size, asset).toBeGreaterThan(1_000);
      // The reconciler builds its backend directly: only handlers' bundles register one.
      const variables = fn.Properties?.Environment?.Variables ?? {};
      const durable =
        variables.DURABLE_SCHEDULE_GROUP !== undefined && variables.DURABLE_RECONCILER_FUNCTIONS === undefined;
      expect(registersItsBackend(asset), asset).toBe(durable);
      // Nothing stands in for a package beside the bundle.
      expect(existsSync(join(asset, 'node_modules/@durable-lambda')), asset).toBe(false);
    }
  });

  it('makes durable function bundles that load the production backend at run time', () => {
    // No DURABLE_* variables: the production backend (bundled and registered) says so.
    const outcome = callBundle(
      assetOf(synth, 'OrderSagaFunction'),
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
      assetOf(synth, 'DurableReconciler'),
      {},
      { functionName: 'reconciler', invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:reconciler' },
    );
    expect(outcome.error?.name).toBe('ConfigurationError');
    expect(outcome.error?.message).toMatch(/missing environment variables DURABLE_TABLE_NAME, DURABLE_SCHEDULE_GROUP/);
  });

  it('makes a control API bundle that answers HTTP requests', () => {
    const outcome = callBundle(
      assetOf(synth, 'ControlApiFunction'),
      // A request it refuses before reading the table (there is none here, nor a network).
      {
        version: '2.0',
        rawPath: '/v1/functions',
        rawQueryString: 'include=everything',
        queryStringParameters: { include: 'everything' },
        requestContext: { http: { method: 'GET' } },
      },
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
    expect(outcome.value?.statusCode).toBe(400);
    expect(JSON.parse(outcome.value?.body)).toMatchObject({ error: { code: 'invalid_argument' } });
  });

  it("ran CDK's built-in template validation, which found nothing", () => {
    // The in-process CDK tests switch it off (support.ts): it can only print there. Here it runs as
    // in every user's synth; a plugin that finds anything has its own entry in the report.
    // The app's own count of validation runs, which the CLI always has it write.
    const ran = performanceCounters(synth)['CloudFormationValidate.validate(cnt)'];
    expect(ran, 'CloudFormationValidate.validate(cnt) in performance-counters.json').toBeGreaterThanOrEqual(1);
    expect(report.pluginReports.map((r) => r.pluginName)).toEqual(['AwsSolutions']);
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
      expect(synth.templates.length).toBeGreaterThan(0);
      // W3005 (a DependsOn already implied by a GetAtt) is how CDK makes every Lambda function wait for
      // its role's policy: redundant for the role itself, harmless, and not ours to change.
      const files = synth.templates.map((t) => join(synth.outdir, t));
      const lint = spawnSync('cfn-lint', ['--ignore-checks', 'W3005', '--', ...files], {
        encoding: 'utf8',
        timeout: CFN_LINT_TIMEOUT_MS,
      });
      const version = () => spawnSync('cfn-lint', ['--version'], { encoding: 'utf8' }).stdout?.trim();
      expect(lint.status, lint.status === 0 ? '' : `${version()}\n${lint.stdout}\n${lint.stderr}`).toBe(0);
    },
    CFN_LINT_TIMEOUT_MS + 30_000,
  );
});

describe('cdk-nag AwsSolutions (registered by the app, infra/build-app.ts)', () => {
  it('ran, and left no unacknowledged finding', () => {
    // An unacknowledged finding fails the synth itself; the report says so too.
    const nag = report.pluginReports.find((r) => r.pluginName === 'AwsSolutions');
    expect(nag, 'the AwsSolutions plugin ran').toBeDefined();
    expect(nag?.violations).toEqual([]);
    expect(nag?.conclusion).toBe('success');
    // Nothing reported outside the plugin either: no error or warning annotation anywhere.
    expect(annotationsOf(synth, STACK)).toEqual({ errors: [], warnings: [] });
  });

  it('has a written reason for each acknowledged finding, and only these kinds of finding', () => {
    const suppressed = report.pluginReports.flatMap((r) => r.suppressedViolations ?? []);
    expect(suppressed.length).toBeGreaterThan(0);
    for (const finding of suppressed) {
      expect(finding.reason?.length ?? 0, `${finding.acknowledgedId} needs a reason`).toBeGreaterThan(40);
    }
    const kinds = new Set(
      suppressed.map((f) =>
        (f.acknowledgedId ?? '').replace(/<[A-Za-z0-9]+(\.Arn)?>/g, '<ref>').replace(/^AwsSolutions::/, ''),
      ),
    );
    expect([...kinds].sort()).toEqual([
      // Every function: the runtime is pinned to nodejs22.x.
      'AwsSolutions-IAM5[Resource::<ref>:*]', // lambda:InvokeFunction on a function's versions and aliases
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/<ref>/*]', // schedules of one group
      'AwsSolutions-L1',
      'AwsSolutions-SQS3', // the failure destination queue is itself the end of the line
    ]);
  });

  it('fails synthesis on a finding nobody acknowledged (the check is live)', async () => {
    const { Stack, Validations } = await import('aws-cdk-lib');
    const iam = await import('aws-cdk-lib/aws-iam');
    const { AwsSolutionsChecks } = await import('cdk-nag');
    const app = newApp();
    const bad = new Stack(app, 'Bad');
    const role = new iam.Role(bad, 'Role', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
    role.addToPolicy(new iam.PolicyStatement({ actions: ['dynamodb:*'], resources: ['*'] }));
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).toThrow(/AwsSolutions-IAM5/);
  }, 240_000);
});

describe('the examples app', () => {
  const fnId = (name: string) =>
    logicalId(
      template,
      'AWS::Lambda::Function',
      name.replace(/(^|-)([a-z])/g, (_, _d, c: string) => c.toUpperCase()),
    );
  const fnProps = (name: string) => resources(template)[fnId(name)]?.Properties ?? {};

  it('deploys every example as a durable function with a generated name, all sharing one table', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    const table = logicalId(template, 'AWS::DynamoDB::Table', 'RunsTable');
    for (const name of EXAMPLES) {
      const fn = fnProps(name);
      expect(fn.FunctionName).toBeUndefined();
      expect(fn.Runtime).toBe('nodejs22.x');
      expect(fn.Environment.Variables.DURABLE_TABLE_NAME).toEqual({ Ref: table });
      expect(fn.Environment.Variables.DURABLE_SCHEDULE_GROUP).toMatchObject({ Ref: expect.any(String) });
    }
    // One per example, and the reconciler's.
    template.resourceCountIs('AWS::Scheduler::ScheduleGroup', EXAMPLES.length + 1);
    // Every example, the control API, the shared watchdog and reconciler (the demo services run in-process).
    template.resourceCountIs('AWS::Lambda::Function', EXAMPLES.length + 3);
  });

  it('gives every example the URLs of exactly the services its code reads (requireEnv)', () => {
    const entries: Record<string, string> = { payments: 'order-saga/payments.ts' };
    for (const dir of readdirSync(join(REPO_ROOT, 'examples'))) {
      if (EXAMPLES.includes(dir)) entries[dir] = `${dir}/handler.ts`;
    }
    const demoUrl = IN_PROCESS_SERVICES_URL;
    for (const name of EXAMPLES) {
      const source = readFileSync(join(REPO_ROOT, 'examples', entries[name] as string), 'utf8');
      const read = [...source.matchAll(/requireEnv\('([A-Z_]+)'\)/g)].map((m) => m[1] as string);
      expect([...new Set(read)].sort(), name).toEqual([...(EXAMPLE_SERVICES[name] ?? [])].sort());
      const vars = fnProps(name).Environment.Variables as Record<string, unknown>;
      for (const variable of read) expect(vars[variable], `${name} ${variable}`).toEqual(demoUrl);
    }
  });

  it('lets the order saga start payments runs, and payments resume the saga', () => {
    const saga = fnId('order-saga');
    const payments = fnId('payments');
    const invokes = (role: string) =>
      (statementsOfRole(template, role) as Array<{ Action: unknown; Resource: unknown }>)
        .filter((s) => s.Action === 'lambda:InvokeFunction')
        .flatMap((s) => s.Resource as unknown[]);
    expect(invokes(logicalId(template, 'AWS::IAM::Role', 'OrderSagaServiceRole'))).toContainEqual(arnOf(payments));
    expect(invokes(logicalId(template, 'AWS::IAM::Role', 'PaymentsServiceRole'))).toContainEqual(arnOf(saga));
    expect(invokes(logicalId(template, 'AWS::IAM::Role', 'CheckoutServiceRole'))).not.toContainEqual(arnOf(payments));
  });

  it('serves every example from the control API, behind IAM auth', () => {
    const api =
      resources(template)[logicalId(template, 'AWS::Lambda::Function', 'ControlApiFunction')]?.Properties ?? {};
    const served = JSON.stringify(api.Environment.Variables.DURABLE_API_FUNCTIONS);
    for (const name of EXAMPLES) expect(served).toContain(JSON.stringify({ Ref: fnId(name) }));
    template.hasResourceProperties('AWS::Lambda::Url', {
      AuthType: 'AWS_IAM',
      TargetFunctionArn: arnOf(logicalId(template, 'AWS::Lambda::Function', 'ControlApiFunction')),
    });
  });

  it('expects runs of each example to end in a time that fits what it waits for', () => {
    const watchdog =
      resources(template)[logicalId(template, 'AWS::Lambda::Function', 'DurableRunWatchdog')]?.Properties ?? {};
    const join = watchdog.Environment.Variables.DURABLE_WATCHDOG_FUNCTIONS['Fn::Join'][1] as unknown[];
    const thresholds: Record<string, number> = {};
    for (let i = 1; i < join.length; i += 2) {
      const ref = (join[i] as { Ref: string }).Ref;
      const name = EXAMPLES.find((example) => fnId(example) === ref) as string;
      thresholds[name] = Number(/"thresholdMs":(\d+)/.exec(join[i + 1] as string)?.[1]);
    }
    const hours = (h: number) => h * 3_600_000;
    expect(thresholds).toEqual({
      checkout: hours(2),
      approval: hours(96),
      'fan-out': hours(2),
      'order-saga': hours(2),
      payments: hours(1),
      reminder: hours(240),
      'report-job': hours(2),
    });
  });

  it('reconciles the shared table once, for every example, every 2 minutes', () => {
    const reconcilers = Object.entries(resources(template)).filter(
      ([id, r]) => r.Type === 'AWS::Lambda::Function' && id.startsWith('DurableReconciler'),
    );
    expect(reconcilers).toHaveLength(1);
    const served = JSON.stringify(reconcilers[0]?.[1].Properties?.Environment.Variables.DURABLE_RECONCILER_FUNCTIONS);
    for (const name of EXAMPLES) expect(served).toContain(JSON.stringify({ Ref: fnId(name) }));
    const queue = arnOf(logicalId(template, 'AWS::SQS::Queue', 'DurableReconciler'));
    for (const name of EXAMPLES) expect(fnProps(name).Environment.Variables.DURABLE_SCHEDULE_DLQ_ARN).toEqual(queue);
    template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(2 minutes)' });
  });

  it('removes everything with the stack (demo data)', () => {
    for (const [id, r] of Object.entries(resources(template))) {
      if (['AWS::DynamoDB::Table', 'AWS::Logs::LogGroup', 'AWS::SQS::Queue'].includes(r.Type)) {
        expect(r.DeletionPolicy, id).toBe('Delete');
      }
    }
  });
});
