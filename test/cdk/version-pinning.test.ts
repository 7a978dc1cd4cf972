/**
 * Safe deploys in the template: a `DurableFunction` publishes a version per deploy and points its
 * `live` alias at it; a replaced version is retained (CloudFormation drops it from the stack, not
 * from Lambda), with its failure destination, so the runs pinned to it finish there. Two synths
 * of the same stack with two code versions stand for two deploys.
 */
import { join } from 'node:path';
import { DurableFunction } from '@durable-lambda/cdk';
import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { functionTarget, readControlApiConfig } from '../../packages/cdk/src/runtime/control-api-config';
import { logicalId, newApp, newStack, REPO_ROOT, resources } from './support';

const fixture = (file: string) => join(REPO_ROOT, 'test/cdk/fixtures/version-pinning', file);

/** The stack as deployed with the handler `file`. */
function deploy(file: string): Template {
  const stack = new Stack(newApp(), 'Shop');
  new DurableFunction(stack, 'Orders', { entry: fixture(file) });
  return Template.fromStack(stack);
}

const versionsOf = (template: Template) =>
  Object.entries(resources(template)).filter(([, r]) => r.Type === 'AWS::Lambda::Version');

let v1: Template;
let v2: Template;

beforeAll(() => {
  v1 = deploy('v1.ts');
  v2 = deploy('v2.ts');
}, 120_000);

describe('DurableFunction: a version per deploy and the live alias', () => {
  it('publishes one version per deploy, retained when the next deploy replaces it', () => {
    const [first] = versionsOf(v1);
    const [second] = versionsOf(v2);
    expect(versionsOf(v1)).toHaveLength(1);
    expect(versionsOf(v2)).toHaveLength(1);
    // New code, a new version resource: the old one leaves the template...
    expect(first?.[0]).not.toBe(second?.[0]);
    // ...and stays in Lambda, for the runs pinned to it.
    for (const entry of [first, second]) {
      expect(entry?.[1].DeletionPolicy).toBe('Retain');
      expect(entry?.[1].UpdateReplacePolicy).toBe('Retain');
    }
  });

  it('points the live alias at the version of this deploy', () => {
    for (const template of [v1, v2]) {
      const [versionId] = versionsOf(template)[0] ?? [];
      const alias = resources(template)[logicalId(template, 'AWS::Lambda::Alias', 'OrdersAlias')];
      expect(alias?.Properties).toMatchObject({
        Name: 'live',
        FunctionName: { Ref: logicalId(template, 'AWS::Lambda::Function', 'OrdersFunction') },
        FunctionVersion: { 'Fn::GetAtt': [versionId, 'Version'] },
      });
    }
  });

  it('keeps the failure destination of a replaced version (its configuration is retained too)', () => {
    const [versionId] = versionsOf(v1)[0] ?? [];
    const queue = { 'Fn::GetAtt': [logicalId(v1, 'AWS::SQS::Queue', 'OrdersFailedInvocations'), 'Arn'] };
    const config = Object.values(resources(v1)).find(
      (r) =>
        r.Type === 'AWS::Lambda::EventInvokeConfig' &&
        JSON.stringify(r.Properties?.Qualifier) === JSON.stringify({ 'Fn::GetAtt': [versionId, 'Version'] }),
    );
    expect(config?.DeletionPolicy).toBe('Retain');
    expect(config?.Properties?.DestinationConfig).toEqual({ OnFailure: { Destination: queue } });
  });

  it('pins runs to their version unless told otherwise, and checks what it is told', () => {
    const env = (template: Template) =>
      resources(template)[logicalId(template, 'AWS::Lambda::Function', 'OrdersFunction')]?.Properties?.Environment
        .Variables;
    expect(env(v1).DURABLE_VERSION_PINNING).toBe('version');
    const stack = newStack();
    const latest = new DurableFunction(stack, 'Latest', {
      entry: fixture('v1.ts'),
      pinning: 'latest',
      aliasName: 'prod',
    });
    expect(latest.alias.aliasName).toBe('prod');
    const template = Template.fromStack(stack);
    const fn = resources(template)[logicalId(template, 'AWS::Lambda::Function', 'LatestFunction')]?.Properties;
    expect(fn?.Environment.Variables.DURABLE_VERSION_PINNING).toBe('latest');
    // Its runs are not woken through the alias: they run on $LATEST.
    const reconciler = resources(template)[logicalId(template, 'AWS::Lambda::Function', 'DurableReconciler')];
    expect(reconciler?.Properties?.Environment.Variables.DURABLE_FUNCTION_ALIASES).toBe('{}');
    expect(() => new DurableFunction(stack, 'Bad', { entry: fixture('v1.ts'), aliasName: '7' })).toThrow(/aliasName/);
    expect(() => new DurableFunction(stack, 'Worse', { entry: fixture('v1.ts'), pinning: 'newest' as never })).toThrow(
      /pinning must be one of version, alias, latest/,
    );
  });
});

describe('the control API starts runs on the alias', () => {
  const env = {
    DURABLE_TABLE_NAME: 'runs',
    AWS_REGION: 'eu-west-1',
    DURABLE_API_FUNCTIONS: JSON.stringify({ orders: 'arn:aws:lambda:eu-west-1:123456789012:function:orders' }),
  };

  it('reads the aliases, and refuses a malformed list naming it', () => {
    expect(readControlApiConfig({ ...env, DURABLE_API_ALIASES: '{"orders":"live"}' }).aliases).toEqual({
      orders: 'live',
    });
    expect(() => readControlApiConfig({ ...env, DURABLE_API_ALIASES: '{"orders":"7"}' })).toThrow(
      /DURABLE_API_ALIASES/,
    );
  });

  it('invokes a pinned run on its version, a run on the alias there, and a run opted into $LATEST unqualified', () => {
    const functions = readControlApiConfig(env).functions;
    const arn = 'arn:aws:lambda:eu-west-1:123456789012:function:orders';
    expect(functionTarget(functions, 'orders:7')).toBe(`${arn}:7`);
    expect(functionTarget(functions, 'orders:live')).toBe(`${arn}:live`);
    expect(functionTarget(functions, 'orders:$LATEST')).toBe(arn);
  });
});
