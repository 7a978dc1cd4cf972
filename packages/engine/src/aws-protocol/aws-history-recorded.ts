/**
 * The order of a run's history events as the run recorded it (`history-order.ts`): each event
 * where its operation's `HistoryOrder` places it, each `InvocationCompleted` where the run's
 * `historyInvocations` place it. Used when every operation of the run carries its places; a run
 * written before keeps the inferred order (`aws-history-order.ts`).
 */

import type { Operation } from '@durable-lambda/protocol';
import { effectivePlace, type HistoryInvocation } from '../history-order';
import type { Draft } from './aws-history-drafts';
import { type InvocationNode, invocationNodes, type Node } from './aws-history-order';
import type { AwsHistoryInvocation } from './aws-history-shapes';

/** Whether the run's operations carry the places of their events (all of them: a run recorded from its start). */
export function isRecorded(operations: readonly Operation[]): boolean {
  return operations.length > 0 && operations.every((op) => op.HistoryOrder !== undefined);
}

/** An event with its place. */
interface Placed {
  node: Node;
  /** Its place in the run's order; past every recorded one when not recorded yet (a view settled it). */
  place: number;
  /** 1 for the execution's end, which comes after everything at its place; 0 otherwise. */
  last: number;
  /** Creation order of its operation (invocations after), then its own order, for ties. */
  seq: number;
}

/**
 * The events of `perOp` (each operation's drafts, oldest first) and of the invocations that
 * recorded their end, in the run's order. An event written from outside while an invocation held
 * the run comes after that invocation's end (`effectivePlace`). An event without a place (a wait a view shows ended
 * before an invocation recorded it) comes after the recorded ones, by time. Events at the same
 * place (outside events written at the same count) go by time; the execution's end last.
 */
export function recordedOrder(
  operations: readonly Operation[],
  perOp: ReadonlyMap<string, Node[]>,
  invocations: readonly AwsHistoryInvocation[],
  withData: boolean,
): { nodes: Node[]; invocations: InvocationNode[] } {
  const placed: Placed[] = [];
  let seq = 0;
  const ended = invocations.filter((invocation) => invocation.endTimestamp !== undefined);
  const ends: HistoryInvocation[] = [];
  for (const invocation of ended) {
    if (invocation.order === undefined) continue;
    const startedAt = invocation.startTimestamp.getTime();
    ends.push({ startedAt, endedAt: invocation.endTimestamp?.getTime() ?? startedAt, order: invocation.order });
  }
  for (const op of operations) {
    const order = op.HistoryOrder ?? [];
    const own = perOp.get(op.Id) ?? [];
    for (const [index, node] of own.entries()) {
      const last = op.Type === 'EXECUTION' && index > 0 && index === own.length - 1 ? 1 : 0;
      const recorded = order[index];
      const place = recorded === undefined ? Number.POSITIVE_INFINITY : effectivePlace(recorded, node.draft.at, ends);
      placed.push({ node, place, last, seq: seq++ });
    }
  }
  const nodes = invocationNodes(ended, withData);
  for (const [index, entry] of nodes.entries()) {
    const place = ended[index]?.order;
    if (place !== undefined) placed.push({ node: entry.node, place, last: 0, seq: seq++ });
  }
  placed.sort((a, b) => a.last - b.last || a.place - b.place || a.node.draft.at - b.node.draft.at || a.seq - b.seq);
  return { nodes: placed.map((entry) => entry.node), invocations: nodes };
}

/** A draft as a node of the ordering (only its draft is read here). */
export function nodeOf(draft: Draft): Node {
  return { draft, rank: 0, round: 0, seq: 0, next: [], waiting: 0 };
}
