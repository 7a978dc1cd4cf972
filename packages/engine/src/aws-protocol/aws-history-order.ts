/**
 * The order of a run's history events: the links that say what must come before what, and the
 * order they allow (see `aws-history.ts` for the rules).
 */

import { isTerminal, type Operation } from '@durable-lambda/protocol';
import { EngineInputError } from '../errors';
import type { Draft } from './aws-history-drafts';
import type { AwsHistoryEvent, AwsHistoryInvocation } from './aws-history-shapes';
import { toAwsError } from './aws-mapping';

/** Children that run side by side: no sibling runs after another one. */
const CONCURRENT_PARENTS = new Set(['Map', 'Parallel', 'WaitForCallback']);
/** A map's or parallel's children: all started before any of their work, as AWS's SDK starts them. */
const BATCH_PARENTS = new Set(['Map', 'Parallel']);

/** An event in the ordering. */
export interface Node {
  draft: Draft;
  /**
   * -1 the start of an operation inside a map or parallel (its branches run together, and AWS's
   * SDK checkpoints every start before the work it waits on), 0 the handler's other events, 2
   * outside events, 3 invocation ends (after the outside events that woke the invocation; an
   * outside event its own invocation caused is linked after it), 4 the execution's end.
   */
  rank: number;
  /** Steps of progress since the run began, for ties (see {@link numberByProgress}). */
  round: number;
  /** Position in creation order, for ties. */
  seq: number;
  next: Node[];
  waiting: number;
}

/** `from` before `to`. */
export function link(from: Node | undefined, to: Node | undefined): void {
  if (!from || !to || from === to) return;
  from.next.push(to);
  to.waiting += 1;
}

/** Links only what time allows: an edge never sends an event before an earlier one. */
function linkInTime(from: Node | undefined, to: Node | undefined): void {
  if (from && to && from.draft.at <= to.draft.at) link(from, to);
}

/** A context's start before its children, its end after them; siblings one after another. */
export function linkTree(operations: readonly Operation[], perOp: ReadonlyMap<string, Node[]>): void {
  const children = childrenOf(operations);
  const byId = new Map(operations.map((op) => [op.Id, op]));
  for (const [parentId, kids] of children) {
    const parent = parentId === undefined ? undefined : byId.get(parentId);
    const parentNodes = parent ? (perOp.get(parent.Id) ?? []) : [];
    const parentEnd = parent && parentNodes.length > 1 ? parentNodes.at(-1) : undefined;
    for (const kid of kids) {
      const own = perOp.get(kid.Id) ?? [];
      if (parent) linkInTime(parentNodes[0], own[0]);
      linkInTime(own.at(-1), parentEnd);
    }
    if (CONCURRENT_PARENTS.has(parent?.SubType ?? '')) continue;
    for (let i = 1; i < kids.length; i += 1) {
      const before = kids[i - 1];
      const after = kids[i];
      if (before && after) linkInTime(perOp.get(before.Id)?.at(-1), perOp.get(after.Id)?.[0]);
    }
  }
}

/** Operations by parent id (top level under `undefined`), the execution itself left out, in creation order. */
function childrenOf(operations: readonly Operation[]): Map<string | undefined, Operation[]> {
  const ids = new Set(operations.map((op) => op.Id));
  const out = new Map<string | undefined, Operation[]>();
  for (const op of operations) {
    if (op.Type === 'EXECUTION') continue;
    // A parent we do not have (trimmed, or from elsewhere) makes the operation top level for ordering.
    const parent = op.ParentId !== undefined && ids.has(op.ParentId) ? op.ParentId : undefined;
    const list = out.get(parent) ?? [];
    list.push(op);
    out.set(parent, list);
  }
  return out;
}

/** An invocation's `InvocationCompleted`, with its times. */
export interface InvocationNode {
  node: Node;
  start: number;
  end: number;
}

/** The `InvocationCompleted` of each ended invocation, in order. */
export function invocationNodes(invocations: readonly AwsHistoryInvocation[], withData: boolean): InvocationNode[] {
  const out: InvocationNode[] = [];
  for (const [index, invocation] of invocations.entries()) {
    // An invocation still running has not completed: Lambda writes its event when it ends.
    if (invocation.endTimestamp === undefined) continue;
    const start = time(invocation.startTimestamp, `invocations[${index}].startTimestamp`);
    const end = time(invocation.endTimestamp, `invocations[${index}].endTimestamp`);
    const error = toAwsError(invocation.error);
    const event: Omit<AwsHistoryEvent, 'EventId'> = {
      EventType: 'InvocationCompleted',
      EventTimestamp: new Date(end),
      InvocationCompletedDetails: {
        StartTimestamp: new Date(start),
        EndTimestamp: new Date(end),
        RequestId: invocation.requestId,
        ...(error === undefined ? {} : { Error: withData ? { Payload: error } : {} }),
      },
    };
    out.push({
      node: { draft: { event, at: end, phase: 'inside' }, rank: 3, round: 0, seq: index, next: [], waiting: 0 },
      start,
      end,
    });
  }
  return out;
}

