/**
 * A run's page: its status and actions (cancel, retry, wake now), input and outcome, its
 * waterfall, its context logger's lines, and its operations as a tree (see timeline.js).
 */
import { api } from './api.js';
import { compensationsPanel } from './compensations.js';
import { h, replace, rerender } from './dom.js';
import { badge, duration, elapsed, errorBox, logList, payload, renderNote, sinceEl, timeEl } from './format.js';
import { keyHref, runHref, toWire } from './list.js';
import { renderMeter } from './meter.js';
import { rawHistoryPanel } from './raw-history.js';
import { runTreePanel } from './run-tree.js';
import { signalsPanel } from './signals.js';
import { tagChips } from './tags.js';
import { isOpen, renderTimeline, treeState, wakeable } from './timeline.js';
import { renderWaterfall } from './waterfall.js';

const ENDED = new Set(['SUCCEEDED', 'FAILED', 'CANCELLED', 'TIMED_OUT', 'STOPPED']);

export function runView(runId, refreshNow) {
  const header = h('div', { class: 'run-header' });
  const errorSlot = h('div', { role: 'alert', dataset: { testid: 'run-error' } });
  const summary = h('div', { class: 'run-summary' });
  const waterfall = h('section', { class: 'panel', 'aria-labelledby': 'waterfall-title' });
  const runLogs = h('section', { class: 'panel', 'aria-labelledby': 'logs-title', hidden: true });
  const timeline = h('section', { class: 'panel', 'aria-labelledby': 'timeline-title' });
  const tree = runTreePanel(runId);
  const raw = rawHistoryPanel(runId);
  const compensations = compensationsPanel(runId);
  /** Messages of the actions (by `run` or operation id), kept across renders. */
  const notes = new Map();
  /** Folds and filters of the tree, shared by the timeline and the waterfall. */
  const state = treeState();
  let run;
  let history;
  let shownRun;
  let shownOps;
  const signals = signalsPanel(runId, act, notes);

  const el = h(
    'div',
    { class: 'page' },
    h('a', { href: '#/', class: 'back', dataset: { testid: 'back' } }, '← All runs'),
    header,
    errorSlot,
    summary,
    compensations.el,
    tree.el,
    signals.el,
    waterfall,
    runLogs,
    timeline,
    raw.el,
  );

  /** Runs an action; its outcome is noted under `key`, then the page refreshes. */
  async function act(key, action, done) {
    notes.set(key, { pending: true, text: 'Sending…' });
    redraw();
    try {
      await action();
      notes.set(key, { text: done });
    } catch (error) {
      notes.set(key, { error: toWire(error) });
    }
    redraw();
    await refreshNow();
  }

  function redraw() {
    shownRun = undefined;
    shownOps = undefined;
    render();
  }

  /** Whether the items of a batch (or the children of a context) are folded away, as in the tree. */
  const isFolded = (op, batch) => !isOpen(op, state, batch);

  function render() {
    const operations = history?.operations;
    if (run) {
      const waiting = operations?.some(wakeable) === true;
      const key = JSON.stringify([run, notes.get('run'), waiting, history?.retriedAt]);
      if (key !== shownRun) {
        shownRun = key;
        replace(header, renderHeader(run, notes.get('run'), act, waiting));
        replace(summary, renderSummary(run, history?.retriedAt ?? []));
      }
    }
    if (operations && run) {
      const opNotes = [...notes].filter(([k]) => k !== 'run' && k !== 'signal');
      const key = JSON.stringify([history, opNotes, run.status]);
      if (key !== shownOps) {
        shownOps = key;
        const ctx = { notes, act, state, runId, runStatus: run.status, changed: redraw };
        rerender(timeline, () => renderTimeline(operations, ctx));
        replace(waterfall, renderWaterfall(run, history, isFolded));
        const lines = history.logs ?? [];
        runLogs.hidden = lines.length === 0 && !history.logsDropped;
        replace(
          runLogs,
          h('h2', { id: 'logs-title' }, 'Logs ', h('span', { class: 'muted count' }, 'of the context logger')),
          history.logsDropped
            ? h('p', { class: 'muted' }, `${history.logsDropped} older lines were dropped (the run's log size cap).`)
            : null,
          lines.length > 0 ? logList(lines, 'run-logs') : null,
        );
      }
    }
  }

  return {
    el,
    title: `Run ${runId}`,
    async refresh() {
      const [r, ops] = await Promise.allSettled([api.getRun(runId), api.operations(runId)]);
      if (r.status === 'fulfilled') run = r.value;
      if (ops.status === 'fulfilled') history = ops.value;
      const failed = [r, ops].find((x) => x.status === 'rejected');
      if (failed) {
        const missing = failed.reason?.code === 'run_not_found';
        replace(
          errorSlot,
          errorBox(toWire(failed.reason), 'run-error-message'),
          missing
            ? h('p', { class: 'muted' }, 'No run has this id. ', h('a', { href: '#/' }, 'Back to the runs.'))
            : null,
        );
        if (missing && !run) replace(header, h('h1', null, 'Run ', h('code', null, runId)));
      } else {
        replace(errorSlot);
      }
      render();
      if (run) raw.update(run);
      void signals.update(run, history?.operations).catch((error) => console.warn('dashboard: signals', error));
      // The tree reads other runs: it follows, never holding up this run's own page.
      void tree.update(run, history?.operations).catch((error) => console.warn('dashboard: run tree', error));
      void compensations.update(history?.operations).catch((error) => console.warn('dashboard: compensations', error));
      return !failed;
    },
  };
}

