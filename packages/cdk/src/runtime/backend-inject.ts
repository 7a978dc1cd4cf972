/**
 * Injected (esbuild `inject`) into every `DurableFunction` bundle, ahead of the handler's code:
 * the bundle's explicit registration of its production backend, as
 * `import '@durable-lambda/aws/register'` registers it, but wrapped with the run metrics the
 * construct's alarms watch when its custom metrics are on. `withDurableExecution` (without
 * `config.backend`) and `selfHosted` (without `options.backend`) run on it. One copy of the code,
 * no `node_modules` beside the bundle.
 */
import { createProductionBackend, registerProductionBackend } from '@durable-lambda/aws';
import { customMetricsOn } from './metrics';
import { withRunMetrics } from './run-metrics';

registerProductionBackend(() => {
  const backend = createProductionBackend();
  return customMetricsOn(process.env) ? withRunMetrics(backend) : backend;
});
