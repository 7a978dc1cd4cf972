/** A run's page: its status and actions, input and outcome, and its operations as a timeline. */
import { api } from './api.js';
import { h, replace, rerender } from './dom.js';
import { absolute, badge, duration, elapsed, errorBox, payload, sinceEl, timeEl } from './format.js';
import { runHref, toWire } from './list.js';

const KINDS = {
  STEP: 'Step',
  WAIT: 'Wait',
  CALLBACK: 'Callback',
  CHAINED_INVOKE: 'Invoke',
  CONTEXT: 'Context',
};
const ENDED = new Set(['SUCCEEDED', 'FAILED', 'CANCELLED', 'TIMED_OUT', 'STOPPED']);

export function runView(runId, refreshNow) {
  const header = h('div', { class: 'run-header' });
  const errorSlot = h('div', { role: 'alert', dataset: { testid: 'run-error' } });
  const summary = h('div', { class: 'run-summary' });
  const timeline = h('section', { class: 'panel', 'aria-labelledby': 'timeline-title' });
  /** Messages of the actions (by `run` or operation id), kept across renders. */
  const notes = new Map();
  let run;
  let operations;
  let shownRun;
  let shownOps;

  const el = h(
    'div',
    { class: 'page' },
    h('a', { href: '#/', class: 'back', dataset: { testid: 'back' } }, '← All runs'),
    header,
    errorSlot,
    summary,
    timeline,
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

  function render() {
    if (run) {
      const key = JSON.stringify([run, notes.get('run')]);
      if (key !== shownRun) {
        shownRun = key;
        replace(header, renderHeader(run, notes.get('run'), act));
        replace(summary, renderSummary(run));
      }
    }
    if (operations) {
      const opNotes = [...notes].filter(([k]) => k !== 'run');
      const key = JSON.stringify([operations, opNotes]);
      if (key !== shownOps) {
        shownOps = key;
        rerender(timeline, () => renderTimeline(operations, notes, act));
      }
    }
  }

  return {
    el,
    title: `Run ${runId}`,
    async refresh() {
      const [r, ops] = await Promise.allSettled([api.getRun(runId), api.operations(runId)]);
      if (r.status === 'fulfilled') run = r.value;
      if (ops.status === 'fulfilled') operations = ops.value.operations;
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
      return !failed;
    },
  };
}

function renderHeader(run, note, act) {
  const actions = [];
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

function renderNote(note, testid) {
  if (!note) return null;
  if (note.error) return h('div', { class: 'note', dataset: { testid } }, errorBox(note.error, `${testid}-error`));
  return h('p', { class: `note ${note.pending ? 'muted' : 'ok'}`, role: 'status', dataset: { testid } }, note.text);
}

function fact(label, ...value) {
  return h('div', { class: 'fact' }, h('dt', null, label), h('dd', null, value));
}

function renderSummary(run) {
  const facts = h(
    'dl',
    { class: 'facts', dataset: { testid: 'run-facts' } },
    fact('Function', run.function),
    fact('Started', timeEl(run.createdAt, 'both')),
    run.endedAt
      ? fact('Ended', timeEl(run.endedAt, 'both'), ` · took ${duration(elapsed(run.createdAt, run.endedAt))}`)
      : fact('Running for', sinceEl(run.createdAt)),
    fact('Updated', timeEl(run.updatedAt, 'both')),
    run.nextWakeAt ? fact('Next wake-up', timeEl(run.nextWakeAt, 'both')) : null,
    fact('Invocations', String(run.invocations), run.lostInvocations ? ` (${run.lostInvocations} lost)` : ''),
    run.runKey ? fact('Run key', h('code', null, run.runKey)) : null,
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
    outcome = h('div', { class: 'io' }, h('h2', null, 'Error'), errorBox(run.error, 'run-error-box'));
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

function renderTimeline(operations, notes, act) {
  const visible = operations.filter((op) => op.type !== 'EXECUTION');
  const ids = new Set(visible.map((op) => op.id));
  const children = new Map();
  for (const op of visible) {
    const parent = op.parentId !== undefined && ids.has(op.parentId) ? op.parentId : '';
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent).push(op);
  }
  const list = (parent) =>
    h(
      'ol',
      { class: 'timeline', dataset: { testid: parent ? 'op-children' : 'timeline' } },
      (children.get(parent) ?? []).map((op) =>
        renderOperation(op, children.has(op.id) ? list(op.id) : null, notes, act),
      ),
    );
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

function renderOperation(op, nested, notes, act) {
  const kind = KINDS[op.type] ?? op.type;
  return h(
    'li',
    {
      class: `op op-${op.type.toLowerCase()} op-${op.status.toLowerCase()}`,
      dataset: { testid: 'op', opId: op.id, opType: op.type, opName: op.name ?? '', opStatus: op.status },
    },
    h(
      'div',
      { class: 'op-head' },
      h('span', { class: 'op-clock', title: absolute(op.startedAt) }, absolute(op.startedAt).slice(11)),
      h('span', { class: 'op-kind' }, kind, op.subType ? ` · ${op.subType}` : ''),
      h('span', { class: 'op-name', dataset: { testid: 'op-name' } }, op.name ?? h('em', null, 'unnamed')),
      badge(op.status, 'op-status'),
      h(
        'span',
        { class: 'op-when muted' },
        'started ',
        timeEl(op.startedAt),
        op.endedAt ? ` · took ${duration(elapsed(op.startedAt, op.endedAt))}` : '',
      ),
    ),
    h('div', { class: 'op-body' }, details(op, notes.get(op.id), act)),
    nested,
  );
}

function details(op, note, act) {
  const parts = [];
  if (op.type === 'STEP') parts.push(stepAttempts(op));
  if (op.type === 'WAIT' && op.waitUntil) {
    parts.push(
      h(
        'p',
        { class: 'meta', dataset: { testid: 'op-wait-until' } },
        op.status === 'STARTED' ? 'Ends ' : 'Until ',
        timeEl(op.waitUntil, 'both'),
      ),
    );
  }
  if (op.type === 'CALLBACK') parts.push(callbackDetails(op, note, act));
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
  if (op.result !== undefined) parts.push(labelled('Result', payload(op.result, 'op-result')));
  if (op.error && !(op.type === 'STEP' && sameAsLastFailure(op))) {
    parts.push(labelled('Error', errorBox(op.error, 'op-error')));
  }
  return parts;
}

function labelled(label, content) {
  return h('div', { class: 'labelled' }, h('span', { class: 'label' }, label), content);
}

function sameAsLastFailure(op) {
  const last = op.failedAttempts?.at(-1);
  return last !== undefined && last.error.message === op.error.message && last.error.code === op.error.code;
}

/** A step's attempts: each failed one with its error, then the current one. */
function stepAttempts(op) {
  const failed = op.failedAttempts ?? [];
  const attempt = op.attempt ?? failed.length + 1;
  const rows = failed.map((f) =>
    h(
      'li',
      { class: 'attempt failed', dataset: { testid: 'attempt', attempt: f.attempt, outcome: 'failed' } },
      h('span', { class: 'attempt-no' }, `Attempt ${f.attempt}`),
      h('span', { class: 'attempt-outcome' }, 'failed'),
      timeEl(f.at),
      errorBox(f.error, 'attempt-error'),
    ),
  );
  const lastFailed = failed.at(-1)?.attempt ?? 0;
  if (op.status === 'SUCCEEDED') {
    rows.push(attemptRow(attempt, 'succeeded', op.endedAt));
  } else if (op.status === 'STARTED') {
    rows.push(attemptRow(attempt, 'running'));
  } else if ((op.status === 'PENDING' || op.status === 'READY') && op.nextAttemptAt) {
    rows.push(attemptRow(Math.max(attempt, lastFailed) + 1, 'due', op.nextAttemptAt));
  } else if (op.status === 'FAILED' && attempt > lastFailed) {
    rows.push(
      h(
        'li',
        { class: 'attempt failed', dataset: { testid: 'attempt', attempt, outcome: 'failed' } },
        h('span', { class: 'attempt-no' }, `Attempt ${attempt}`),
        h('span', { class: 'attempt-outcome' }, 'failed'),
        op.endedAt ? timeEl(op.endedAt) : null,
        op.error ? errorBox(op.error, 'attempt-error') : null,
      ),
    );
  }
  if (failed.length === 0 && op.status === 'SUCCEEDED' && attempt <= 1) return null;
  return h('ol', { class: 'attempts', dataset: { testid: 'op-attempts' } }, rows);
}

function attemptRow(attempt, outcome, at) {
  return h(
    'li',
    { class: `attempt ${outcome}`, dataset: { testid: 'attempt', attempt, outcome } },
    h('span', { class: 'attempt-no' }, `Attempt ${attempt}`),
    h('span', { class: 'attempt-outcome' }, outcome),
    at ? timeEl(at) : null,
  );
}

/** A callback's id and deadlines and, while it waits, the forms to complete or fail it. */
function callbackDetails(op, note, act) {
  const meta = h(
    'p',
    { class: 'meta' },
    'Callback id ',
    h('code', { class: 'callback-id', dataset: { testid: 'callback-id' } }, op.callbackId ?? '?'),
    op.status === 'STARTED' && op.timeoutAt ? [' · times out ', timeEl(op.timeoutAt, 'both')] : '',
    op.status === 'STARTED' && op.heartbeatDeadline ? [' · heartbeat due ', timeEl(op.heartbeatDeadline, 'both')] : '',
  );
  if (op.status !== 'STARTED' || !op.callbackId) return [meta, renderNote(note, 'callback-message')];
  const id = op.callbackId;
  const base = `cb-${op.id}`;
  const result = h('textarea', {
    id: `${base}-result`,
    class: 'callback-result',
    rows: 2,
    spellcheck: 'false',
    placeholder: '{"approved": true}',
    dataset: { keep: `${base}-result`, testid: 'callback-result' },
  });
  const message = h('input', {
    id: `${base}-message`,
    autocomplete: 'off',
    placeholder: 'Rejected by reviewer',
    dataset: { keep: `${base}-message`, testid: 'callback-fail-message' },
  });
  const code = h('input', {
    id: `${base}-code`,
    autocomplete: 'off',
    placeholder: 'rejected',
    size: 12,
    dataset: { keep: `${base}-code`, testid: 'callback-fail-code' },
  });
  const invalid = (text) => act(op.id, () => Promise.reject({ code: 'invalid_argument', message: text }));

  const complete = (event) => {
    event.preventDefault();
    const text = result.value.trim();
    let value;
    if (text) {
      try {
        value = JSON.parse(text);
      } catch (error) {
        void invalid(`result: not valid JSON (${error.message})`);
        return;
      }
    }
    void act(op.id, () => api.succeedCallback(id, value), 'Callback completed.');
  };
  const fail = (event) => {
    event.preventDefault();
    if (!message.value.trim()) {
      void invalid('message: write why the callback failed');
      return;
    }
    const error = { message: message.value.trim(), ...(code.value.trim() ? { code: code.value.trim() } : {}) };
    void act(op.id, () => api.failCallback(id, error), 'Callback failed.');
  };
  const pending = note?.pending === true;
  return [
    meta,
    h(
      'div',
      { class: 'callback-actions', dataset: { testid: 'callback-actions' } },
      h(
        'form',
        { class: 'inline-form', onsubmit: complete, dataset: { testid: 'callback-complete-form' } },
        h('label', { for: result.id }, 'Result (JSON)'),
        result,
        h(
          'button',
          { type: 'submit', class: 'primary', disabled: pending, dataset: { testid: 'callback-complete' } },
          'Complete',
        ),
      ),
      h(
        'form',
        { class: 'inline-form', onsubmit: fail, dataset: { testid: 'callback-fail-form' } },
        h('label', { for: message.id }, 'Error message'),
        message,
        h('label', { for: code.id }, 'Code'),
        code,
        h(
          'button',
          { type: 'submit', class: 'danger', disabled: pending, dataset: { testid: 'callback-fail' } },
          'Fail',
        ),
      ),
      op.heartbeatDeadline
        ? h(
            'button',
            {
              type: 'button',
              disabled: pending,
              dataset: { testid: 'callback-heartbeat' },
              onclick: () => void act(op.id, () => api.heartbeatCallback(id), 'Heartbeat sent.'),
            },
            'Heartbeat',
          )
        : null,
    ),
    renderNote(note, 'callback-message'),
  ];
}
