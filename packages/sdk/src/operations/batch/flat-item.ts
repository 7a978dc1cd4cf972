import type { ErrorObject } from '@durable-lambda/protocol';
import { runInContext } from '../../context/active-context';
import type { Scope } from '../../context/scope';
import { ErrorCode } from '../../errors/codes';
import { toErrorObject } from '../../errors/error-object';
import { executionArnOf } from '../../runtime/execution-arn';
import { serializeChecked } from '../../serdes/checked';
import type { DurableContext } from '../../types/durable-context';
import type { Serdes } from '../../types/serdes';

/** How a FLAT item ended: its serialized result, or its error as a nested item would store it. */
export type FlatOutcome = { ok: true; result: string | undefined } | { ok: false; error: ErrorObject };

/**
 * Runs one item of a batch with `nesting: FLAT` (AWS's virtual context): no CONTEXT record of
 * its own, its operations recorded directly under the batch's context (`batchScope`), their
 * ids still prefixed by the item's id so they stay distinct and positional. Having no record,
 * the item runs again on every replay until the batch ends; its operations replay from theirs.
 */
export async function runFlatItem<T>(
  batchScope: Scope,
  id: string,
  name: string,
  itemSerdes: Serdes<T>,
  run: (context: DurableContext) => Promise<T>,
): Promise<FlatOutcome> {
  const runtime = batchScope.runtime;
  const itemScope = batchScope.child(id, true);
  try {
    const value = await runInContext({ contextId: id, operationName: name }, () => run(itemScope.context()));
    const serdesContext = { entityId: id, durableExecutionArn: executionArnOf(runtime.invocation) };
    const result = await runtime.track(() =>
      serializeChecked(itemSerdes, value, serdesContext, runtime.settings.maxPayloadBytes),
    );
    return { ok: true, result };
  } catch (error) {
    return { ok: false, error: toErrorObject(error, ErrorCode.CHILD_CONTEXT_FAILED) };
  }
}
