/**
 * The run tree on a run's page: the runs that started this one (its `parent`, and theirs, up to
 * the root), this run, the child runs its `invoke` operations started (CHAINED_INVOKE
 * `childRunId`), and their children in turn, each with its function and status and a link. Each
 * run's record and history is read once a refresh at most, a few levels deep; the panel is hidden
 * on a run with neither parent nor children.
 */
import { api } from './api.js';
import { h, replace } from './dom.js';
import { badge } from './format.js';
import { runHref } from './list.js';

/** Ancestors followed up at most (a loop in bad data ends here too). */
const MAX_UP = 10;
/** Levels of descendants shown under this run. */
const MAX_DOWN = 3;
/** Children read per run at most (a fan-out of thousands is summarised). */
const MAX_CHILDREN = 50;
/** Runs read per build of the tree at most, all levels together (ended ones are kept, not read again). */
const MAX_READS = 100;
/** The tree is built again at most this often while the page is live, ms (the page refreshes every 1.5 s). */
const REBUILD_MS = 5000;

const ENDED = new Set(['SUCCEEDED', 'FAILED', 'CANCELLED', 'TIMED_OUT', 'STOPPED']);

/** The child runs a history's invokes started, in history order: `{operation, childRunId, function}`. */
export function childrenOf(operations) {
  return operations
    .filter((op) => op.type === 'CHAINED_INVOKE' && op.childRunId)
    .map((op) => ({ operation: op.name ?? op.id, childRunId: op.childRunId, function: op.invokedFunction }));
}

/** A run's node: its line, and its children's nodes under it. */
function node(entry, depth, { current }) {
  const { run, via, children, more, error } = entry;
  const isCurrent = run?.runId === current;
  const line = h(
    'div',
    {
      class: `tree-line${isCurrent ? ' current' : ''}`,
      dataset: { testid: 'tree-run', runId: entry.runId, depth: String(depth) },
    },
    via ? h('span', { class: 'muted tree-via' }, `${via} → `) : null,
    h('span', { class: 'tree-function' }, run?.function ?? entry.function ?? '?'),
    ' ',
    isCurrent
      ? h('code', { class: 'mono', 'aria-current': 'page' }, entry.runId)
      : h('a', { href: runHref(entry.runId), class: 'mono' }, entry.runId),
    ' ',
    run ? badge(run.status, 'tree-status') : null,
    error ? h('span', { class: 'muted' }, ` (${error})`) : null,
    isCurrent ? h('span', { class: 'muted' }, ' (this run)') : null,
  );
  const kids = (children ?? []).map((child) => node(child, depth + 1, { current }));
  if (more > 0) kids.push(h('li', { class: 'muted' }, `… and ${more} more child runs`));
  return h('li', null, line, kids.length > 0 ? h('ul', { class: 'tree' }, kids) : null);
}

/** The panel; `update(run, operations)` on each refresh of the page. */
export function runTreePanel(runId) {
  const body = h('div', { dataset: { testid: 'run-tree' } });
  const el = h(
    'section',
    { class: 'panel', 'aria-labelledby': 'tree-title', hidden: true },
    h('h2', { id: 'tree-title' }, 'Run tree ', h('span', { class: 'muted count' }, 'parent and child runs')),
    body,
  );
  /** Records and histories of ended runs never change: kept across refreshes. */
  const ended = new Map();
  const endedHistories = new Map();
  let shown;
  let busy = false;
  let builtAt = 0;
  let builtFor;
  /** Reads left in the build under way. */
  let budget = 0;

  async function historyOf(run) {
    if (endedHistories.has(run.runId)) return endedHistories.get(run.runId);
    budget -= 1;
    const { operations } = await api.historyPage(run.runId);
    if (ENDED.has(run.status)) endedHistories.set(run.runId, operations);
    return operations;
  }

  async function runOf(id) {
    if (ended.has(id)) return ended.get(id);
    budget -= 1;
    const run = await api.getRun(id);
    if (ENDED.has(run.status)) ended.set(id, run);
    return run;
  }

  /** The subtree under a run whose history is known. */
  async function descend(operations, depth) {
    const all = childrenOf(operations);
    const kids = all.slice(0, MAX_CHILDREN);
    const children = await Promise.all(
      kids.map(async (child) => {
        const entry = { runId: child.childRunId, via: child.operation, function: child.function };
        try {
          if (budget <= 0 && !ended.has(child.childRunId)) {
            entry.error = 'not read: too many runs in this tree';
            return entry;
          }
          entry.run = await runOf(child.childRunId);
          if (depth < MAX_DOWN && budget > 0)
            Object.assign(entry, await descend(await historyOf(entry.run), depth + 1));
        } catch (error) {
          entry.error = error?.code ?? 'unreadable';
        }
        return entry;
      }),
    );
    return { children, more: all.length - kids.length };
  }

  async function build(run, operations) {
    let top = { runId: run.runId, run, ...(await descend(operations, 1)) };
    let parent = run.parent;
    for (let up = 0; parent && up < MAX_UP; up++) {
      const entry = { runId: parent.runId, children: [top] };
      top.via = `operation ${parent.operationId}`;
      try {
        entry.run = await runOf(parent.runId);
        // The invoke's name, as the parent's own page shows it.
        const invoke = childrenOf(await historyOf(entry.run)).find((c) => c.childRunId === top.runId);
        if (invoke) top.via = invoke.operation;
        parent = entry.run.parent;
      } catch (error) {
        entry.error = error?.code ?? 'unreadable';
        parent = undefined;
      }
      top = entry;
    }
    return top;
  }

  return {
    el,
    async update(run, operations) {
      if (!run || !operations || busy) return;
      if (!run.parent && childrenOf(operations).length === 0) {
        el.hidden = true;
        return;
      }
      // Built again when this run moved on, else every few seconds (its children may have).
      const moved = builtFor !== run.updatedAt;
      if (!moved && Date.now() - builtAt < REBUILD_MS) return;
      busy = true;
      budget = MAX_READS;
      try {
        const root = await build(run, operations);
        builtAt = Date.now();
        builtFor = run.updatedAt;
        const key = JSON.stringify(root);
        if (key === shown) return;
        shown = key;
        el.hidden = false;
        replace(body, h('ul', { class: 'tree root' }, node(root, 0, { current: runId })));
      } finally {
        busy = false;
      }
    },
  };
}
