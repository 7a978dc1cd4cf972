import { type DurableInvocation, executionArn } from '@durable-lambda/protocol';

/**
 * What the SDK hands code as the run's `durableExecutionArn` (`executionContext`, serdes contexts,
 * logger, plugins): Lambda's ARN shape, as AWS's SDK hands it, unique to this creation of the run.
 * A run whose id comes from a key names a new run once it has expired; its incarnation is part of
 * the ARN then, so a serdes that names files after it (`createFileSystemSerdes`) never writes over
 * the old run's.
 */
export function executionArnOf(invocation: Pick<DurableInvocation, 'functionName' | 'runId' | 'incarnation'>): string {
  return executionArn(invocation.functionName, invocation.runId, invocation.incarnation);
}
