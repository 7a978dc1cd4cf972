import { FencedError } from '@durable-lambda/protocol';
import { PutCommand } from './commands';
import { isConditionFailure } from './errors';
import { Expressions } from './expressions';
import { decodeInline } from './inline-codec';
import type { InlineState } from './inline-operations';
import { OP, OP_FENCE, OP_REFS } from './items';
import { operationSk, PK, runPk, SK, TTL } from './layout';
import type { StoreContext } from './store-context';

/**
 * Moves committed, finished entries of a run item out to operation items (the first half of a
 * spill; the run update that follows removes the entries). Each item is a plain PutItem, in
 * parallel, carrying the writer's fence (`f`) and conditioned on no newer fence having written
 * that operation's item, so a writer that lost its lease cannot replace what a newer one wrote
 * (an operator's reopen); its puts only ever copy what was committed, so a stale copy is an
 * operation the entry still overrides. A put refused that way means the run has moved on: fenced.
 */
export async function spillEntries(
  ctx: StoreContext,
  runId: string,
  fence: number,
  ttl: number,
  ids: readonly string[],
  state: InlineState,
): Promise<void> {
  const pk = runPk(runId);
  await Promise.all(
    ids.map(async (id) => {
      const entry = state.entries.get(id);
      if (!entry) return;
      const { op, refs } = decodeInline(entry.text, id);
      const e = new Expressions();
      const item: Record<string, unknown> = {
        [PK]: pk,
        [SK]: operationSk(op.Id),
        [OP]: op,
        [OP_FENCE]: fence,
        [TTL]: ttl,
      };
      if (refs && Object.keys(refs).length > 0) item[OP_REFS] = refs;
      try {
        await ctx.access.client.send(
          new PutCommand({
            TableName: ctx.table,
            Item: item,
            ConditionExpression: `attribute_not_exists(${e.name(PK)}) OR ${e.name(OP_FENCE)} <= ${e.value(fence)}`,
            ...e.attributes(),
          }),
        );
      } catch (error) {
        if (isConditionFailure(error))
          throw new FencedError(`run ${runId}: operation ${id} was written by a newer fence`);
        throw error;
      }
    }),
  );
}
