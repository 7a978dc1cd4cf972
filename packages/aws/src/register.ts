/**
 * `import '@durable-lambda/aws/register'`: the explicit entry that puts the production backend
 * under `withDurableExecution` (of `@durable-lambda/sdk`), as AWS's SDK takes its client in config.
 * Import it once, in the function's entry; `config.backend` still overrides it per handler.
 *
 * A backend registered already is kept: a `DurableFunction` bundle registers the same production
 * backend with its run metrics ahead of the handler's code, and a handler file that imports this
 * entry too keeps those metrics.
 */
import { registeredBackend } from '@durable-lambda/sdk';
// The package's main entry, not its modules: the built register.* imports index.* (one copy).
import { registerProductionBackend } from './index';

if (!registeredBackend()) registerProductionBackend();

/** What this entry calls, for an entry that registers the backend again (e.g. with a wrapper). */
export { registerProductionBackend };
