/**
 * A run's operations as a tree: each operation with its attempts (and their logs), result,
 * error (with its stack trace), what it waits for and the actions that end the wait. Maps and
 * parallels fold their items away behind counts by status; operations left behind for good (a
 * cancelled run's wait, a race's losing branch) say so instead of looking pending.
 */
import { api } from './api.js';
import { callbackDetails } from './callback.js';
import { h } from './dom.js';
import { absolute, badge, duration, errorBox, logList, payload, renderNote, timeEl } from './format.js';
import { runHref } from './list.js';
import { signalWaitDetails } from './signals.js';

const KINDS = {
  STEP: 'Step',
  WAIT: 'Wait',
  CALLBACK: 'Callback',
  CHAINED_INVOKE: 'Invoke',
  CONTEXT: 'Context',
};
const BATCH_ITEMS = new Set(['MapIteration', 'ParallelBranch']);
/** Batches with more items than this start folded. */
const FOLD_OVER = 3;
const ABANDONED_TEXT = {
  run_ended: 'abandoned: the run ended first',
  context_ended: 'abandoned: its context finished first',
};

/** Whether the operation waits on time, so "wake now" can end it. */
export function wakeable(op) {
  if (op.abandoned) return false;
  if (op.type === 'WAIT' && op.status === 'STARTED') return true;
  return op.type === 'STEP' && op.status === 'PENDING' && op.nextAttemptAt !== undefined;
}

/**
 * The UI state of the tree, kept across renders: which operations are unfolded or folded by
 * hand, and the status each batch's items are filtered by.
 */
export function treeState() {
  return { opened: new Set(), folded: new Set(), filter: new Map() };
}

/**
 * Whether an operation with children shows them: a batch of more than a few items starts
 * folded, and so does each of its items (`batch`: the batch the operation is an item of).
 */
export function isOpen(op, state, batch) {
  if (state.opened.has(op.id)) return true;
  if (state.folded.has(op.id)) return false;
  if (BATCH_ITEMS.has(op.subType)) return !batch?.items || batch.items.total <= FOLD_OVER;
  if (op.items) return op.items.total <= FOLD_OVER;
  return true;
}

/**
 * The timeline panel's content. `ctx`: `{ notes, act, state, runId, runStatus, changed }`;
 * `changed()` is called after a fold or a filter changed (the caller renders again).
 */
export function renderTimeline(operations, ctx) {
  const visible = operations.filter((op) => op.type !== 'EXECUTION');
  const ids = new Set(visible.map((op) => op.id));
  const children = new Map();
  for (const op of visible) {
    const parent = op.parentId !== undefined && ids.has(op.parentId) ? op.parentId : '';
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent).push(op);
  }
  const list = (parent, batch) => {
    const wanted = batch ? ctx.state.filter.get(batch.id) : undefined;
    const shown = (children.get(parent) ?? []).filter((op) => !wanted || itemStatus(op) === wanted);
    return h(
      'ol',
      { class: 'timeline', dataset: { testid: parent ? 'op-children' : 'timeline' } },
      shown.map((op) => {
        const kids = children.has(op.id);
        const open = kids && isOpen(op, ctx.state, batch);
        return renderOperation(
          op,
          { ...ctx, hasChildren: kids, open },
          open ? list(op.id, op.items ? op : undefined) : null,
        );
      }),
    );
  };
  return [
    h(
      'h2',
      { id: 'timeline-title' },
      'Timeline ',
      h('span', { class: 'muted count' }, `${visible.length} operation${visible.length === 1 ? '' : 's'}`),
    ),
    visible.length === 0
      ? h('p', { class: 'empty', dataset: { testid: 'timeline-empty' } }, 'No operations yet.')
      : list(''),
  ];
}

/** An item's status as its batch counts it. */
function itemStatus(op) {
  return op.abandoned ? 'ABANDONED' : op.status;
}

function toggle(op, ctx) {
  const label = ctx.open ? 'Fold' : op.items ? `Show ${op.items.total} items` : 'Unfold';
  return h(
    'button',
    {
      type: 'button',
      class: 'fold',
      'aria-expanded': String(ctx.open),
      dataset: { testid: op.items ? 'batch-toggle' : 'op-toggle' },
      onclick: () => {
        if (ctx.open) {
          ctx.state.opened.delete(op.id);
          ctx.state.folded.add(op.id);
        } else {
          ctx.state.folded.delete(op.id);
          ctx.state.opened.add(op.id);
        }
        ctx.changed();
      },
    },
    ctx.open ? '▾ ' : '▸ ',
    label,
  );
}

