/**
 * The suites' `withDurableExecution`: ours, which also remembers the handler function and its
 * configuration, so the comparison with AWS's runner (`aws-runner-comparison.test.ts`) can wrap the
 * very same function with AWS's SDK.
 */
import { withDurableExecution as ours } from '@durable-lambda/sdk';

/** What a handler was made of. */
export interface HandlerSource {
  fn: (...args: never[]) => unknown;
  config: unknown;
}

const sources = new WeakMap<object, HandlerSource>();

/** Our `withDurableExecution`, remembering its arguments. */
export const withDurableExecution: typeof ours = ((
  fn: Parameters<typeof ours>[0],
  config?: Parameters<typeof ours>[1],
) => {
  const handler = ours(fn, config);
  sources.set(handler, { fn: fn as HandlerSource['fn'], config });
  return handler;
}) as typeof ours;

/** The function and configuration a suite handler was made of. */
export function sourceOf(handler: object): HandlerSource | undefined {
  return sources.get(handler);
}
