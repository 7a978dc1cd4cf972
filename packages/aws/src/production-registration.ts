import { type BackendFactory, registerBackend } from '@durable-lambda/sdk';
import { createProductionBackend } from './production';

/**
 * Registers the production backend (DynamoDB, EventBridge Scheduler, Lambda, configured from the
 * environment at the first invocation) as the one `withDurableExecution` and `selfHosted`
 * run on when their config names none; `create` replaces it (the `DurableFunction` construct's
 * bundle registers it wrapped with the run metrics its alarms watch). The side-effect entry
 * `import '@durable-lambda/aws/register'` calls this, unless a backend is registered already.
 */
export function registerProductionBackend(create: BackendFactory = () => createProductionBackend()): void {
  registerBackend(create);
}