/** A batch's items by status, each a filter button (again to show them all). */
function batchCounts(op, ctx) {
  const order = [
    'SUCCEEDED',
    'FAILED',
    'STARTED',
    'PENDING',
    'READY',
    'TIMED_OUT',
    'CANCELLED',
    'STOPPED',
    'ABANDONED',
  ];
  const statuses = Object.keys(op.items.byStatus).sort((a, b) => order.indexOf(a) - order.indexOf(b));
  const current = ctx.state.filter.get(op.id);
  return h(
    'span',
    { class: 'batch-counts', dataset: { testid: 'batch-counts' } },
    `${op.items.total} item${op.items.total === 1 ? '' : 's'}: `,
    statuses.map((status) =>
      h(
        'button',
        {
          type: 'button',
          class: `chip badge badge-${status.toLowerCase()}${current === status ? ' chosen' : ''}`,
          'aria-pressed': String(current === status),
          title: current === status ? 'Show every item' : `Show only the ${status.toLowerCase()} items`,
          dataset: { testid: 'batch-count', status },
          onclick: () => {
            if (current === status) ctx.state.filter.delete(op.id);
            else {
              ctx.state.filter.set(op.id, status);
              ctx.state.folded.delete(op.id);
              ctx.state.opened.add(op.id);
            }
            ctx.changed();
          },
        },
        `${op.items.byStatus[status]} ${status.toLowerCase().replace('_', ' ')}`,
      ),
    ),
  );
}

function renderOperation(op, ctx, nested) {
  const kind = KINDS[op.type] ?? op.type;
  const folded = ctx.hasChildren && !ctx.open;
  const oneLine = BATCH_ITEMS.has(op.subType) && folded;
  return h(
    'li',
    {
      class: `op op-${op.type.toLowerCase()} op-${op.status.toLowerCase()}${op.abandoned ? ' op-abandoned' : ''}${oneLine ? ' op-folded' : ''}`,
      dataset: {
        testid: 'op',
        opId: op.id,
        opType: op.type,
        opName: op.name ?? '',
        opStatus: op.status,
        abandoned: op.abandoned,
        folded: folded ? 'true' : undefined,
      },
    },
    h(
      'div',
      { class: 'op-head' },
      h('span', { class: 'op-clock', title: absolute(op.startedAt) }, absolute(op.startedAt).slice(11)),
      h(
        'span',
        { class: 'op-kind' },
        kind,
        op.subType && op.subType.toLowerCase() !== kind.toLowerCase() ? ` · ${op.subType}` : '',
      ),
      h('span', { class: 'op-name', dataset: { testid: 'op-name' } }, op.name ?? h('em', null, 'unnamed')),
      badge(op.status, 'op-status'),
      op.abandoned
        ? h(
            'span',
            { class: 'badge badge-abandoned', dataset: { testid: 'op-abandoned' } },
            ABANDONED_TEXT[op.abandoned],
          )
        : null,
      op.endedEarly ? h('span', { class: 'badge badge-woken', dataset: { testid: 'op-woken' } }, 'woken early') : null,
      h(
        'span',
        { class: 'op-when muted' },
        'started ',
        timeEl(op.startedAt),
        op.durationMs !== undefined
          ? h('span', { dataset: { testid: 'op-took' } }, ` · took ${duration(op.durationMs)}`)
          : '',
      ),
      op.items ? batchCounts(op, ctx) : null,
      ctx.hasChildren ? toggle(op, ctx) : null,
    ),
    oneLine ? null : h('div', { class: 'op-body' }, details(op, ctx)),
    nested,
  );
}

