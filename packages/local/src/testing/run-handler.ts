import { type AwsDurableLambdaHandler, isForeignDurableHandler, runAwsDurableHandler } from '@durable-lambda/engine';
import type { DurableInvocation, InvocationOutput, LambdaContextLike } from '@durable-lambda/protocol';
import { type DurableLambdaHandler, getDurableEntry, type RuntimeOverrides } from '@durable-lambda/sdk';
import { type PlainHandler, runPlainFunction } from './plain-function';

/** A handler the driver runs: ours, or one wrapped by AWS's own `withDurableExecution`. */
export type DriverHandler = DurableLambdaHandler | AwsDurableLambdaHandler;

/** A registered function: durable (ours or AWS's), or plain (`registerFunction`). */
export type RegisteredFunction = { kind: 'durable'; handler: DriverHandler } | { kind: 'plain'; handler: PlainHandler };

/**
 * One invocation of a registered function. AWS's SDK is told no time remains, so it suspends at
 * every wait, retry and callback instead of polling in real time: the run replays as on Lambda.
 * A plain function runs to its end in one invocation, which ends its run.
 */
export async function runHandler(
  fn: RegisteredFunction,
  invocation: DurableInvocation,
  lambda: LambdaContextLike,
  overrides: RuntimeOverrides,
) {
  if (fn.kind === 'plain') {
    const output: InvocationOutput = await runPlainFunction(fn.handler, invocation.input, lambda);
    return { type: 'completed' as const, output };
  }
  const handler = fn.handler;
  if (isForeignDurableHandler(handler))
    return runAwsDurableHandler(handler, invocation, lambda, { remainingTimeMs: () => 0 });
  return getDurableEntry(handler).execute(invocation, lambda, overrides);
}
