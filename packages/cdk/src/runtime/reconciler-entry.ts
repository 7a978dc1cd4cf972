/**
 * The reconciler's Lambda entry (bundled by the `DurableFunction` construct, one per stack and
 * table, run on a schedule): `createReconcilerHandler` of `@durable-lambda/aws`, configured from
 * the environment the `DurableReconciler` construct sets. Its summary line carries the
 * `RunsExamined`, `RunsWoken`, `ParentsNotified` and `Failed` metrics only when custom metrics are
 * on (`DURABLE_CUSTOM_METRICS`); otherwise the same fields are logged as plain JSON, and no metric
 * is billed.
 */
import { createReconcilerHandler } from '@durable-lambda/aws';
import { customMetricsOn, withoutEmf } from './metrics';

export const handler = createReconcilerHandler(
  customMetricsOn(process.env) ? {} : { write: (line: string) => void process.stdout.write(`${withoutEmf(line)}\n`) },
);
