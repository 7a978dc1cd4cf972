import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DurableApi, DurableFunction, type DurableFunctionProps, DurableTable } from '@durable-lambda/cdk';
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

/** The repository root (infra/ is one level down); `__dirname` under CommonJS (tsx), else `import.meta`. */
export const REPO_ROOT = join(
  typeof __dirname === 'string' ? __dirname : dirname(fileURLToPath(import.meta.url)),
  '..',
);

/** The environment variables naming the HTTP services each example calls. */
export const EXAMPLE_SERVICES: Record<string, readonly string[]> = {
  checkout: ['PAYMENTS_URL', 'INVENTORY_URL', 'ORDERS_URL', 'MAILER_URL'],
  approval: ['MAILER_URL', 'PURCHASING_URL', 'APPROVALS_URL'],
  'fan-out': ['BILLING_URL', 'INVOICES_URL', 'MAILER_URL'],
  'order-saga': ['INVENTORY_URL', 'MAILER_URL'],
  payments: ['GATEWAY_URL'],
  reminder: ['ACCOUNTS_URL', 'MAILER_URL', 'SUPPORT_URL'],
  'report-job': ['WAREHOUSE_URL', 'STORAGE_URL', 'MAILER_URL'],
};

/** Each deployed example: its entry and how long a run is expected to take at most. */
const EXAMPLES: Array<{ name: string; entry: string; expected: Duration; description: string }> = [
  {
    name: 'checkout',
    entry: 'checkout/handler.ts',
    expected: Duration.hours(2),
    description: 'checkout: charge, 30 min cancellation window, confirm',
  },
  {
    name: 'approval',
    entry: 'approval/handler.ts',
    expected: Duration.days(4),
    description: 'approval: waits up to 3 days for a decision',
  },
  {
    name: 'fan-out',
    entry: 'fan-out/handler.ts',
    expected: Duration.hours(2),
    description: 'fan-out: invoices every customer of a period',
  },
  {
    name: 'order-saga',
    entry: 'order-saga/handler.ts',
    expected: Duration.hours(2),
    description: 'order saga: reserve, invoke payments, compensate',
  },
  {
    name: 'payments',
    entry: 'order-saga/payments.ts',
    expected: Duration.hours(1),
    description: 'payments: invoked by the order saga',
  },
  {
    name: 'reminder',
    entry: 'reminder/handler.ts',
    expected: Duration.days(10),
    description: 'reminder: 3 reminders 3 days apart, then a ticket',
  },
  {
    name: 'report-job',
    entry: 'report-job/handler.ts',
    expected: Duration.hours(2),
    description: 'report job: generate with a timeout, store, send',
  },
];

export interface ExamplesStackProps extends StackProps {
  /**
   * Base URL of the HTTP services the examples call. Default: a demo Lambda (Function URL)
   * deployed by this stack with canned answers.
   */
  readonly servicesUrl?: string;
}

/**
 * The repository's own deployment: every example as a `DurableFunction`, all sharing one table,
 * and the control API serving them. Demo data: everything is removed with the stack.
 */
export class ExamplesStack extends Stack {
  readonly table: DurableTable;
  readonly functions: Record<string, DurableFunction> = {};
  readonly api: DurableApi;
  readonly demoServices?: nodejs.NodejsFunction;

  constructor(scope: Construct, id: string, props: ExamplesStackProps = {}) {
    super(scope, id, props);
    // Bundle from the TypeScript sources of the workspace packages (the root tsconfig's paths).
    const common: Pick<
      DurableFunctionProps,
      'bundling' | 'projectRoot' | 'depsLockFilePath' | 'removalPolicy' | 'logRetention'
    > = {
      bundling: { tsconfig: join(REPO_ROOT, 'tsconfig.json') },
      projectRoot: REPO_ROOT,
      depsLockFilePath: join(REPO_ROOT, 'package-lock.json'),
      removalPolicy: RemovalPolicy.DESTROY,
      logRetention: logs.RetentionDays.TWO_WEEKS,
    };
    this.table = new DurableTable(this, 'Runs', { removalPolicy: RemovalPolicy.DESTROY });

    let servicesUrl = props.servicesUrl;
    if (servicesUrl === undefined) {
      const demo = this.demoServicesFunction(common);
      this.demoServices = demo;
      servicesUrl = demo.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.NONE }).url;
    }

    for (const example of EXAMPLES) {
      const environment = Object.fromEntries((EXAMPLE_SERVICES[example.name] ?? []).map((name) => [name, servicesUrl]));
      this.functions[example.name] = new DurableFunction(this, pascal(example.name), {
        ...common,
        entry: join(REPO_ROOT, 'examples', example.entry),
        // Runs are recorded under the Lambda name, and the saga invokes `payments` by name.
        functionName: example.name,
        description: example.description,
        table: this.table,
        environment,
        expectedRunDuration: example.expected,
        timeout: Duration.minutes(10),
      });
    }
    // The saga starts runs of `payments` (context.invoke) and is resumed by them.
    this.functions['order-saga']?.invokes(this.functions.payments as DurableFunction);

    this.api = new DurableApi(this, 'ControlApi', {
      ...common,
      functions: Object.values(this.functions),
      outputUrl: false,
    });
    new CfnOutput(this, 'ApiUrl', {
      value: this.api.url.url,
      description: 'the control API (IAM auth: sign requests with SigV4, service "lambda")',
    });
    new CfnOutput(this, 'TableName', { value: this.table.tableName, description: 'the runs table' });
    new CfnOutput(this, 'ServicesUrl', { value: servicesUrl, description: 'the HTTP services the examples call' });
  }

  private demoServicesFunction(common: {
    bundling?: nodejs.BundlingOptions;
    projectRoot?: string;
    depsLockFilePath?: string;
  }) {
    const logGroup = new logs.LogGroup(this, 'DemoServicesLogs', {
      retention: logs.RetentionDays.ONE_WEEK,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const role = new iam.Role(this, 'DemoServicesRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    });
    role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [logGroup.logGroupArn],
      }),
    );
    const fn = new nodejs.NodejsFunction(this, 'DemoServices', {
      entry: join(REPO_ROOT, 'infra', 'demo-services', 'handler.ts'),
      description: 'durable-lambda examples: demo stand-ins for the HTTP services they call',
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: 256,
      timeout: Duration.seconds(10),
      role,
      logGroup,
      projectRoot: common.projectRoot,
      depsLockFilePath: common.depsLockFilePath,
      bundling: { ...common.bundling, forceDockerBundling: false, target: 'node22' },
    });
    Validations.of(fn).acknowledge({
      id: 'AwsSolutions::AwsSolutions-L1',
      reason: 'Pinned to nodejs22.x like every function of durable-lambda (the runtime it is built and tested on).',
    });
    return fn;
  }
}

function pascal(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_, _dash: string, c: string) => c.toUpperCase());
}