function renderHeader(run, note, act, waiting) {
  const actions = [];
  if (run.status === 'RUNNING' && waiting) {
    actions.push(
      h(
        'button',
        {
          type: 'button',
          class: 'primary',
          disabled: note?.pending === true,
          title: "End the run's durable waits and retry backoffs now",
          dataset: { testid: 'wake-run' },
          onclick: () => void act('run', () => api.wakeRun(run.runId), 'Run woken: its waits and backoffs ended now.'),
        },
        'Wake now',
      ),
    );
  }
  if (run.status === 'RUNNING') {
    actions.push(
      h(
        'button',
        {
          type: 'button',
          class: 'danger',
          dataset: { testid: 'cancel-run' },
          onclick: () => {
            if (window.confirm(`Cancel run ${run.runId}?`)) {
              void act('run', () => api.cancelRun(run.runId), 'Run cancelled.');
            }
          },
        },
        'Cancel run',
      ),
    );
  }
  if (run.status === 'FAILED' || run.status === 'TIMED_OUT') {
    actions.push(
      h(
        'button',
        {
          type: 'button',
          class: 'primary',
          dataset: { testid: 'retry-run' },
          onclick: () => void act('run', () => api.retryRun(run.runId), 'Run retried.'),
        },
        'Retry run',
      ),
    );
  }
  return [
    h(
      'div',
      { class: 'run-title' },
      h('h1', null, run.function, ' ', h('code', { class: 'run-id', dataset: { testid: 'run-id' } }, run.runId)),
      badge(run.status, 'run-status'),
      h('div', { class: 'actions' }, actions),
    ),
    renderNote(note, 'run-action-message'),
  ];
}

function fact(label, ...value) {
  return h('div', { class: 'fact' }, h('dt', null, label), h('dd', null, value));
}

/** How long the run took: since its last retry when it was retried (the time before is not this run's work). */
function took(run, retriedAt) {
  const last = retriedAt.at(-1);
  const total = duration(elapsed(run.createdAt, run.endedAt));
  if (!last || new Date(last) > new Date(run.endedAt)) return ` · took ${total}`;
  return ` · took ${duration(elapsed(last, run.endedAt))} since its last retry (${total} since it started)`;
}

