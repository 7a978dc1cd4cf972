import type { DurableBackend } from '@durable-lambda/protocol';
import { InvalidArgumentError } from '../errors/invalid-argument';

/** Makes the backend a function runs on (called once per container, again after a failure). */
export type BackendFactory = () => DurableBackend | Promise<DurableBackend>;

/**
 * Where the registered factory is kept: on `globalThis` under `Symbol.for`, so every copy of
 * the SDK in a process (a bundle holding two, a test loading the sources beside the build) reads
 * the one an explicit entry such as `@durable-lambda/aws/register` wrote.
 */
const REGISTERED: unique symbol = Symbol.for('durable-lambda.registered-backend') as never;

type Registry = { [REGISTERED]?: BackendFactory };

/**
 * Registers the backend `withDurableExecution` runs on when its config names none, and that
 * `selfHosted` (of `@durable-lambda/aws`) runs on when its options name none. Called by an
 * explicit entry: `import '@durable-lambda/aws/register'` registers the production backend
 * (DynamoDB, EventBridge Scheduler, Lambda, configured from the environment); the
 * `DurableFunction` construct's bundle registers it with its run metrics. The factory is called
 * at the first invocation that needs it, not here. A later registration replaces an earlier one.
 */
export function registerBackend(create: BackendFactory): void {
  if (typeof create !== 'function') {
    throw new InvalidArgumentError('create', 'must be a function returning a backend');
  }
  (globalThis as Registry)[REGISTERED] = create;
}

/** The factory {@link registerBackend} registered in this process, if any. */
export function registeredBackend(): BackendFactory | undefined {
  return (globalThis as Registry)[REGISTERED];
}

/**
 * Removes the registered factory (a test that registered one leaves the process as it found it).
 * Returns the factory removed, if any.
 */
export function unregisterBackend(): BackendFactory | undefined {
  const registry = globalThis as Registry;
  const removed = registry[REGISTERED];
  delete registry[REGISTERED];
  return removed;
}
