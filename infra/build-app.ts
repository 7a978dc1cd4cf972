import { type App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ExamplesStack } from './examples-stack';

/** Adds the repository's stacks to `app` and checks them with cdk-nag's AWS Solutions rules. */
export function buildApp(app: App): ExamplesStack {
  const context = (key: string) => {
    const value = app.node.tryGetContext(key);
    return typeof value === 'string' && value.length > 0 ? value : undefined;
  };
  const servicesUrl = context('servicesUrl');
  const functionNamePrefix = context('functionNamePrefix');
  const reserved = context('reservedConcurrency');
  const reservedConcurrency = reserved === undefined ? undefined : reserved === 'none' ? null : Number(reserved);
  if (typeof reservedConcurrency === 'number' && !(Number.isInteger(reservedConcurrency) && reservedConcurrency > 0)) {
    throw new Error(
      `context reservedConcurrency must be a positive integer or "none", got ${JSON.stringify(reserved)}`,
    );
  }
  const stack = new ExamplesStack(app, 'DurableLambdaExamples', {
    stackName: context('stackName') ?? 'DurableLambdaExamples',
    description: 'durable-lambda examples: durable functions sharing one table, and the control API',
    ...(servicesUrl === undefined ? {} : { servicesUrl }),
    ...(functionNamePrefix === undefined ? {} : { functionNamePrefix }),
    ...(reservedConcurrency === undefined ? {} : { reservedConcurrency }),
  });
  // Every finding is fixed or acknowledged in code with its reason; an unacknowledged one fails synth.
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return stack;
}