function renderSummary(run, retriedAt) {
  const facts = h(
    'dl',
    { class: 'facts', dataset: { testid: 'run-facts' } },
    fact('Function', run.function),
    fact('Started', timeEl(run.createdAt, 'both')),
    run.endedAt
      ? fact('Ended', timeEl(run.endedAt, 'both'), h('span', { dataset: { testid: 'run-took' } }, took(run, retriedAt)))
      : fact(run.status === 'QUEUED' ? 'Waiting for' : 'Running for', sinceEl(run.createdAt)),
    fact('Updated', timeEl(run.updatedAt, 'both')),
    run.nextWakeAt ? fact('Next wake-up', timeEl(run.nextWakeAt, 'both')) : null,
    fact('Invocations', String(run.invocations), run.lostInvocations ? ` (${run.lostInvocations} lost)` : ''),
    run.meter ? fact('Consumed', renderMeter(run.meter)) : null,
    retriedAt.length > 0 ? fact('Retried', `${retriedAt.length}×, last `, timeEl(retriedAt.at(-1), 'both')) : null,
    run.runKey ? fact('Run key', h('code', null, run.runKey)) : null,
    // Flow control per key: the key links to its runs waiting their turn.
    run.tags ? fact('Tags', tagChips(run.tags, 'run-tags')) : null,
    run.concurrencyKey
      ? fact(
          'Concurrency key',
          h(
            'a',
            { href: keyHref(run.function, run.concurrencyKey), dataset: { testid: 'run-concurrency-key' } },
            h('code', null, run.concurrencyKey),
          ),
        )
      : null,
    run.status === 'QUEUED' && run.queuedAt
      ? fact('Queued since', h('span', { dataset: { testid: 'run-queued-at' } }, timeEl(run.queuedAt, 'both')))
      : null,
    run.status === 'QUEUED' && run.queuedFor
      ? fact('Waiting for', h('span', { dataset: { testid: 'run-waiting-for' } }, queuedReason(run)))
      : null,
    run.queuePosition === undefined
      ? null
      : fact(
          'Queue position',
          h('strong', { dataset: { testid: 'run-queue-position' } }, String(run.queuePosition)),
          h('span', { class: 'muted' }, ' (1: next to start, when a slot of its key comes free)'),
        ),
    run.parent
      ? fact(
          'Started by',
          h('a', { href: runHref(run.parent.runId) }, run.parent.runId),
          ` (operation ${run.parent.operationId})`,
        )
      : null,
  );
  let outcome;
  if (run.error) {
    outcome = h(
      'div',
      { class: 'io' },
      h('h2', null, 'Error'),
      errorBox(run.error, 'run-error-box', { openStack: true }),
    );
  } else if (run.result !== undefined) {
    outcome = h('div', { class: 'io' }, h('h2', null, 'Result'), payload(run.result, 'run-result'));
  } else {
    outcome = h(
      'div',
      { class: 'io' },
      h('h2', null, 'Result'),
      h('p', { class: 'muted' }, ENDED.has(run.status) ? 'No result.' : 'Not finished yet.'),
    );
  }
  return [
    h('section', { class: 'panel' }, facts),
    run.published ? renderPublished(run.published) : null,
    h(
      'section',
      { class: 'panel io-grid' },
      h(
        'div',
        { class: 'io' },
        h('h2', null, 'Input'),
        run.input === undefined ? h('p', { class: 'muted' }, 'No input.') : payload(run.input, 'run-input'),
      ),
      outcome,
    ),
  ];
}

/**
 * The state the run published last (`ctx.publish`), read from the store: the run's own account of
 * where it stands, shown while it waits as after it ended.
 */
function renderPublished(published) {
  return h(
    'section',
    { class: 'panel io', dataset: { testid: 'run-published' } },
    h('h2', null, 'Published state'),
    h(
      'p',
      { class: 'muted', dataset: { testid: 'run-published-at' } },
      'Published ',
      timeEl(published.at, 'both'),
      ` · state #${published.seq}`,
    ),
    payload(published.state, 'run-published-state'),
  );
}

/** What a QUEUED run waits for besides a slot: its throttled turn, its debounce window, its schedule's run. */
function queuedReason(run) {
  if (run.queuedFor === 'schedule') return `the run of its schedule to end (${(run.queuedBehind ?? []).join(', ')})`;
  const until = run.queuedUntil ? ` until ${run.queuedUntil}` : '';
  return run.queuedFor === 'throttle' ? `its throttled turn${until}` : `a quiet debounce window${until}`;
}
