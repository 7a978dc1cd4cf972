/**
 * Imported by the entry a `DurableFunction` with `sdk: 'aws'` generates (see
 * `durable-function-code.ts`): it takes the user's handler export, wrapped by AWS's own
 * `withDurableExecution`, and self-hosts it on the function's production backend.
 */
import { isSelfHosted, type SelfHostedHandler, selfHosted } from '@durable-lambda/aws';
import type { AwsDurableLambdaHandler } from '@durable-lambda/engine';

/**
 * The Lambda handler of a function whose `name` export (in module `mod`, from file `entry`) is
 * wrapped by AWS's `withDurableExecution`: that export self-hosted, or itself when it already is.
 * A missing export fails the container's start with a message naming the file and the export.
 */
export function hostAwsHandler(mod: Record<string, unknown>, name: string, entry: string): SelfHostedHandler {
  // A CommonJS module bundled as ESM shows its exports on `default`.
  const exported = mod[name] ?? (mod.default as Record<string, unknown> | undefined)?.[name];
  if (typeof exported !== 'function') {
    throw new TypeError(
      `durable-lambda: ${entry} has no function export ${JSON.stringify(name)} (a DurableFunction with sdk: 'aws' self-hosts the handler export wrapped by AWS's withDurableExecution)`,
    );
  }
  return isSelfHosted(exported) ? exported : selfHosted(exported as AwsDurableLambdaHandler);
}