function time(value: unknown, field: string): number {
  if (!(value instanceof Date) || Number.isNaN(value.getTime()))
    throw new EngineInputError(field, 'must be a valid Date');
  return value.getTime();
}

/**
 * Look-ups over the invocations, in log time: `endingBy(at)` the first one that had not ended by
 * `at` (-1 if none), `laterStart(i)` the earliest start among those after the `i`-th.
 */
function invocationIndex(invocations: readonly InvocationNode[]) {
  const maxEnd: number[] = [];
  for (const [i, invocation] of invocations.entries())
    maxEnd.push(Math.max(invocation.end, maxEnd[i - 1] ?? -Infinity));
  const minStartAfter: number[] = new Array(invocations.length).fill(Infinity);
  for (let i = invocations.length - 2; i >= 0; i -= 1) {
    minStartAfter[i] = Math.min(invocations[i + 1]?.start ?? Infinity, minStartAfter[i + 1] ?? Infinity);
  }
  return {
    endingBy(at: number): number {
      // The first invocation ending at `at` or later is where the running maximum of ends first gets there.
      let low = 0;
      let high = invocations.length;
      while (low < high) {
        const mid = (low + high) >> 1;
        if ((maxEnd[mid] ?? -Infinity) >= at) high = mid;
        else low = mid + 1;
      }
      return low < invocations.length ? low : -1;
    },
    laterStart: (index: number): number => minStartAfter[index] ?? Infinity,
  };
}

/**
 * An invocation's end before the outside events of the operations it started, and before what a
 * later invocation did: the handler's work that followed an outside event (the next invocation
 * saw it), and a retried attempt. Which invocation started an operation is the first one that had
 * not ended yet when it started (with equal times, the earliest such: the weakest guess that
 * keeps the order true).
 *
 * A callback may be completed while the invocation that created it still runs (the submitter's
 * system answers at once): it is put after that invocation's end only when it came later; at the
 * same time it comes before, as AWS's runner records a callback sent as soon as it started. A
 * wait's timer and a child run only begin once the invocation has checkpointed and ended.
 */
export function linkInvocations(
  operations: readonly Operation[],
  perOp: ReadonlyMap<string, Node[]>,
  invocations: readonly InvocationNode[],
): void {
  if (invocations.length === 0) return;
  const { endingBy, laterStart } = invocationIndex(invocations);
  /** The end of invocation `index` before `node`, when a later invocation had begun by then. */
  const linkLater = (index: number, node: Node) => {
    if (index >= 0 && laterStart(index) <= node.draft.at) linkInTime(invocations[index]?.node, node);
  };
  for (const op of operations) {
    for (const node of perOp.get(op.Id) ?? []) {
      if (node.draft.phase === 'outside') {
        const index = endingBy(op.StartTimestamp);
        const started = invocations[index];
        if (started && (op.Type !== 'CALLBACK' || started.end < node.draft.at)) linkInTime(started.node, node);
        for (const next of node.next) if (next.draft.phase === 'inside' && next.rank < 3) linkLater(index, next);
      }
      if (node.draft.retryOf !== undefined) linkLater(endingBy(node.draft.retryOf), node);
    }
  }
}

/**
 * A retried attempt's delay we did not keep (only the latest one is stored): the time from the
 * failure to the start of the next invocation, when that invocation began before the next attempt
 * ended. Exact on a virtual clock, which jumps to the wake-up; on a real one, late by the time
 * the wake-up took. Left out when no invocation lies between (the attempt was retried in place).
 */
export function estimateDelays(perOp: ReadonlyMap<string, Node[]>, invocations: readonly InvocationNode[]): void {
  if (invocations.length === 0) return;
  const { endingBy } = invocationIndex(invocations);
  for (const own of perOp.values()) {
    for (let i = 1; i < own.length; i += 1) {
      const retried = own[i];
      const failure = own[i - 1];
      if (!retried || !failure || retried.draft.retryOf === undefined) continue;
      const details = failure.draft.event.StepFailedDetails ?? failure.draft.event.StepSucceededDetails;
      if (!details?.RetryDetails || details.RetryDetails.NextAttemptDelaySeconds !== undefined) continue;
      const ending = endingBy(failure.draft.at);
      const next = ending >= 0 ? invocations[ending + 1] : undefined;
      if (!next || next.start < failure.draft.at || next.start > retried.draft.at) continue;
      details.RetryDetails = {
        ...details.RetryDetails,
        NextAttemptDelaySeconds: (next.start - failure.draft.at) / 1000,
      };
    }
  }
}

