/**
 * A page of a run's operations read from DynamoDB without its other operations: one Query over
 * the `OP#` sort keys from the page's start (`ExclusiveStartKey`), the run item read first for
 * its retention, epoch and inline STARTs.
 */
import type { OperationPage, OperationPageRequest } from '@durable-lambda/engine';
import { isTerminal, type Operation } from '@durable-lambda/protocol';
import { Expressions } from './expressions';
import { inlineOperationsOf, inlineRefs } from './inline-operations';
import { EPOCH, itemRefs, OP, OP_FENCE, OP_REFS, operationFromItem } from './items';
import { OP_PREFIX, operationSk, PK, RUN_SK, runPk, SK, TTL, ttlPassed } from './layout';
import { RUN_ATTRIBUTES_FOR_OPERATIONS } from './operation-reads';
import type { StoreContext } from './store-context';
import type { Item } from './table-access';

const keyOf = (id: string): Buffer => Buffer.from(operationSk(id), 'utf8');

/**
 * Which of an inline START and the operation's item, read apart, is the newer: the entry is newer
 * when both were read at once, but the item was read after the run item, so a commit between the
 * two reads may have moved the step on (a later attempt, or its outcome).
 */
function newer(entry: Operation, item: Operation | undefined): Operation {
  if (!item) return entry;
  const itemAttempt = item.StepDetails?.Attempt ?? 0;
  const entryAttempt = entry.StepDetails?.Attempt ?? 0;
  if (itemAttempt > entryAttempt) return item;
  return itemAttempt === entryAttempt && isTerminal(item.Status) ? item : entry;
}

/**
 * The page of `runId`'s operations after `request.after` in tree order (the order of
 * `loadOperations`), at most `request.limit`, by the same rules: nothing once the run's retention
 * has passed, nothing written below its epoch, chunked values joined, inline STARTs merged where
 * they sort. Reads one item more than the page to tell whether more follow.
 */
export async function loadOperationPage(
  ctx: StoreContext,
  runId: string,
  request: OperationPageRequest,
): Promise<OperationPage> {
  const pk = runPk(runId);
  const run = await ctx.access.getItem(pk, RUN_SK, RUN_ATTRIBUTES_FOR_OPERATIONS);
  if (!run || !ctx.live(run)) return { operations: [] };
  const epoch = Number(run[EPOCH] ?? 0);
  const now = ctx.clock.now();
  const e = new Expressions();
  const items: Item[] = [];
  let more = false;
  for await (const batch of ctx.access.queryPages({
    KeyConditionExpression: `${e.name(PK)} = ${e.value(pk)} AND begins_with(${e.name(SK)}, ${e.value(OP_PREFIX)})`,
    ProjectionExpression: [PK, SK, OP, OP_REFS, OP_FENCE, TTL].map((n) => e.name(n)).join(', '),
    Limit: request.limit + 1,
    ...(request.after === undefined ? {} : { ExclusiveStartKey: { [PK]: pk, [SK]: operationSk(request.after) } }),
    ...e.attributes(),
  })) {
    for (const item of batch) {
      if (ttlPassed(item[TTL], now) || Number(item[OP_FENCE] ?? 0) < epoch) continue;
      if (items.length === request.limit) {
        more = true;
        break;
      }
      items.push(item);
    }
    if (more) break;
  }
  const pool = await ctx.access.readChunks(pk, [...items.flatMap(itemRefs), ...inlineRefs(run)], now);
  const byId = new Map<string, Operation>(
    items.map((item) => [(item[OP] as Operation).Id, operationFromItem(item, pool)]),
  );

  // Inline STARTs sorting within this page's stretch of keys: after `after`, and up to the last
  // item when more follow (the ones past it belong to a later page).
  const from = request.after === undefined ? undefined : keyOf(request.after);
  const lastItem = items.at(-1);
  const to = more && lastItem ? Buffer.from(lastItem[SK] as string, 'utf8') : undefined;
  for (const [id, entry] of inlineOperationsOf(run, pool)) {
    const key = keyOf(id);
    if (from && Buffer.compare(key, from) <= 0) continue;
    if (to && Buffer.compare(key, to) > 0) continue;
    byId.set(id, newer(entry, byId.get(id)));
  }
  const sorted = [...byId.values()]
    .map((op) => ({ op, key: keyOf(op.Id) }))
    .sort((a, b) => Buffer.compare(a.key, b.key))
    .map(({ op }) => op);
  const operations = sorted.slice(0, request.limit);
  const last = operations.at(-1);
  return (more || sorted.length > request.limit) && last ? { operations, after: last.Id } : { operations };
}
