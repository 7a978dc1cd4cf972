/**
 * Injected (esbuild `inject`) into every `DurableFunction` bundle, ahead of the handler's code.
 *
 * `withDurableExecution` loads its production backend with a dynamic `import('@durable-lambda/aws')`
 * that no bundler can follow. This file bundles that package into the function instead and
 * registers it (wrapped with the run metrics the construct's alarms watch, when its custom metrics
 * are on) under a global key; the `node_modules/@durable-lambda/aws` shim that
 * `write-backend-shim.mjs` puts next to the bundle hands it to the dynamic import. One copy of the
 * code, no `node_modules` install.
 */
import { createProductionBackend } from '@durable-lambda/aws';
import { customMetricsOn } from './metrics';
import { withRunMetrics } from './run-metrics';

/** Must match write-backend-shim.mjs. */
const BACKEND_KEY = Symbol.for('durable-lambda.cdk.backend');

(globalThis as Record<symbol, unknown>)[BACKEND_KEY] = {
  createProductionBackend: (env?: Parameters<typeof createProductionBackend>[0]) => {
    const backend = createProductionBackend(env);
    return customMetricsOn(process.env) ? withRunMetrics(backend) : backend;
  },
};