/** Operations with a map or parallel among their ancestors. */
export function batchDescendants(operations: readonly Operation[]): Set<string> {
  const byId = new Map(operations.map((op) => [op.Id, op]));
  const out = new Set<string>();
  for (const op of operations) {
    const seen = new Set<string>();
    for (let p = op.ParentId === undefined ? undefined : byId.get(op.ParentId); p && !seen.has(p.Id); ) {
      seen.add(p.Id);
      if (BATCH_PARENTS.has(p.SubType ?? '')) {
        out.add(op.Id);
        break;
      }
      p = p.ParentId === undefined ? undefined : byId.get(p.ParentId);
    }
  }
  return out;
}

/**
 * Ties go by steps of progress, then creation order. Each event is one step after the one before
 * it in its flow (an operation's start, its children's events, its end); a map's or parallel's
 * branches all begin one step after it starts and advance side by side, as AWS's SDK runs them,
 * and it ends one step after its slowest branch. Its branches' ends also go in branch order, as
 * AWS's SDK records them.
 */
export function numberByProgress(operations: readonly Operation[], perOp: ReadonlyMap<string, Node[]>): void {
  const children = childrenOf(operations);
  let seq = 0;
  const execution = operations.find((op) => op.Type === 'EXECUTION');
  const executionNodes = execution ? (perOp.get(execution.Id) ?? []) : [];
  const first = executionNodes[0];
  if (first) first.seq = seq++;
  const number = (node: Node, round: number) => {
    node.seq = seq++;
    node.round = round;
    return round;
  };
  /** Numbers `op`'s events and its descendants' from the step after `from`; returns its last step. */
  const visit = (op: Operation, from: number): number => {
    const own = perOp.get(op.Id) ?? [];
    let round = own[0] ? number(own[0], from + 1) : from;
    const kids = children.get(op.Id) ?? [];
    if (BATCH_PARENTS.has(op.SubType ?? '')) {
      const start = round;
      for (const kid of kids) round = Math.max(round, visit(kid, start));
      for (let i = 1; i < kids.length; i += 1) {
        const before = kids[i - 1];
        const after = kids[i];
        if (before && after && isTerminal(before.Status) && isTerminal(after.Status)) {
          linkInTime(perOp.get(before.Id)?.at(-1), perOp.get(after.Id)?.at(-1));
        }
      }
    } else for (const kid of kids) round = visit(kid, round);
    for (const node of own.slice(1)) round = number(node, round + 1);
    return round;
  };
  let round = 0;
  for (const op of children.get(undefined) ?? []) round = visit(op, round);
  for (const node of executionNodes.slice(1)) number(node, round + 1);
}

/** Kahn's order over the links, the earliest event (time, rank, round, seq) first among those free to go. */
export function ordered(nodes: readonly Node[]): Node[] {
  // The handler's own events (ranks -1 and 0) go by step first; outside events and invocation ends by rank.
  const before = (a: Node, b: Node) => {
    if (a.draft.at !== b.draft.at) return a.draft.at < b.draft.at;
    const classA = Math.max(a.rank, 1);
    const classB = Math.max(b.rank, 1);
    if (classA !== classB) return classA < classB;
    if (a.round !== b.round) return a.round < b.round;
    if (a.rank !== b.rank) return a.rank < b.rank;
    return a.seq < b.seq;
  };
  const heap = new MinHeap<Node>(before);
  for (const node of nodes) if (node.waiting === 0) heap.push(node);
  const out: Node[] = [];
  while (heap.size > 0) {
    const node = heap.pop() as Node;
    out.push(node);
    for (const next of node.next) {
      next.waiting -= 1;
      if (next.waiting === 0) heap.push(next);
    }
  }
  // Unreachable by construction (every link follows creation order or time); kept so a bug loses no event.
  if (out.length < nodes.length) {
    const seen = new Set(out);
    out.push(...nodes.filter((node) => !seen.has(node)));
  }
  return out;
}

/** A binary heap: `before(a, b)` says `a` comes out first. */
class MinHeap<T> {
  private readonly items: T[] = [];
  constructor(private readonly before: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  push(item: T): void {
    const items = this.items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(items[i] as T, items[parent] as T)) break;
      [items[i], items[parent]] = [items[parent] as T, items[i] as T];
      i = parent;
    }
  }

  pop(): T | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length === 0 || last === undefined) return top;
    items[0] = last;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let best = i;
      if (left < items.length && this.before(items[left] as T, items[best] as T)) best = left;
      if (right < items.length && this.before(items[right] as T, items[best] as T)) best = right;
      if (best === i) return top;
      [items[i], items[best]] = [items[best] as T, items[i] as T];
      i = best;
    }
  }
}
