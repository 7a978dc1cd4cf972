import { type AwsDurableLambdaHandler, isForeignDurableHandler, runAwsDurableHandler } from '@durable-lambda/engine';
import type { DurableInvocation, InvocationOutput, LambdaContextLike } from '@durable-lambda/protocol';
import { type DurableLambdaHandler, getDurableEntry, type LogSink, type RuntimeOverrides } from '@durable-lambda/sdk';
import { type PlainHandler, runPlainFunction } from './plain-function';

/** A handler the driver runs: ours, or one wrapped by AWS's own `withDurableExecution`. */
export type DriverHandler = DurableLambdaHandler | AwsDurableLambdaHandler;

/** A registered function: durable (ours or AWS's), or plain (`registerFunction`). */
export type RegisteredFunction = { kind: 'durable'; handler: DriverHandler } | { kind: 'plain'; handler: PlainHandler };

/**
 * One invocation of a registered function. AWS's SDK is told no time remains, so it suspends at
 * every wait, retry and callback instead of polling in real time: the run replays as on Lambda.
 * A plain function runs to its end in one invocation, which ends its run. With `alsoOwnSink`, our
 * handler's log lines reach its own sink too (AWS's handlers write through their own logger).
 */
export async function runHandler(
  fn: RegisteredFunction,
  invocation: DurableInvocation,
  lambda: LambdaContextLike,
  overrides: RuntimeOverrides,
  alsoOwnSink = false,
) {
  if (fn.kind === 'plain') {
    const output: InvocationOutput = await runPlainFunction(fn.handler, invocation.input, lambda);
    return { type: 'completed' as const, output };
  }
  const handler = fn.handler;
  if (isForeignDurableHandler(handler))
    return runAwsDurableHandler(handler, invocation, lambda, { remainingTimeMs: () => 0 });
  const entry = getDurableEntry(handler);
  const keep = overrides.logSink;
  if (!alsoOwnSink || !keep) return entry.execute(invocation, lambda, overrides);
  // The line is kept first, then reaches the function's own sink, as the dev server does.
  const own = entry.settings.logSink;
  const logSink: LogSink = (line) => {
    keep(line);
    own(line);
  };
  return entry.execute(invocation, lambda, { ...overrides, logSink });
}
