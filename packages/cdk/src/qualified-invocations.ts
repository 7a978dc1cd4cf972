import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Aspects, type CfnResource, type IAspect, RemovalPolicy, Stack } from 'aws-cdk-lib/core';
import type { IConstruct } from 'constructs';

/**
 * Gives every version and alias of `fn` defined in its stack (`fn.currentVersion`,
 * `fn.addAlias('live')`, `new lambda.Alias(...)`) the asynchronous-invocation settings of
 * `$LATEST`: Lambda keeps one configuration per qualifier, and a run started through an alias or
 * version is woken and resumed through that same qualified ARN, so without this its failed events
 * would go to no destination. A version or alias configured already (`onFailure` of its own) is
 * left as it is.
 *
 * A version's configuration is retained when the version is replaced by a newer one (each code
 * change makes a new `currentVersion`): the old version still runs the runs it started, and keeps
 * its destination. Lambda deletes it with the function.
 */
export function coverQualifiedInvocations(fn: lambda.Function, options: lambda.EventInvokeConfigOptions): void {
  Aspects.of(Stack.of(fn)).add(new QualifiedInvocations(fn, options));
}

class QualifiedInvocations implements IAspect {
  constructor(
    private readonly fn: lambda.Function,
    private readonly options: lambda.EventInvokeConfigOptions,
  ) {}

  visit(node: IConstruct): void {
    if (!(node instanceof lambda.Version || node instanceof lambda.Alias)) return;
    if (node.lambda !== this.fn || node.node.tryFindChild('EventInvokeConfig')) return;
    node.configureAsyncInvoke(this.options);
    if (node instanceof lambda.Version) {
      const config = node.node.findChild('EventInvokeConfig').node.defaultChild as CfnResource;
      config.applyRemovalPolicy(RemovalPolicy.RETAIN);
    }
  }
}
