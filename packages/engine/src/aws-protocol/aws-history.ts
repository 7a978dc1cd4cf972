/**
 * Our stored operations as the history Lambda's `GetDurableExecutionHistory` returns (`Events`),
 * in the order and shape AWS's checkpoint server writes it.
 *
 * A run that recorded its history as it happened (every operation carries `HistoryOrder`, see
 * `history-order.ts`) is read in that order (`aws-history-recorded.ts`). A run written before is
 * ordered by inference, as follows.
 *
 * Ordering is by time, and where times are equal (always so within one invocation on a virtual
 * clock, often so on a real one) by what must have come first: an operation's own events in
 * order; a context's start before its children's events and its end after them; one operation
 * before the next one created beside it (siblings run one after the other, except the branches
 * of a map or parallel, and the callback and submitter of a waitForCallback, which run together);
 * an invocation's end before what happened outside it (a wait's timer, a child run ended, a
 * callback answered later) for the operations it started, and before what a later invocation
 * did. Among events free to go first: the handler's own events, then outside events, then
 * invocation ends; the handler's by steps of progress (a map's or parallel's branches advance
 * side by side, one event each per step, starts first), then in the order they were created.
 */

import type { Operation } from '@durable-lambda/protocol';
import { type Draft, DraftBuilder } from './aws-history-drafts';
import {
  batchDescendants,
  estimateDelays,
  invocationNodes,
  link,
  linkInvocations,
  linkTree,
  type Node,
  numberByProgress,
  ordered,
} from './aws-history-order';
import { isRecorded, recordedOrder } from './aws-history-recorded';
import type { AwsHistoryEvent, AwsHistoryOptions } from './aws-history-shapes';

/**
 * The history events of a run's operations (`operations` in creation order, as the store keeps
 * them), numbered 1..n in order. Deterministic: the same operations give the same events.
 */
export function toAwsHistoryEvents(
  operations: readonly Operation[],
  options: AwsHistoryOptions = {},
): AwsHistoryEvent[] {
  const builder = new DraftBuilder(
    options.includeExecutionData !== false,
    options.run,
    options.attemptCounting === 'service',
  );
  const perOp = new Map<string, Node[]>();
  const nodes: Node[] = [];
  const inBatch = batchDescendants(operations);
  for (const op of operations) {
    const rankOf = (draft: Draft, index: number, all: Draft[]) => {
      if (op.Type === 'EXECUTION' && index > 0 && index === all.length - 1) return 4;
      if (draft.phase === 'outside') return 2;
      return index === 0 && inBatch.has(op.Id) ? -1 : 0;
    };
    const own = builder.drafts(op).map(
      (draft, index, all): Node => ({
        draft,
        rank: rankOf(draft, index, all),
        round: 0,
        seq: 0,
        next: [],
        waiting: 0,
      }),
    );
    for (let i = 1; i < own.length; i += 1) link(own[i - 1], own[i]);
    perOp.set(op.Id, own);
    nodes.push(...own);
  }
  if (isRecorded(operations)) {
    // Recorded as it happened: read, not inferred.
    const recorded = recordedOrder(
      operations,
      perOp,
      options.invocations ?? [],
      options.includeExecutionData !== false,
    );
    estimateDelays(perOp, recorded.invocations);
    return numbered(recorded.nodes);
  }
  const invocations = invocationNodes(options.invocations ?? [], options.includeExecutionData !== false);
  for (let i = 1; i < invocations.length; i += 1) link(invocations[i - 1]?.node, invocations[i]?.node);
  nodes.push(...invocations.map((entry) => entry.node));

  linkTree(operations, perOp);
  linkInvocations(operations, perOp, invocations);
  estimateDelays(perOp, invocations);
  numberByProgress(operations, perOp);
  const execution = operations.find((op) => op.Type === 'EXECUTION');
  const end = execution ? perOp.get(execution.Id)?.find((node) => node.rank === 4) : undefined;
  if (end) {
    // Lambda ends an execution when its last invocation completes: its end comes last, at that time at the earliest.
    for (const node of nodes) if (node !== end) link(node, end);
    const latest = nodes.reduce((max, node) => Math.max(max, node.draft.at), end.draft.at);
    end.draft = { ...end.draft, at: latest, event: { ...end.draft.event, EventTimestamp: new Date(latest) } };
  }
  return numbered(ordered(nodes));
}

/**
 * The events in order, numbered 1..n. The execution's end comes last, at the latest time of any
 * event (Lambda ends an execution when its last invocation completes).
 */
function numbered(nodes: readonly Node[]): AwsHistoryEvent[] {
  const latest = nodes.reduce((max, node) => Math.max(max, node.draft.at), Number.NEGATIVE_INFINITY);
  return nodes.map((node, index) => {
    const event = { ...node.draft.event, EventId: index + 1 } as AwsHistoryEvent;
    const executionEnd = index === nodes.length - 1 && index > 0 && event.EventType.startsWith('Execution');
    if (executionEnd && node.draft.at < latest) event.EventTimestamp = new Date(latest);
    return event;
  });
}
