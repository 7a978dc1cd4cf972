import { type DurableInvocation, incarnationId } from '@durable-lambda/protocol';

/**
 * What the SDK hands code as the run's `durableExecutionArn` (`executionContext`, serdes contexts,
 * plugins): unique to this creation of the run, as Lambda's ARN is unique to one execution. A run
 * whose id comes from a key names a new run once it has expired; its incarnation is part of it
 * then, so a serdes that names files after it (`createFileSystemSerdes`) never writes over the
 * old run's. A run with a random id: its id alone.
 */
export function executionArnOf(invocation: Pick<DurableInvocation, 'runId' | 'incarnation'>): string {
  return incarnationId(invocation.runId, invocation.incarnation);
}