function details(op, ctx) {
  const note = ctx.notes.get(op.id);
  const parts = [];
  if (op.type === 'STEP') parts.push(stepAttempts(op));
  if (op.type === 'WAIT' && op.waitUntil) {
    const open = op.status === 'STARTED' && !op.abandoned;
    parts.push(
      h(
        'p',
        { class: 'meta', dataset: { testid: 'op-wait-until' } },
        op.abandoned
          ? // Left behind for good: its end will never come, so no "in 26 min".
            ['Would have ended ', h('time', { datetime: op.waitUntil }, absolute(op.waitUntil))]
          : [open ? 'Ends ' : op.endedEarly ? 'Was due ' : 'Until ', timeEl(op.waitUntil, 'both')],
      ),
    );
  }
  if (op.type === 'CALLBACK') {
    // A signal wait is ended by its signal, never through a callback id.
    parts.push(
      op.subType === 'WaitForSignal'
        ? signalWaitDetails(op, note, ctx.act, ctx.runId)
        : callbackDetails(op, note, ctx.act),
    );
  }
  if (op.type === 'CHAINED_INVOKE') {
    parts.push(
      h(
        'p',
        { class: 'meta' },
        'Function ',
        h('code', null, op.invokedFunction ?? '?'),
        op.childRunId ? [' · run ', h('a', { href: runHref(op.childRunId) }, op.childRunId)] : '',
      ),
    );
  }
  if (wakeable(op) && ctx.runStatus === 'RUNNING') {
    parts.push(
      h(
        'div',
        { class: 'op-actions' },
        h(
          'button',
          {
            type: 'button',
            class: 'primary',
            disabled: note?.pending === true,
            dataset: { testid: 'op-wake' },
            title: op.type === 'WAIT' ? 'End this wait now' : 'Run the next attempt now, without the backoff',
            onclick: () =>
              void ctx.act(
                op.id,
                () => api.wakeRun(ctx.runId, op.id),
                op.type === 'WAIT' ? 'Wait ended.' : 'Retrying now.',
              ),
          },
          op.type === 'WAIT' ? 'End wait now' : 'Retry now',
        ),
      ),
    );
    if (op.type !== 'CALLBACK') parts.push(renderNote(note, 'op-action-message'));
  }
  if (op.result !== undefined) parts.push(labelled('Result', payload(op.result, 'op-result')));
  if (op.error && !(op.type === 'STEP' && sameAsLastFailure(op))) {
    parts.push(labelled('Error', errorBox(op.error, 'op-error')));
  }
  if (op.logs?.length && op.type !== 'STEP') parts.push(labelled('Logs', logList(op.logs, 'op-logs')));
  return parts;
}

function labelled(label, content) {
  return h('div', { class: 'labelled' }, h('span', { class: 'label' }, label), content);
}

function sameAsLastFailure(op) {
  const last = op.failedAttempts?.at(-1);
  return last !== undefined && last.error.message === op.error.message && last.error.code === op.error.code;
}

/**
 * A step's attempts, each with its log lines: each failed one with its error (the last one's
 * with its stack trace), then the current one.
 */
function stepAttempts(op) {
  const failed = op.failedAttempts ?? [];
  const attempt = op.attempt ?? failed.length + 1;
  const logsOf = (n) =>
    (op.logs ?? []).filter((log) => log.attempt === n || (log.attempt === undefined && n === attempt));
  const lastFailed = failed.at(-1)?.attempt ?? 0;
  const rows = failed.map((f) => {
    // The step keeps the last failure whole (stack trace included); the history, its message.
    const error = f.attempt === lastFailed && op.error && sameAsLastFailure(op) ? op.error : f.error;
    return attemptRow(f.attempt, 'failed', f.at, error, logsOf(f.attempt));
  });
  if (op.status === 'SUCCEEDED') {
    rows.push(attemptRow(attempt, 'succeeded', op.endedAt, undefined, logsOf(attempt)));
  } else if (op.status === 'STARTED') {
    rows.push(attemptRow(attempt, op.abandoned ? 'abandoned' : 'running', undefined, undefined, logsOf(attempt)));
  } else if ((op.status === 'PENDING' || op.status === 'READY') && op.nextAttemptAt) {
    rows.push(attemptRow(Math.max(attempt, lastFailed) + 1, op.abandoned ? 'abandoned' : 'due', op.nextAttemptAt));
  } else if (op.status === 'FAILED' && attempt > lastFailed) {
    rows.push(attemptRow(attempt, 'failed', op.endedAt, op.error, logsOf(attempt)));
  }
  const logged = (op.logs ?? []).length > 0;
  if (failed.length === 0 && op.status === 'SUCCEEDED' && attempt <= 1 && !logged) return null;
  return h('ol', { class: 'attempts', dataset: { testid: 'op-attempts' } }, rows);
}

function attemptRow(attempt, outcome, at, error, logs = []) {
  return h(
    'li',
    { class: `attempt ${outcome}`, dataset: { testid: 'attempt', attempt, outcome } },
    h('span', { class: 'attempt-no' }, `Attempt ${attempt}`),
    h('span', { class: 'attempt-outcome' }, outcome),
    at ? timeEl(at) : null,
    error ? errorBox(error, 'attempt-error') : null,
    logs.length > 0 ? logList(logs, 'attempt-logs') : null,
  );
}
