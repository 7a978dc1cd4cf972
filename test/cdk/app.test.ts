/**
 * The repository's app (infra/): every example deployed as a DurableFunction sharing one table,
 * the control API serving them all, and cdk-nag's AwsSolutions checks with every remaining
 * finding acknowledged in code, with a reason. Synthesized in-process, bundling skipped (the CLI
 * test bundles for real).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../infra/build-app';
import { IN_PROCESS_SERVICES_URL } from '../../infra/demo-services/url';
import { EXAMPLE_SERVICES, type ExamplesStack } from '../../infra/examples-stack';
import { arnOf, logicalId, newApp, REPO_ROOT, resources, statementsOfRole } from './support';

interface Violation {
  ruleName: string;
  description: string;
  violatingConstructs: Array<{ constructPath: string }>;
  acknowledgedId?: string;
  reason?: string;
}
interface ValidationReport {
  pluginReports: Array<{
    pluginName: string;
    conclusion: string;
    violations: Violation[];
    suppressedViolations?: Violation[];
  }>;
}

const EXAMPLES = ['checkout', 'approval', 'fan-out', 'order-saga', 'payments', 'reminder', 'report-job'];

let stack: ExamplesStack;
let template: Template;
let report: ValidationReport;

beforeAll(() => {
  const app = newApp();
  stack = buildApp(app);
  // Throws if a validation plugin (cdk-nag) reports an unacknowledged violation.
  const assembly = app.synth();
  template = Template.fromJSON(assembly.getStackByName(stack.stackName).template);
  report = JSON.parse(readFileSync(join(assembly.directory, 'validation-report.json'), 'utf8')) as ValidationReport;
  // A synth with cdk-nag takes ~15-40 s on two loaded cores: far above that, never near it.
}, 240_000);

describe('cdk-nag AwsSolutions', () => {
  it('ran, and left no unacknowledged finding', () => {
    const nag = report.pluginReports.find((r) => r.pluginName === 'AwsSolutions');
    expect(nag, 'the AwsSolutions plugin ran').toBeDefined();
    expect(nag?.violations).toEqual([]);
    expect(nag?.conclusion).toBe('success');
    // Nothing reported outside the plugin either: no error or warning annotation anywhere.
    expect(Annotations.fromStack(stack).findError('*', Match.anyValue())).toEqual([]);
    expect(Annotations.fromStack(stack).findWarning('*', Match.anyValue())).toEqual([]);
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

  it('reconciles the shared table once, for every example, every minute', () => {
    const reconcilers = Object.entries(resources(template)).filter(
      ([id, r]) => r.Type === 'AWS::Lambda::Function' && id.startsWith('DurableReconciler'),
    );
    expect(reconcilers).toHaveLength(1);
    const served = JSON.stringify(reconcilers[0]?.[1].Properties?.Environment.Variables.DURABLE_RECONCILER_FUNCTIONS);
    for (const name of EXAMPLES) expect(served).toContain(JSON.stringify({ Ref: fnId(name) }));
    const queue = arnOf(logicalId(template, 'AWS::SQS::Queue', 'DurableReconciler'));
    for (const name of EXAMPLES) expect(fnProps(name).Environment.Variables.DURABLE_SCHEDULE_DLQ_ARN).toEqual(queue);
    template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(1 minute)' });
  });

  it('removes everything with the stack (demo data)', () => {
    for (const [id, r] of Object.entries(resources(template))) {
      if (['AWS::DynamoDB::Table', 'AWS::Logs::LogGroup', 'AWS::SQS::Queue'].includes(r.Type)) {
        expect(r.DeletionPolicy, id).toBe('Delete');
      }
    }
  });
});

describe('the nag check is live', () => {
  it('fails synthesis on a finding nobody acknowledged', async () => {
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
