/**
 * The reconciler's Lambda entry (bundled by the `DurableFunction` construct, one per stack and
 * table, run every minute): `createReconcilerHandler` of `@durable-lambda/aws`, configured from
 * the environment the `DurableReconciler` construct sets.
 */
import { createReconcilerHandler } from '@durable-lambda/aws';

export const handler = createReconcilerHandler();
